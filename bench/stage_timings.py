"""Stage timings of the same config measured three ways, in one run: asked one by one in the Ask page of
the running app (a real browser), run as an evaluation from the Evaluate page (same app), and run by
``ragkit eval run`` (the CLI, its own process). The figures must agree within their spread: a stage timing
is the work's, not the page's.

The config is the sidebar's default A (hybrid, extractive reader) over the own-documents corpus
(``bench/corpus/``, as in ``bench/own_corpus.py``); the questions are the corpus' answerable ones. Each
surface reports, per stage, the median and interquartile range over the questions. ``--app-omp default``
starts the app without ``OMP_WAIT_POLICY=PASSIVE`` (how it ran before the fix), for the same comparison.

    .venv/bin/python bench/stage_timings.py --questions 20 --json bench/results/stage_timings.json
    .venv/bin/python bench/stage_timings.py --questions 20 --app-omp default
    .venv/bin/python bench/stage_timings.py --questions 20 --order ask-first   # as measured before issue 43

The extractive reader embeds the retrieved chunks' sentences (through the embedding cache): whichever
surface meets a question first pays for embedding them. ``--order warm-first`` (the default) caches them
with a CLI run before any surface is timed, so the surfaces compare like with like.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench._common import machine  # noqa: E402
from bench.own_corpus import CORPUS, FILES, PAPER  # noqa: E402

STAGES = ("embed_query", "bm25", "dense", "rrf", "generate", "total")


def spread(values: list[float]) -> dict[str, float]:
    """Median and interquartile range of ``values`` (ms)."""
    s = sorted(values)
    q1, _, q3 = statistics.quantiles(s, n=4, method="inclusive") if len(s) > 1 else (s[0], 0, s[0])
    return {"p50": statistics.median(s), "p25": q1, "p75": q3, "n": len(s)}


def by_stage(rows: list[dict]) -> dict[str, dict[str, float]]:
    return {s: spread([r[s] for r in rows if s in r]) for s in STAGES if any(s in r for r in rows)}


def start_app(root: Path, omp: str) -> tuple[subprocess.Popen, str]:
    from tests.e2e.test_browser import free_port

    port = free_port()
    env = {**os.environ, "RAGKIT_INDEX_ROOT": str(root), "PYTHONPATH": str(ROOT)}
    if omp == "default":
        env["OMP_WAIT_POLICY"] = ""  # kept by quiet_openmp (a value the user set); libgomp's default
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "streamlit_app.py"), "--server.port",
           str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]  # fmt: skip
    log = open(root / "streamlit.log", "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("the app did not start: " + (root / "streamlit.log").read_text()[-2000:])


def in_browser(url: str, questions: list[str], qfile: Path) -> None:
    """Ask every question in the Ask page (waiting for each answer to finish), then run the question file
    from the Evaluate page with configs A and B."""
    from playwright.sync_api import expect, sync_playwright

    from tests.e2e.test_browser import CHROMIUM, FLAGS, settle

    expect.set_options(timeout=600_000)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(600_000)
        page.goto(f"{url}/?collection=own")
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar.get_by_text("Vectors in local files").first).to_be_visible()  # the collection is open
        settle(page)
        sidebar.get_by_role("link", name="Ask").click()
        box = page.get_by_placeholder("Ask a question about the documents")
        expect(box).to_be_enabled()
        done = page.locator('[data-testid="stChatMessage"]').filter(has_text="Retrieved chunks")
        for i, q in enumerate(questions):
            box.fill(q)
            box.press("Enter")
            expect(done).to_have_count(i + 1)
            settle(page)  # a user reads the answer before asking the next question
        sidebar.get_by_role("link", name="Evaluate").click()
        main = page.get_by_role("main")
        main.get_by_text("A path: BEIR folder").click()
        path = main.get_by_role("textbox", name="Path")
        path.fill(str(qfile))
        path.press("Enter")
        settle(page)
        main.get_by_role("button", name="Run evaluation").click()
        settle(page)
        if main.get_by_text("choose at least two configurations").count():
            # a rerun racing the path's Enter can empty the selection (a Streamlit widget-state race, seen
            # after many Ask turns in the same session): pick A and B again and run
            for name in ("A", "B"):
                main.locator('[data-testid="stMultiSelect"]').first.click()
                page.get_by_role("option", name=name, exact=True).click()
                page.keyboard.press("Escape")
                settle(page)
            main.get_by_role("button", name="Run evaluation").click()
        expect(main.get_by_text("Saved as").first).to_be_visible()
        browser.close()


def cli_run(root: Path, qfile: Path, config: Path, tag: str) -> list[dict]:
    """``ragkit eval run`` of config A over the questions (its own process, the same embedding cache)."""
    out = root / f"{tag}.json"
    cli = subprocess.run(
        [sys.executable, "-m", "ragkit", "eval", "run", "--dataset", str(qfile), "--collection", "own",
         "--config", str(config), "--index-root", str(root / f".eval-{tag}"), "--json", str(out)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
    )  # fmt: skip
    if cli.returncode != 0:
        raise SystemExit(cli.stderr[-2000:])
    return [v["timings_ms"] for v in json.loads(out.read_text())["configs"][0]["per_question"].values()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=20, help="answerable questions of the corpus to ask")
    ap.add_argument("--app-omp", choices=("passive", "default"), default="passive")
    ap.add_argument(
        "--order",
        choices=("ask-first", "warm-first"),
        default="warm-first",
        help="ask-first: Ask meets the reader's sentences first and Evaluate finds them cached (how the "
        "table of issue 41 was made); warm-first: a CLI run caches them before any surface is timed",
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    root = Path(tempfile.mkdtemp(prefix="ragkit-timings-"))
    os.environ["RAGKIT_INDEX_ROOT"] = str(root)
    os.environ["RAGKIT_CACHE_DIR"] = str(root / "cache")  # an empty embedding cache: the order decides
    from ragkit.index.collections import Collection
    from ragkit.pipeline.config import PipelineConfig

    c = Collection.create("own", root)
    files = [(PAPER.name, PAPER.read_bytes())] + [(f, (CORPUS / f).read_bytes()) for f in FILES]
    assert not c.add_files(files).failed
    import csv

    with (CORPUS / "questions.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        rows = [r for r in reader if r["gold_answer"].strip()][: args.questions]  # answerable ones
    qfile = root / "questions.csv"
    with qfile.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    questions = [r["question"] for r in rows]
    config = root / "A.json"
    config.write_text(PipelineConfig(name="A").to_json())
    if args.order == "warm-first":  # the reader's sentences embedded (and cached) before any surface is timed
        cli_run(root, qfile, config, "warm-up")
    proc, url = start_app(root, args.app_omp)
    try:
        in_browser(url, questions, qfile)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    workspace = json.loads((c.path / "workspace.json").read_text())
    ask = [t["answer"]["timings_ms"] for chat in workspace["chats"] for t in chat["turns"] if t.get("answer")]
    (saved,) = list((root / ".eval" / "runs").glob("*.json"))
    evaluate = [v["timings_ms"] for v in json.loads(saved.read_text())["configs"][0]["per_question"].values()]
    cli_rows = cli_run(root, qfile, config, "cli")
    result = {
        "machine": machine(),
        "app_omp": args.app_omp,
        "order": args.order,
        "questions": len(questions),
        "ask": by_stage(ask),
        "evaluate": by_stage(evaluate),
        "cli": by_stage(cli_rows),
    }
    shutil.rmtree(root, ignore_errors=True)
    print(f"{result['machine']}; app OpenMP wait policy: {args.app_omp}; {len(questions)} questions")
    print("| stage | Ask p50 [IQR] | Evaluate p50 [IQR] | CLI p50 [IQR] | Ask / Evaluate |")
    print("|---|---|---|---|---|")
    for s in STAGES:
        cells = []
        for where in ("ask", "evaluate", "cli"):
            t = result[where].get(s)
            cells.append(f"{t['p50']:.1f} [{t['p25']:.1f}–{t['p75']:.1f}]" if t else "–")
        a, e = result["ask"].get(s), result["evaluate"].get(s)
        ratio = f"{a['p50'] / e['p50']:.2f}" if a and e and e["p50"] else "–"
        print(f"| {s} | " + " | ".join(cells) + f" | {ratio} |")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
