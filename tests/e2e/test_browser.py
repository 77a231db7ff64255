"""End to end in real headless Chromium: `streamlit run` on a free port, upload a real PDF, ask, compare.

Uses Debian's /usr/bin/chromium through Playwright's Python package (no browser download). Screenshots go
to the test's temp dir, or to $RAGKIT_SCREENSHOT_DIR when set (that is how the README's were taken).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
QUESTION = "Who patented the typewriter, and when?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e-indexes")
    port = free_port()
    env = {**os.environ, "RAGKIT_INDEX_ROOT": str(root), "PYTHONPATH": str(ROOT)}
    options = {"server.port": port, "server.address": "127.0.0.1", "server.headless": "true",
               "browser.gatherUsageStats": "false", "server.fileWatcherType": "none"}  # fmt: skip
    cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "streamlit_app.py")]
    cmd += [arg for k, v in options.items() for arg in (f"--{k}", str(v))]
    log_path = root.parent / "streamlit.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            proc.kill()
            pytest.fail(f"streamlit did not start: {log_path.read_text()[-2000:]}")
        yield url
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    with sync_playwright() as pw:
        # Playwright gives the browser a fresh temporary profile of its own
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        pg.set_default_timeout(180_000)
        pg.goto(server)
        yield pg
        browser.close()


def shot(page, tmp_path: Path, name: str) -> Path:
    out_dir = Path(os.environ.get("RAGKIT_SCREENSHOT_DIR") or tmp_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    page.screenshot(path=str(path), full_page=True)
    return path


def test_upload_ask_and_compare(page, tmp_path, evaldata):
    from playwright.sync_api import expect

    expect.set_options(timeout=180_000)  # the first question loads the embedding model
    try:
        _journey(page, tmp_path, evaldata, expect)
    except Exception:
        shot(page, tmp_path, "failure.png")
        raise


def _journey(page, tmp_path, evaldata, expect):
    # create a collection from the sidebar
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_label("New collection").fill("papers")
    sidebar.get_by_role("button", name="Create").click()
    main = page.locator('[data-testid="stMain"]')
    expect(main.get_by_text("is empty: upload files above")).to_be_visible()

    # upload a real PDF on the Documents page
    pdf = tmp_path / "docling_multi_page.pdf"
    shutil.copy(evaldata / "pdfs" / "docling_multi_page.pdf", pdf)
    main.locator('input[type="file"]').set_input_files(str(pdf))
    main.get_by_role("button", name="Upload and index").click()
    expect(main.get_by_text("Indexed:").first).to_be_visible()
    listed = main.locator('[data-testid="stMarkdown"]').filter(has_text="docling_multi_page.pdf").first
    expect(listed).to_contain_text("5 pages")

    # ask a question
    sidebar.get_by_role("link", name="Ask").click()
    box = page.get_by_placeholder("Ask a question about the documents")
    expect(box).to_be_enabled()
    box.fill(QUESTION)
    box.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').filter(has_text="1868").first
    expect(answer).to_be_visible()
    expect(answer).to_contain_text("Sholes")
    citation = page.get_by_text("[1] docling_multi_page.pdf · page", exact=False).first
    expect(citation).to_be_visible()
    citation.click()  # opens the cited passage, highlighted
    expect(page.locator("mark").first).to_be_visible()
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    expect(page.get_by_text("Retrieval confidence").first).to_be_visible()  # the gauge's title
    assert shot(page, tmp_path, "ask.png").stat().st_size > 10_000

    # compare A (hybrid) and B (bm25) on the same question
    sidebar.get_by_role("link", name="Compare").click()
    page.get_by_label("Question", exact=True).and_(page.locator("input")).fill(QUESTION)
    page.get_by_role("button", name="Compare A and B").click()
    expect(page.get_by_text("Rank-biased overlap").first).to_be_visible()
    expect(page.get_by_role("heading", name="Config B")).to_be_visible()
    expect(page.get_by_text("A: confidence").first).to_be_visible()
    assert shot(page, tmp_path, "compare.png").stat().st_size > 10_000

    # evaluate A and B on a tiny uploaded question set
    sidebar.get_by_role("link", name="Evaluate").click()
    qfile = tmp_path / "questions.csv"
    qfile.write_text(
        "question,gold_answer,relevant_sources\n"
        f'"{QUESTION}",Sholes,docling_multi_page.pdf\n'
        '"What was the IBM MT/ST?",magnetic tape,docling_multi_page.pdf\n'
        '"What is the boiling point of liquid nitrogen on Mars?",,\n'
    )
    main.locator('input[type="file"]').set_input_files(str(qfile))
    expect(main.get_by_text("questions.csv").first).to_be_visible()  # uploaded before we run
    main.get_by_role("button", name="Run evaluation").click()
    expect(main.get_by_text("Paired comparisons").first).to_be_visible()
    expect(main.get_by_text("too small to tell").first).to_be_visible()
    expect(main.get_by_text("on ndcg@10:").first).to_be_visible()
    expect(main.get_by_text("Reliability of the retrieval confidence").first).to_be_visible()
    expect(main.get_by_role("button", name="Export Markdown")).to_be_visible()
    assert main.locator(".js-plotly-plot").count() >= 4
    main.get_by_text("Metrics per configuration").first.scroll_into_view_if_needed()
    page.mouse.move(700, 500)
    page.mouse.wheel(0, 250)  # the tables, verdicts and first charts in one screen
    page.wait_for_timeout(500)
    assert shot(page, tmp_path, "evaluate.png").stat().st_size > 10_000
    main.get_by_text("Per question").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert shot(page, tmp_path, "evaluate-charts.png").stat().st_size > 10_000
