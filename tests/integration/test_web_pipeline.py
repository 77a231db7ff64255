"""The web pipeline as published (issue 28), over loopback pages and a loopback SearXNG with the real
embedder: the content filter as a knob (a web answer's trace, a collection's HTML, Compare and eval run
with and without it) and follow-ups that search the pages fetched for earlier turns."""

from __future__ import annotations

import pytest

from ragkit.app.compare import compare_question
from ragkit.core.types import Message
from ragkit.evaluation.datasets.questionsets import load_question_set
from ragkit.evaluation.runs.evaluate import run_configs
from ragkit.index.collections import Collection
from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import make_chunker
from ragkit.ingestion.parsing import ParseSettings
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline
from tests.web_servers import FakeSearxng, PageServer

pytestmark = pytest.mark.slow

SHOP = b"""<html><head><title>Kiln guide</title></head><body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a> | <a href="/contact">Contact</a></nav>
<p>SEARCH</p><p>BOOK NOW</p><p>GET A FREE QUOTE</p>
<p>A stoneware glaze matures when the kiln holds cone 10 for twenty minutes at the end of the firing.</p>
<pre><code>kiln.set_target(cone=10)
kiln.hold(minutes=20)</code></pre>
<p>We use cookies to improve your experience and to show you relevant advertising on this website.</p>
<footer><p>Copyright 2024 Kiln Shop. All rights reserved.</p></footer>
</body></html>"""

TELESCOPE = b"""<html><head><title>Orion</title></head><body>
<p>The Orion survey telescope has a primary mirror of 4.1 metres and saw first light in March 2024.</p>
<p>Its camera reads out a full frame of 3.2 gigapixels every fifteen seconds during the night.</p>
</body></html>"""

WEATHER = b"""<html><head><title>Weather</title></head><body>
<p>The observatory site had clear skies on most nights of the spring season this year, said the staff.</p>
</body></html>"""


@pytest.fixture(scope="module")
def site():
    with PageServer() as srv:
        srv.pages.update(
            {
                "/kiln": (200, "text/html; charset=utf-8", SHOP),
                "/orion": (200, "text/html; charset=utf-8", TELESCOPE),
                "/weather": (200, "text/html; charset=utf-8", WEATHER),
            }
        )
        index = {
            "kiln": [{"url": f"{srv.url}/kiln", "title": "Kiln guide"}],
            "telescope": [{"url": f"{srv.url}/orion", "title": "Orion"}],
            "camera": [{"url": f"{srv.url}/weather", "title": "Weather"}],
        }
        with FakeSearxng(index) as sx:
            yield srv, sx


def web_config(sx, **kw) -> PipelineConfig:
    return PipelineConfig(web_search=True, searxng_url=sx.url, retriever="bm25", web_results=3, **kw)


def test_a_web_answer_with_the_filter_drops_ui_text_and_says_how_much(site, embedder, tmp_path):
    _srv, sx = site
    store, _ = open_or_create(tmp_path / "empty", embedder, None)
    question = "How long should the kiln hold cone 10?"
    off = RagPipeline(web_config(sx), store, embedder).ask(question)
    on = RagPipeline(web_config(sx, content_filter="heuristic"), store, embedder).ask(question)
    for ans in (off, on):
        assert "twenty minutes" in ans.text, ans.text
    assert "content_filter" not in off.trace["web"][0]
    report = on.trace["web"][0]["content_filter"]
    assert report["removed_chars"] > 0 and "BOOK NOW" in report["examples"]
    assert "cookies" not in " ".join(h.chunk.text for h in on.ranking)
    assert any("kiln.hold(minutes=20)" in h.chunk.text for h in on.ranking)  # code kept
    assert any("BOOK NOW" in h.chunk.text for h in off.ranking)


def test_a_collection_compared_and_evaluated_with_and_without_the_filter(site, embedder, tmp_path):
    _srv, _ = site
    c = Collection.create("shop", tmp_path)
    c.add_files([("kiln.html", SHOP), ("orion.html", TELESCOPE)])
    off, on = (
        PipelineConfig(name="off", retriever="bm25"),
        PipelineConfig(name="on", retriever="bm25", content_filter="heuristic"),
    )
    chunker = make_chunker(off.chunker, **off.chunker_params)
    assert c.index_path(chunker, embedder, ParseSettings.of(on)) != c.index_path(chunker, embedder)
    store_off, _ = c.index(chunker, embedder, None, ParseSettings.of(off))
    store_on, _ = c.index(chunker, embedder, None, ParseSettings.of(on))
    text_off = " ".join(ch.text for ch in store_off.chunks)
    text_on = " ".join(ch.text for ch in store_on.chunks)
    assert "BOOK NOW" in text_off and "BOOK NOW" not in text_on and "twenty minutes" in text_on
    # what the Documents page reports per page: how much the filter removed, with examples
    kiln = store_on.documents[store_on.find_source("kiln.html")]
    assert (
        kiln.meta["content_filter"].startswith("removed ")
        and "BOOK NOW" in kiln.meta["content_filter_examples"]
    )
    assert "content_filter" not in store_off.documents[store_off.find_source("kiln.html")].meta
    cmp = compare_question(
        RagPipeline(off, store_off, embedder),
        RagPipeline(on, store_on, embedder),
        "How long should the kiln hold cone 10?",
    )
    assert "twenty minutes" in cmp.a.text and "twenty minutes" in cmp.b.text
    qfile = tmp_path / "q.csv"
    qfile.write_text(
        "question,gold_answer,relevant_sources\n"
        '"How long should the kiln hold cone 10?",twenty minutes,kiln.html\n'
        '"How large is the Orion mirror?",4.1 metres,orion.html\n'
    )
    qset = load_question_set(qfile, collection=c)
    run = run_configs(qset, [off, on], index_root=str(tmp_path / "eval"))
    assert [r.name for r in run.configs] == ["off", "on"] and run.questions == 2
    assert all("contains_gold" in r.metrics and "ndcg@10" in r.metrics for r in run.configs)
    assert any(cm["metric"] == "ndcg@10" for cm in run.to_dict()["comparisons"])


def test_a_follow_up_searches_the_pages_fetched_for_earlier_turns(site, embedder, tmp_path):
    srv, sx = site
    store, _ = open_or_create(tmp_path / "empty", embedder, None)
    pipe = RagPipeline(web_config(sx, rewrite_follow_ups=False), store, embedder)
    first = pipe.ask("How large is the mirror of the Orion telescope?")
    assert "4.1 metres" in first.text
    pages = tuple(u for w in first.trace["web"] for u in w["fetched"])
    assert pages == (f"{srv.url}/orion",)
    history = [
        Message("user", "How large is the mirror of the Orion telescope?"),
        Message("assistant", first.text, pages),
    ]
    before = len(srv.requests)
    follow = pipe.ask("How many gigapixels does its camera read out?", history)
    assert "3.2 gigapixels" in follow.text, follow.text
    web = follow.trace["web"][0]
    assert web["from_earlier_turns"] == [f"{srv.url}/orion"]
    assert f"{srv.url}/weather" in web["fetched"]  # the new search's page is searched too
    assert "/orion" not in srv.requests[before:]  # the earlier page came from the page cache
    fresh = pipe.ask("How many gigapixels does its camera read out?")  # a new chat starts empty
    assert "3.2 gigapixels" not in fresh.text and fresh.trace["web"][0]["from_earlier_turns"] == []
