"""Cold start of the app as a user meets it: ``make run`` started, then the seconds until it prints its URL
and until the first page's sidebar is interactive in a real browser (Playwright driving Debian's
/usr/bin/chromium; the browser is launched before the server, so its own start is not counted).

Two cases, each ``--repeat`` times, alternating: ``new`` (no collection yet, as a new user) and
``collection`` (a collection of three text files whose index for the default config A already exists:
what a returning user opens, and what makes the first page embed or load a model). "Interactive" means
the sidebar's Editing radio is on the page and the app's first run has finished (no "Running" status).

    .venv/bin/python bench/cold_start.py --repeat 3 --name cold_start

Before/after in one run: ``--trees before=/path/to/a/checkout,after=.`` with ``--launcher recipe`` starts
each tree's app with what its Makefile's ``run`` runs, with this venv's python (``make run`` itself would
set up a checkout's own venv first), the trees alternating.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TEXTS = {
    "kiln.txt": "The kiln at the studio reaches 1,200 degrees. Glazes melt above 1,100 degrees. " * 20,
    "orbit.md": "# Orbit\n\nOrbit 2.0 adds streaming replication and a new query planner. " * 20,
    "notes.txt": "Meeting notes: the grant was renewed in March; Dr. Okafor leads the project. " * 20,
}


def run_recipe(tree: Path) -> list[str]:
    """What ``make run`` runs in ``tree`` (its Makefile's recipe), with this venv's python and no set-up."""
    import shlex

    lines = (tree / "Makefile").read_text().splitlines()
    recipe = lines[lines.index("run: setup") + 1].strip()
    return [sys.executable if w == "$(PY)" else w for w in shlex.split(recipe)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seed_collection(root: Path, cache: Path, tree: Path) -> None:
    """A collection with three documents, indexed for the default config (in a separate process)."""
    code = (
        "from ragkit.index.collections import Collection\n"
        "from ragkit.pipeline.config import PipelineConfig\n"
        "from ragkit.index.embeddings import Embedder\n"
        "from ragkit.ingestion.chunkers import chunker_for\n"
        "from ragkit.ingestion.parsing import ParseSettings\n"
        "import json, sys\n"
        "c = Collection.create('papers')\n"
        "c.add_files([(n, t.encode()) for n, t in json.loads(sys.argv[1]).items()])\n"
        "cfg = PipelineConfig()\n"
        "backend = getattr(cfg, 'embedding_backend', None)  # None: a ragkit from before backends\n"
        "emb = Embedder(cfg.embedding_model, **({'backend': backend} if backend else {}))\n"
        "c.index(chunker_for(cfg), emb, None, ParseSettings.of(cfg))\n"
    )
    import json

    env = {
        **os.environ,
        "RAGKIT_INDEX_ROOT": str(root),
        "RAGKIT_CACHE_DIR": str(cache),
        "PYTHONPATH": str(tree),
    }
    subprocess.run([sys.executable, "-c", code, json.dumps(TEXTS)], cwd=tree, env=env, check=True)


def one_start(browser, case: str, cache: Path, tree: Path, launcher: str) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="ragkit-cold-"))
    try:
        if case == "collection":
            seed_collection(root, cache, tree)
        port = free_port()
        env = {**os.environ, "RAGKIT_INDEX_ROOT": str(root), "RAGKIT_CACHE_DIR": str(cache),
               "STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_HEADLESS": "true",
               "STREAMLIT_SERVER_ADDRESS": "127.0.0.1", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
               "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none", "PYTHONPATH": str(tree)}  # fmt: skip
        cmd = ["make", "run"] if launcher == "make" else run_recipe(tree)
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)  # fmt: skip
        url = None
        for line in proc.stdout:  # type: ignore[union-attr]
            if "URL:" in line:
                url = line.split("URL:", 1)[1].strip()
                break
        t_url = time.perf_counter()
        if url is None:
            raise RuntimeError("make run ended without printing its URL")
        page = browser.new_page()
        try:
            page.goto(url)
            sidebar = page.locator('[data-testid="stSidebar"]')
            sidebar.get_by_text("Editing").first.wait_for(state="visible", timeout=120_000)
            running = page.locator('[data-testid="stStatusWidget"]').filter(has_text="Running")
            running.first.wait_for(state="hidden", timeout=120_000)
            t_ready = time.perf_counter()
        finally:
            page.close()
            os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=20)
        return {"url_s": t_url - t0, "ready_s": t_ready - t0, "after_url_s": t_ready - t_url}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    from bench._common import write_result

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--name", default="cold_start", help="bench/results/<name>.json")
    ap.add_argument("--cases", default="new,collection")
    ap.add_argument("--trees", default=f"current={ROOT}", help="NAME=PATH,… (checkouts to compare)")
    ap.add_argument("--launcher", choices=("make", "recipe"), default="make")
    args = ap.parse_args()
    trees = {k: Path(v).resolve() for k, v in (t.split("=", 1) for t in args.trees.split(","))}
    cases = [f"{name}/{c.strip()}" for c in args.cases.split(",") if c.strip() for name in trees]
    cache = Path(tempfile.mkdtemp(prefix="ragkit-cold-cache-"))  # models converted once, kept for all runs
    runs: dict[str, list[dict[str, float]]] = {c: [] for c in cases}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for i in range(args.repeat):
            for case in cases:
                name, kind = case.split("/")
                r = one_start(browser, kind, cache, trees[name], args.launcher)
                runs[case].append(r)
                print(f"{case} #{i + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()), flush=True)
        browser.close()
    shutil.rmtree(cache, ignore_errors=True)
    out = {
        case: {k: round(statistics.median(r[k] for r in rs), 2) for k in rs[0]}
        | {"runs": [{k: round(v, 2) for k, v in r.items()} for r in rs]}
        for case, rs in runs.items()
    }
    out["launcher"] = args.launcher
    out["trees"] = {k: str(v) for k, v in trees.items()}
    print(write_result(args.name, out))


if __name__ == "__main__":
    main()
