"""N browser sessions at once against one app process: the shared-server load test.

Each session is its own browser context (its own cookies, so its own Streamlit session) in real Chromium.
Half the sessions work in one shared collection, half each create a collection of their own; each of
those types a secret API key (Groq's field: it stays in the session's memory; switching the backend of a
shared collection's config would change it for everyone who opens it next) and uploads a file with a
marker only it knows. Every session asks questions carrying its own marker, runs a comparison and
labels a question. Afterwards it checks:

- errors: a traceback or an exception box on any page, a step that timed out;
- isolation: no session's page ever showed another session's key, question marker or upload marker
  (apart from documents of the collection it shares on purpose), and no key reached a file on disk or
  the app's log;
- nothing lost: every question of every session is in its collection's saved chats (each session its
  own chat), every label every session saved is in the collection's labels;
- latency: per answer (Enter to the finished answer, as the user waits), p50/p95 with N sessions against
  1 session in the same run; the app's peak resident set (VmHWM).

    .venv/bin/python bench/load_test.py --sessions 8 --json bench/results/load_test.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench._common import machine  # noqa: E402
from bench.own_corpus import CORPUS, FILES, PAPER  # noqa: E402
from bench.stage_timings import start_app  # noqa: E402

QUESTIONS = ("What does the reader return when nothing answers the question?",
             "How are passages split before indexing?",
             "Which file formats can be ingested?")  # fmt: skip
#: a step may wait this long on a loaded 2-core machine before it counts as an error
STEP_MS = int(os.environ.get("LOAD_STEP_MS", 600_000))


@dataclass
class Session:
    n: int
    shared: bool
    key: str = ""
    marker: str = ""
    collection: str = ""
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # every page text this session was shown
    labelled: str = ""

    def __post_init__(self) -> None:
        self.key = f"gsk_loadtest_secret_{self.n:02d}_{os.urandom(6).hex()}"
        self.marker = f"zq{self.n:02d}marker"
        self.collection = "shared" if self.shared else f"own-{self.n:02d}"


async def settle(page) -> None:
    running = page.locator('[data-testid="stStatusWidget"]').filter(has_text="Running")
    with contextlib.suppress(Exception):
        await running.first.wait_for(state="visible", timeout=1_000)
    await running.first.wait_for(state="hidden", timeout=STEP_MS)
    await page.wait_for_timeout(300)


async def choose(page, sidebar, box: str, option: str) -> None:
    """Pick ``option`` in the sidebar selectbox ``box``, reopening its list if a late rerun closed it."""
    for _ in range(10):
        await settle(page)
        await sidebar.get_by_role("combobox", name=box).click()
        item = page.get_by_role("option", name=re.compile(f"^{re.escape(option)}"))
        try:
            await item.first.wait_for(state="visible", timeout=10_000)
        except Exception:  # the list closed under us: open it again
            await page.keyboard.press("Escape")
            continue
        await item.first.click()
        await settle(page)
        return
    raise RuntimeError(f"option {option!r} of {box!r} never showed")


async def look(page, s: Session) -> None:
    """Record what the page shows now, and fail the step on a traceback."""
    body = await page.locator("body").inner_text()
    s.seen.append(body)
    if "Traceback" in body or await page.locator('[data-testid="stException"]').count():
        raise RuntimeError("an exception on the page: " + body[-600:])


async def run_session(browser, url: str, s: Session, tmp: Path) -> None:
    from playwright.async_api import expect

    ctx = await browser.new_context(viewport={"width": 1300, "height": 950})
    page = await ctx.new_page()
    page.set_default_timeout(STEP_MS)
    sidebar = page.locator('[data-testid="stSidebar"]')
    main = page.get_by_role("main")
    step = "open"
    try:
        await page.goto(f"{url}/?collection=shared")
        await expect(sidebar.get_by_text("Vectors in").first).to_be_visible(timeout=STEP_MS)
        await settle(page)
        if not s.shared:
            step = "create"
            await sidebar.get_by_label("New collection").fill(s.collection)
            await sidebar.get_by_role("button", name="Create").click()
            await expect(main.get_by_text(f"Collection {s.collection} is empty")).to_be_visible(
                timeout=STEP_MS
            )
            await settle(page)  # files set during the rerun that follows "Create" would be dropped
            step = "upload"
            note = tmp / f"note-{s.n:02d}.md"
            note.write_text(f"# Note {s.marker}\n\nThe {s.marker} kiln reaches cone 10 after eleven hours. "
                            "Passages are split into windows before indexing.\n")  # fmt: skip
            await main.locator('input[type="file"]').set_input_files([str(note), str(PAPER)])
            await expect(main.get_by_text(note.name).first).to_be_visible(timeout=STEP_MS)
            await settle(page)
            await main.get_by_role("button", name="Upload and index").click()
            await expect(main.get_by_text("Ingestion report")).to_be_visible(timeout=STEP_MS)
            await look(page, s)
        step = "api key"
        await settle(page)
        if not s.shared:  # in its own collection: switching A's backend there touches no one else
            await choose(page, sidebar, "LLM backend", "groq")
            key_box = sidebar.get_by_label("Groq API key").and_(sidebar.locator("input")).first
            await key_box.fill(s.key)
            await key_box.press("Enter")
            await choose(page, sidebar, "LLM backend", "extractive")
        step = "ask"
        await sidebar.get_by_role("link", name="Ask").click()
        box = page.get_by_placeholder("Ask a question about the documents")
        await expect(box).to_be_enabled(timeout=STEP_MS)
        await settle(page)
        done = page.locator('[data-testid="stChatMessage"]').filter(has_text="Retrieved chunks")
        for i, q in enumerate(QUESTIONS):
            await box.fill(f"{q} ({s.marker})")
            t = time.perf_counter()
            await box.press("Enter")
            await expect(done).to_have_count(i + 1, timeout=STEP_MS)
            s.latencies_ms.append((time.perf_counter() - t) * 1000)
            await settle(page)
            await look(page, s)
        step = "compare"
        await sidebar.get_by_role("link", name="Compare").click()
        await (
            page.get_by_label("Question", exact=True)
            .and_(page.locator("input"))
            .fill(QUESTIONS[1])  # the last comparison is the collection's, shown to the next visitor
        )
        await page.get_by_role("button", name="Compare A and B").click()
        await expect(page.get_by_text("Rank-biased overlap").first).to_be_visible(timeout=STEP_MS)
        await look(page, s)
        step = "label"
        await sidebar.get_by_role("link", name="Evaluate").click()
        await main.get_by_role("tab", name="Label").click()
        s.labelled = f"Where is the {s.marker} kiln?"
        await main.get_by_label("Question to label").fill(s.labelled)
        await main.get_by_role("button", name="Find candidates (A ∪ B)").click()
        await expect(main.get_by_text("candidates").first).to_be_visible(timeout=STEP_MS)
        await main.get_by_text("There is no answer to this question in the collection").click()
        await main.get_by_role("button", name="Save labels").click()
        await expect(main.get_by_text("Saved 0 judgements").first).to_be_visible(timeout=STEP_MS)
        await look(page, s)
    except Exception as e:
        s.errors.append(f"{step}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
        try:
            s.seen.append(await page.locator("body").inner_text())
            await page.screenshot(path=str(tmp / f"session-{s.n:02d}-failure.png"), full_page=True)
        except Exception:
            pass
    finally:
        await ctx.close()


async def run_round(url: str, sessions: list[Session], tmp: Path) -> None:
    from playwright.async_api import async_playwright

    from tests.e2e.test_browser import CHROMIUM, FLAGS

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        await asyncio.gather(*(run_session(browser, url, s, tmp) for s in sessions))
        await browser.close()


def leaks(sessions: list[Session]) -> list[str]:
    """Every sighting of one session's secret or marker in another session's pages."""
    found = []
    for s in sessions:
        shown = "\n".join(s.seen)
        for o in sessions:
            if o is s:
                continue
            if o.key in shown:
                found.append(f"session {s.n} saw session {o.n}'s API key")
            if o.marker in shown:
                found.append(f"session {s.n} saw session {o.n}'s marker ({'chat' if o.shared else 'upload'})")
    return found


def lost_writes(root: Path, sessions: list[Session]) -> list[str]:
    """Questions or labels a session saved that its collection no longer holds."""
    out = []
    for s in sessions:
        if s.errors:
            continue
        ws = json.loads((root / s.collection / "workspace.json").read_text())
        chats = [c for c in ws.get("chats", []) if any(s.marker in t["question"] for t in c["turns"])]
        if len(chats) != 1 or len(chats[0]["turns"]) != len(QUESTIONS):
            turns = [len(c["turns"]) for c in chats]
            out.append(f"session {s.n}: its questions are in {len(chats)} chats of {turns} turns "
                       f"(expected one chat of {len(QUESTIONS)})")  # fmt: skip
        elif any(s.marker not in t["question"] for t in chats[0]["turns"]):
            out.append(f"session {s.n}: another session's question landed in its chat")
        labels = (
            (root / s.collection / "labels.jsonl").read_text()
            if (root / s.collection / "labels.jsonl").exists()
            else ""
        )
        if s.labelled not in labels:
            out.append(f"session {s.n}: its label for {s.labelled!r} is lost")
    return out


def keys_on_disk(root: Path, sessions: list[Session]) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file() and path.stat().st_size < 200_000_000:
            data = path.read_bytes()
            found += [f"{path.name} holds session {s.n}'s key" for s in sessions if s.key.encode() in data]
    return found


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ragkit-load-"))
    tmp = root.parent / (root.name + "-files")
    tmp.mkdir()
    os.environ["RAGKIT_INDEX_ROOT"] = str(root)
    from ragkit.index.collections import Collection

    c = Collection.create("shared", root)
    files = [(PAPER.name, PAPER.read_bytes())] + [(f, (CORPUS / f).read_bytes()) for f in FILES]
    assert not c.add_files(files).failed
    proc, url = start_app(root, "passive")
    rounds = {}
    try:
        for n in (1, args.sessions):
            sessions = [Session(i + (100 if n == 1 else 0), shared=i % 2 == 0) for i in range(n)]
            t = time.perf_counter()
            asyncio.run(run_round(url, sessions, tmp))
            wall = time.perf_counter() - t
            lat = [x for s in sessions for x in s.latencies_ms]
            rounds[n] = {
                "sessions": n, "wall_s": round(wall, 1),
                "errors": [f"session {s.n}: {e}" for s in sessions for e in s.errors],
                "answers": len(lat),
                "p50_ms": round(statistics.median(lat)) if lat else None,
                "p95_ms": round(pct(lat, 0.95)) if lat else None,
                "leaks": leaks(sessions) + keys_on_disk(root, sessions),
                "lost": lost_writes(root, sessions),
                "peak_rss_mb": round(peak_rss_mb(proc.pid)),
            }  # fmt: skip
            print(json.dumps(rounds[n]), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    log = (root / "streamlit.log").read_text()
    key_in_log = [n for n, r in rounds.items() if "gsk_loadtest_secret" in log]
    one, many = rounds[1], rounds[args.sessions]
    ratio = round(many["p50_ms"] / one["p50_ms"], 2) if one["p50_ms"] and many["p50_ms"] else None
    result = {"machine": machine(), "rounds": list(rounds.values()), "key_in_app_log": bool(key_in_log),
              "p50_ratio": ratio}  # fmt: skip
    print(f"{machine()}")
    print("| sessions | errors | answers | p50 ms | p95 ms | peak RSS MB | leaks | lost writes | wall s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rounds.values():
        print(f"| {r['sessions']} | {len(r['errors'])} | {r['answers']} | {r['p50_ms']} | {r['p95_ms']} | "
              f"{r['peak_rss_mb']} | {len(r['leaks'])} | {len(r['lost'])} | {r['wall_s']} |")  # fmt: skip
    print(f"p50 ratio {args.sessions} sessions / 1: {ratio}; key in the app log: {bool(key_in_log)}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
