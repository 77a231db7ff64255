"""The app as a daily tool (issue #11), library side: saved workspaces, progress lines with rate and ETA,
citations renumbered and linked, document text rendered safely, hyphens re-joined only when plausible."""

from __future__ import annotations

import io
import json
import threading

import pytest

from ragkit.app.presentation import answer_html, display_name, highlighted_page_html, safe_markdown
from ragkit.app.workspace import Workspace, chat_markdown, last_collection, remember_collection
from ragkit.core.progress import CliProgress, StageClock, format_duration
from ragkit.core.types import Chunk, Hit, Span
from ragkit.ingestion.hyphenation import _Hyphenation
from ragkit.ingestion.tables import table_to_markdown
from ragkit.pipeline.answer import Answer
from ragkit.pipeline.citations import renumber
from ragkit.pipeline.config import PipelineConfig
from tests.conftest import make_doc

# ------------------------------------------------------------------ workspace


def _answer(text: str = "Sholes patented it in 1868 [1].") -> Answer:
    chunk = Chunk("d-k-00001", "d", "a.pdf", 1, "Sholes patented the typewriter in 1868.", (Span(2, 10, 49),))
    hit = Hit(chunk, 1, 0.03, "rrf", {"rrf": 0.03, "bm25": 4.2}, {"rrf": 1, "bm25": 2}, cosine=0.61)
    from ragkit.pipeline.answer import Citation
    from ragkit.pipeline.confidence import retrieval_confidence

    return Answer(
        "Who?", "Who?", text, False, None, [Citation(1, chunk.chunk_id, "a.pdf", 2)], [], False, [hit],
        retrieval_confidence([hit]), "extractive", "m", "rag", "abc", timings_ms={"total": 12.5},
    )  # fmt: skip


def test_answers_round_trip_through_json_with_their_provenance():
    a = _answer()
    again = Answer.from_dict(json.loads(json.dumps(a.to_dict())))
    assert again.to_dict() == a.to_dict()
    h = again.hits[0]
    assert h.chunk.spans == (Span(2, 10, 49),) and h.ranks == {"rrf": 1, "bm25": 2} and h.cosine == 0.61
    assert again.confidence.value == pytest.approx(a.confidence.value)


def test_workspace_keeps_configs_chats_and_comparisons(tmp_path):
    ws = Workspace(tmp_path)
    cfgs = {
        "A": PipelineConfig(name="A", retriever="dense", top_k=4),
        "B": PipelineConfig(name="B", chunker="sentence"),
    }
    ws.save_configs(cfgs)
    chat = ws.current_chat()
    ws.append_turn(chat["id"], {"question": "Who?", "answer": _answer().to_dict()})
    ws.set_value("batch", {"rows": [{"question": "Who?", "better": "A"}]})
    again = Workspace(tmp_path)  # what a reload reads
    assert again.configs() == cfgs
    cur = again.current_chat()
    assert cur["id"] == chat["id"] and cur["title"] == "Who?" and len(cur["turns"]) == 1
    assert again.get("batch")["rows"][0]["better"] == "A"
    fresh = again.start_chat()
    assert again.current_chat()["id"] == fresh["id"] and len(again.chats()) == 2
    assert "## Who?" in chat_markdown(cur) and "[1] a.pdf, page 2" in chat_markdown(cur)
    assert "groq" not in (tmp_path / "workspace.json").read_text().lower()


def test_two_writers_of_one_workspace_lose_no_turn(tmp_path):
    ws = Workspace(tmp_path)
    chat = ws.current_chat()

    def write(tag: str) -> None:
        for i in range(20):
            Workspace(tmp_path).append_turn(chat["id"], {"question": f"{tag}{i}", "answer": None})

    threads = [threading.Thread(target=write, args=(t,)) for t in "xy"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    questions = {t["question"] for t in Workspace(tmp_path).current_chat()["turns"]}
    assert questions == {f"{t}{i}" for t in "xy" for i in range(20)}


def test_an_unreadable_workspace_is_set_aside_not_a_crash(tmp_path):
    (tmp_path / "workspace.json").write_text("{half a file")
    data = Workspace(tmp_path).load()
    assert "unreadable" in data["notice"] and list(tmp_path.glob("workspace.json.unreadable-*"))
    assert Workspace(tmp_path).configs() == {}


def test_the_last_collection_is_remembered(tmp_path):
    assert last_collection(tmp_path) is None
    remember_collection(tmp_path, "papers")
    assert last_collection(tmp_path) == "papers"


# ------------------------------------------------------------------ progress


def test_progress_lines_carry_rate_and_eta():
    clock = StageClock()
    assert clock.line("embed", 0, 400, now=100.0) == "embed: 0/400 chunks"
    assert clock.line("embed", 100, 400, now=104.0) == "embed: 100/400 chunks · 25.0/s · ETA 12 s"
    assert clock.line("page a.pdf", 3, 15, now=104.0) == "page a.pdf: 3/15 pages"
    assert format_duration(552) == "9 min 12 s" and format_duration(7380) == "2 h 3 min"


def test_cli_progress_prints_lines_when_stderr_is_not_a_terminal():
    out = io.StringIO()  # what a redirected stderr is
    p = CliProgress(stream=out, interval=0.0)
    for done in (0, 50, 100):
        p("query", done, 100)
    lines = out.getvalue().splitlines()
    assert lines[0] == "query: 0/100" and lines[-1].startswith("query: 100/100")
    quiet = io.StringIO()
    slow = CliProgress(stream=quiet, interval=3600)
    for done in range(1, 100):
        slow("embed", done, 100)
    slow("embed", 100, 100)
    assert len(quiet.getvalue().splitlines()) == 2  # the first event, then the end of the stage


# ------------------------------------------------------------------ citations and rendering


def test_citations_are_renumbered_in_the_order_cited():
    text, mapping = renumber("Typewriter [3]. QWERTY [5]. Both [3, 5]. Nothing [9].", 5)
    assert text == "Typewriter [1]. QWERTY [2]. Both [1, 2]. Nothing [9]." and mapping == {3: 1, 5: 2}
    html, _ = answer_html("See [3].", 5, "turn 1")
    assert '<a class="rk-ref" href="#cite-turn-1-1">[1]</a>' in html


def test_document_text_loads_nothing_remote():
    md = safe_markdown(
        "![p](https://t.example/pixel.png) [ok](https://x.org) [bad](javascript:alert) <img src=x>"
    )
    assert "pixel.png" not in md.split("[image: p]")[0] and "[image: p]" in md
    assert "[ok](https://x.org)" in md and "javascript" not in md
    assert "<img" not in md and "&lt;img src=x&gt;" in md
    assert "![" not in safe_markdown("![ref][r]").replace("!\\[", "")  # reference images shown literally
    assert display_name("**x**\n.md") == "\\*\\*x\\*\\*␊\\.md"


def test_a_split_table_chunk_highlights_its_header_and_its_rows():
    from ragkit.ingestion.chunkers import SlidingChunker

    text = "Intro.\n\n| k | v |\n|---|---|\n" + "\n".join(f"| r{i} | {i} |" for i in range(200))
    doc = make_doc(text)
    chunk = SlidingChunker(size=100, overlap=0).split(doc)[10]
    html = highlighted_page_html({doc.doc_id: doc}, chunk)
    assert html.count("<mark>") == 2 and "<mark>| k | v |<br>|---|---|</mark>" in html
    assert "…<br>…" in html  # the rows between header and chunk are elided, not shown whole


# ------------------------------------------------------------------ parsing


def test_line_end_hyphens_are_rejoined_only_where_the_word_is_plausible():
    h = _Hyphenation(["The text was classified. Papers were cleaned."])
    assert h.join_lines("aggressively-\ncleaned text") == "aggressively-cleaned text"  # two words: a compound
    assert h.join_lines("classi-\nfied by hand") == "classified by hand"  # seen in the document
    assert h.join_lines("classi-\nfication of papers") == "classification of papers"  # a known word
    assert h.join_lines("GROBID-\nparsed output") == "GROBID-parsed output"  # after an acronym
    seen = _Hyphenation(["a well-known fact"])
    assert seen.join_lines("well-\nknown") == "well-known"  # the hyphenated form occurs elsewhere


def test_a_table_title_row_becomes_a_caption_above_the_header():
    md = table_to_markdown(
        [["NICS Checks 2015", None, None], ["State", "Permit", "Total"], ["Texas", "1", "2"]]
    )
    assert md.splitlines()[0] == "NICS Checks 2015" and md.splitlines()[2] == "| State | Permit | Total |"
