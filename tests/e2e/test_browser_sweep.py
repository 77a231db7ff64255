"""A sweep built in the Sweep tab's form only, end to end in real headless Chromium (issue 45): a tiny
collection of eight island notes and 32 questions about them; two chunk sizes, two retrievers and a list
of BM25 : dense ratios picked and typed (no JSON); the cost shown before it runs; the race re-scored on
held-out questions; the best set-up loaded into A and asked on the Ask page. The server and the browser
are ``test_browser``'s (tests/e2e/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_browser import no_traceback, settle, shot, upload

pytestmark = pytest.mark.slow


ISLANDS = {  # a tiny collection: one short file per island, four facts each
    "Arvel": ("salt", "1741", "green", "gulls"), "Brisk": ("copper", "1803", "amber", "seals"),
    "Corran": ("wool", "1688", "violet", "puffins"), "Dunmore": ("peat", "1920", "silver", "otters"),
    "Eskel": ("kelp", "1775", "scarlet", "terns"), "Fallow": ("slate", "1856", "indigo", "hares"),
    "Gorse": ("honey", "1712", "ochre", "cranes"), "Hollin": ("cider", "1899", "teal", "voles"),
}  # fmt: skip


def _island_files(tmp_path: Path) -> tuple[list[str], Path]:
    """Eight island notes and 32 questions about them (enough to hold 30 % out of the race)."""
    files = []
    rows = ["question,gold_answer,relevant_sources"]
    for name, (export, year, colour, animal) in ISLANDS.items():
        f = tmp_path / f"{name.lower()}.txt"
        f.write_text(
            f"{name} island\n\nThe harbour of {name} ships {export} to the mainland every spring. "
            f"The first chapel on {name} was built in {year}, long before the ferry came. "
            f"Fishing boats from {name} fly a {colour} pennant when they return. "
            f"The cliffs of {name} are home to colonies of {animal}, counted each summer by the wardens.\n"
        )
        files.append(str(f))
        rows += [
            f"What does the harbour of {name} ship?,{export},{f.name}",
            f"When was the first chapel on {name} built?,{year},{f.name}",
            f"What colour is the pennant of boats from {name}?,{colour},{f.name}",
            f"Which animals live on the cliffs of {name}?,{animal},{f.name}",
        ]
    questions = tmp_path / "islands.csv"
    questions.write_text("\n".join(rows) + "\n")
    return files, questions


def pick(page, where, box: str, option: str) -> None:
    """Add ``option`` to the multiselect ``box``."""
    settle(page)
    where.get_by_role("combobox", name=box).click()
    page.get_by_role("option", name=option, exact=True).first.click()
    page.keyboard.press("Escape")
    settle(page)


def type_in(page, where, label: str, text: str) -> None:
    box = where.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")
    settle(page)


def test_a_sweep_built_in_the_form_shows_its_cost_runs_and_loads_the_best_into_a(server, browser, tmp_path):
    """Two chunk sizes, two retrievers and a list of hybrid weights, set in the Sweep tab's form only (no
    JSON typed); the cost shows before it runs; the race's winners are re-scored on held-out questions;
    the best set-up goes into A and answers on the Ask page."""
    from playwright.sync_api import expect

    expect.set_options(timeout=180_000)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(180_000)
    try:
        _form_sweep(page, server, tmp_path, expect)
    except Exception:
        shot(page, tmp_path, "failure-sweep.png")
        raise
    finally:
        context.close()


def _form_sweep(page, server, tmp_path, expect) -> None:
    page.goto(server)
    sidebar, main = page.locator('[data-testid="stSidebar"]'), page.get_by_role("main")
    sidebar.get_by_label("New collection").fill("islands")
    sidebar.get_by_role("button", name="Create").click()
    expect(main.get_by_text("Collection islands is empty")).to_be_visible()
    files, questions = _island_files(tmp_path)
    upload(page, main, files)
    main.get_by_role("button", name="Upload and index").click()
    expect(main.get_by_text("Ingestion report")).to_be_visible()
    sidebar.get_by_role("link", name="Evaluate").click()
    main.get_by_role("tab", name="Sweep").click()
    panel = page.get_by_role("tabpanel").filter(has_text="Start sweep")
    panel.get_by_text("Upload a CSV/JSONL (over the active collection)").click()
    settle(page)
    uploader = panel.locator('[data-testid="stFileUploader"]').filter(has_text="Columns: question")
    upload(page, uploader, questions)
    # the grid, in the form only: two chunk sizes, two retrievers, two bm25 : dense ratios
    pick(page, panel, "Retriever (retriever)", "bm25")
    pick(page, panel, "Retriever (retriever)", "hybrid")
    type_in(page, panel, "size (default 500)", "300, 800")
    type_in(page, panel, "Hybrid weights, bm25 : dense (hybrid_weights)", "1:1, 1:2")
    # bm25 reads no hybrid weights: 2 sizes × (bm25 + hybrid × 2 weights) = 6 set-ups of 8 combinations
    expect(panel.get_by_text("6 set-ups").first).to_be_visible()
    cost = panel.locator('[data-testid="stMarkdown"]').filter(has_text="Before it runs")
    expect(cost).to_contain_text("6 set-ups from 8 combinations, 2 merged")
    expect(cost).to_contain_text("32 questions (22 raced, 10 held out")
    expect(cost).to_contain_text("At most 192 question evaluations (6 × 32)")
    expect(cost).to_contain_text("known only after the race")
    expect(cost).to_contain_text("Time on this machine")
    panel.get_by_text("Grid as JSON").first.click()
    grid_json = panel.locator('[data-testid="stCode"]').first.inner_text()
    assert '"size": 300' in grid_json and '"dense": 2' in grid_json  # the form's grid, as the CLI reads it
    shot(page, tmp_path, "sweep-form.png")
    panel.get_by_role("button", name="Start sweep").click()
    expect(panel.get_by_text("Not significantly worse than the best:").first).to_be_visible()
    settle(page)
    no_traceback(page)
    held_out = panel.get_by_text("held-out questions the race never saw").first
    expect(held_out).to_be_visible()
    held_out.scroll_into_view_if_needed()
    shot(page, tmp_path, "sweep.png")
    panel.get_by_role("button", name="Load into A").click()
    expect(panel.get_by_text("A is now").first).to_be_visible()
    said = panel.get_by_text("A is now").first.inner_text()
    parts = said.removeprefix("A is now ").split(" · ")
    retriever = next(p for p in parts if p in ("bm25", "hybrid"))
    size = next(s for s in ("300", "800") if f"chunks size={s}" in parts)
    sidebar.get_by_role("link", name="Ask").click()
    settle(page)
    expect(main).to_contain_text(f"Config A: sliding(size={size}) · {retriever} · extractive")
    box = page.get_by_placeholder("Ask a question about the documents")
    box.fill("What does the harbour of Corran ship?")
    box.press("Enter")
    expect(page.locator('[data-testid="stChatMessage"]').filter(has_text="wool").first).to_be_visible()
    no_traceback(page)
