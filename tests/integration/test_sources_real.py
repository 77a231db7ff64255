"""Sources with the real embedder (issue #13): the CLI ingests a page, a URL, a DOCX and a Q&A export in one
command and answers with a URL citation; web search over a loopback SearXNG cites the page that holds the
answer; a code question finds the code chunk, and a matched question cites its answer."""

from __future__ import annotations

import json

import pytest

from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline
from tests.conftest import run_ragkit
from tests.web_servers import FIXTURES, FakeSearxng, PageServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pages():
    with PageServer() as srv:
        yield srv


def test_cli_ingests_files_urls_docx_and_qa_then_cites_the_url(pages, tmp_path):
    import docx

    d = docx.Document()
    d.add_heading("Kiln log", level=1)
    d.add_paragraph("The second firing of the stoneware kiln reached cone 10 after eleven hours.")
    d.save(tmp_path / "notes.docx")
    index = tmp_path / "idx"
    url = f"{pages.url}/news"
    closed = run_ragkit("ingest", "--index", str(tmp_path / "closed"), "--json", url, RAGKIT_FETCH_ALLOW="")
    refused = json.loads(closed.stdout)["files"]
    assert refused[0]["file"] == url
    assert "loopback address: refused by the fetch policy" in refused[0]["error"]
    port = url.split(":")[2].split("/")[0]
    proc = run_ragkit(
        "ingest", "--index", str(index), "--json", str(FIXTURES / "article.html"), url,
        str(tmp_path / "notes.docx"), str(FIXTURES / "qa.csv"), "--allow-host", f"127.0.0.1:{port}",
        RAGKIT_FETCH_ALLOW="",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    files = {f["file"]: f for f in json.loads(proc.stdout)["files"]}
    assert set(files) == {"article.html", url, "notes.docx", "qa.csv"}
    assert all(f["action"] == "added" and f["chunks"] > 0 for f in files.values())
    ask = run_ragkit(
        "ask",
        "--index",
        str(index),
        "--llm",
        "extractive",
        "--json",
        "When did the Orion telescope see first light?",
    )
    assert ask.returncode == 0, ask.stderr
    out = json.loads(ask.stdout)
    assert "3 March 2024" in out["answer"]
    assert out["citations"] and out["citations"][0]["source"] == url  # the document is named by its URL
    assert any(h["source"] == url for h in out["hits"])


def test_web_search_answers_from_the_page_that_holds_the_answer_and_cites_its_url(pages, embedder, tmp_path):
    index = {
        "telescope": [
            {"url": f"{pages.url}/article", "title": "Reading files", "content": "pathlib"},
            {"url": f"{pages.url}/news", "title": "Orion telescope sees first light", "content": "Atacama"},
            {"url": f"{pages.url}/missing", "title": "Gone"},
        ]
    }
    store, _ = open_or_create(tmp_path / "empty", embedder, None)  # web mode needs no collection content
    with FakeSearxng(index) as sx:
        cfg = PipelineConfig(web_search=True, searxng_url=sx.url, retriever="hybrid", web_results=3)
        ans = RagPipeline(cfg, store, embedder).ask("How large is the mirror of the Orion telescope?")
    assert "4.1-metre primary mirror" in ans.text, ans.text
    cited = {c.source for c in ans.citations}
    assert cited == {f"{pages.url}/news"}
    web = ans.trace["web"][0]
    assert [r["url"] for r in web["results"]][:2] == [f"{pages.url}/article", f"{pages.url}/news"]
    assert web["errors"] and "HTTP 404" in web["errors"][0]["error"]
    assert {"web_search", "fetch", "index_web"} <= set(ans.timings_ms)
    assert ans.hits[0].chunk.metadata["url"] == f"{pages.url}/news"


def test_a_code_question_finds_the_code_and_a_matched_question_cites_its_answer(embedder, tmp_path):
    store, chunker = open_or_create(tmp_path / "qa", embedder, None)
    ingest_paths(store, [FIXTURES / "qa.csv"], chunker, embedder)
    proc = run_ragkit(
        "search", "--index", str(store.path), "--retriever", "dense", "--top-k", "1", "--where", "kind=code",
        "--json", "python code to reverse a list without changing it",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    hit = json.loads(proc.stdout)["hits"][0]
    assert "xs[::-1]" in hit["text"] and hit["text"].startswith("```")
    cfg = PipelineConfig(retriever="dense", top_k=3)
    ans = RagPipeline(cfg, store, embedder).ask("How do I read a whole text file into a string in Python?")
    swaps = ans.trace["question_to_answer"]
    assert swaps and all(h.chunk.metadata["kind"] != "question" for h in ans.hits)
    first = ans.hits[0].chunk
    assert first.metadata["kind"] == "answer" and "read_text" in first.text
    assert "read_text" in ans.text and ans.citations
