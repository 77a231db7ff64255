"""Every page through Streamlit's AppTest: widgets present, a question answered, compare, error states."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.app.presentation import display_name
from ragkit.app.workspace import Workspace
from ragkit.index.collections import Collection
from ragkit.index.reports import IngestReport
from tests.app.conftest import QUESTION, ROOT, make_app, texts

pytestmark = pytest.mark.slow


def test_documents_page_and_sidebar(app):
    app.run()
    assert not app.exception, app.exception
    labels = {w.label for w in app.sidebar.selectbox}
    assert {"Collection", "Chunker", "Retriever", "LLM backend"} <= labels
    assert app.sidebar.selectbox(key="collection").value == "papers"
    assert "Abstain below confidence" in {s.label for s in app.sidebar.slider}
    assert "Top-k chunks" in {n.label for n in app.sidebar.number_input}
    assert any(t.label.startswith("Cross-encoder rerank") for t in app.sidebar.toggle)
    md = texts(app.markdown)
    assert display_name("docling_multi_page.pdf") in md and "5 pages" in md
    assert app.get("plotly_chart"), "chunk length histogram"
    assert len(app.dataframe) >= 1  # chunk browser
    # switching the chunker re-chunks from the parsed text (a new index), under a progress panel
    app.sidebar.selectbox(key="cfgA_chunker").set_value("sentence").run()
    assert not app.exception
    assert app.session_state["configs"]["A"].chunker == "sentence"
    assert "Index for config A" in texts(app.caption) and "sentence" in texts(app.caption)
    assert any("Indexing for config A" in (getattr(s, "label", "") or "") for s in app.get("status"))
    # BM25 alone reads no vectors: its index is text only, built without embedding anything
    app.sidebar.selectbox(key="cfgA_retriever").set_value("bm25").run()
    assert not app.exception, app.exception
    assert "text only: BM25 alone reads no vectors, so nothing was embedded" in texts(app.caption)


def test_ask_page_answers_with_citations_and_gauge(app):
    app.run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    assert not app.exception
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    answer = texts(app.chat_message[1].markdown)
    assert "Sholes" in answer and "1868" in answer
    # citations are links to their passage, numbered from 1 in the order cited
    assert 'href="#cite-' in answer and ">[1]</a>" in answer
    assert "[1] docling_multi_page.pdf · page" in answer and "<mark>" in answer
    assert len(app.get("plotly_chart")) >= 2  # gauge + latency
    # every citation is checked against its sentence (offline)
    notes = texts(app.chat_message[1].caption) + texts(app.chat_message[1].warning)
    assert "Citation check (offline: sentence embedding, word overlap and key terms)" in notes


def test_a_refusal_shows_what_the_reader_would_have_said(app):
    """An answer held back by the answer-confidence threshold is not lost: the refusal says why, and
    the withheld answer is shown apart, marked as not an answer."""
    app.run()
    next(s for s in app.sidebar.slider if s.label == "Abstain below answer confidence").set_value(1.0).run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    turn = app.chat_message[1]
    assert "Abstained: the passages do not hold the answer" in texts(turn.warning)
    assert "Sholes" not in texts(turn.markdown)  # the answer given is "I don't know"
    held = next(e for e in turn.expander if e.label == "What the reader would have said (withheld)")
    assert "Sholes" in " ".join(t.value for t in held.text)


def test_ask_before_any_upload_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGKIT_INDEX_ROOT", str(tmp_path / "empty"))
    monkeypatch.chdir(ROOT)
    at = make_app().run()
    assert "Create a collection" in texts(at.info)
    at.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    assert not at.exception and "No collection yet" in texts(at.info)
    at.switch_page(str(ROOT / "app_pages" / "compare.py")).run()
    assert not at.exception and "Upload documents" in texts(at.info)


def test_empty_collection(app, tmp_path, monkeypatch):
    root = tmp_path / "r2"
    Collection.create("empty", root)
    monkeypatch.setenv("RAGKIT_INDEX_ROOT", str(root))
    app.run()
    assert "is empty" in texts(app.info)
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    assert "is empty" in texts(app.info) and app.chat_input[0].disabled


def test_failed_upload_is_reported_and_page_keeps_working(app, evaldata):
    report = Collection("papers").add_files([("broken.pdf", b"%PDF-1.4 garbage"), ("empty.txt", b"")])
    assert isinstance(report, IngestReport)
    app.session_state["ingest_report"] = report
    app.run()
    errors = texts(app.error)
    assert "broken.pdf: not a readable PDF" in errors and "empty.txt: the file is empty" in errors
    assert display_name("docling_multi_page.pdf") in texts(app.markdown)  # the rest still renders


@pytest.mark.parametrize(
    "setup, message",
    [
        ({"cfgA_llm": "groq"}, "no Groq API key"),
        ({"cfgA_llm": "ollama", "cfgA_ollama_host": "http://127.0.0.1:9"}, "Ollama server not reachable at"),
        (
            {"cfgA_rerank": True, "cfgA_rerank_model": "/nonexistent/cross-encoder"},
            "cannot load cross-encoder",
        ),
    ],
)
def test_ask_errors_are_messages_not_tracebacks(app, monkeypatch, setup, message):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    app.run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    for key, value in setup.items():
        widget = app.sidebar.toggle(key=key) if isinstance(value, bool) else None
        if widget is None:
            widget = app.sidebar.selectbox(key=key) if key == "cfgA_llm" else app.sidebar.text_input(key=key)
        widget.set_value(value)
        app.run()
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    assert message in texts(app.error)
    # the page keeps working: a second question with the extractive backend is answered
    app.sidebar.selectbox(key="cfgA_llm").set_value("extractive")
    if "cfgA_rerank" in setup:
        app.sidebar.toggle(key="cfgA_rerank").set_value(False)
    app.run()
    app.chat_input[0].set_value(QUESTION).run()
    assert "Sholes" in texts(app.chat_message[-1].markdown)


def test_wrong_groq_key_is_reported(app, monkeypatch):
    from tests.fake_servers import FakeGroq

    with FakeGroq() as srv:
        monkeypatch.setenv("GROQ_BASE_URL", srv.url)
        app.run()
        app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
        app.sidebar.selectbox(key="cfgA_llm").set_value("groq").run()
        app.sidebar.text_input(key="groq_key").set_value("gsk_wrong_wrong_wrong_1").run()
        app.chat_input[0].set_value(QUESTION).run()
    assert "rejected the API key (401)" in texts(app.error)
    assert "gsk_wrong_wrong_wrong_1" not in texts(app.error)


def test_compare_page_single_and_batch(app):
    app.run()
    app.switch_page(str(ROOT / "app_pages" / "compare.py")).run()
    assert not app.exception
    app.text_input[0].set_value(QUESTION)
    app.button[0].click().run()  # the form's submit button
    assert not app.exception, app.exception
    subheaders = texts(app.subheader)
    assert "Config A" in subheaders and "Config B" in subheaders
    assert {m.label for m in app.metric} >= {"Jaccard", "Rank-biased overlap", "Shared passages"}
    assert len(app.get("plotly_chart")) >= 4  # two gauges, two latency bars
    saved = Collection("papers").comparisons()
    assert (
        saved
        and saved[-1]["config_a"]["retriever"] == "hybrid"
        and saved[-1]["config_b"]["retriever"] == "bm25"
    )
    # batch
    app.text_area(key="batch_text").set_value(f"{QUESTION}\nWhat was the IBM MT/ST?")
    next(b for b in app.button if b.label == "Run batch").click().run()
    assert not app.exception, app.exception
    assert "Summary" in texts(app.subheader)
    assert len(Collection("papers").comparisons()) == 3
    labels = {b.label for b in app.get("download_button")}
    assert {"Export CSV", "Export JSON"} <= labels
    # a new session (a reload) finds the batch's questions in the box beside its restored results
    again = make_app()
    again.run()
    again.switch_page(str(ROOT / "app_pages" / "compare.py")).run()
    assert again.text_area(key="batch_text").value == f"{QUESTION}\nWhat was the IBM MT/ST?"
    assert "Summary" in texts(again.subheader)


def test_configs_save_load_export_import(app):
    import json
    import os

    app.run()
    app.sidebar.selectbox(key="cfgA_retriever").set_value("bm25").run()
    app.sidebar.number_input(key="cfgA_top_k").set_value(7).run()
    app.sidebar.text_input(key="save_name").set_value("lexical").run()
    next(b for b in app.sidebar.button if b.label == "Save config").click().run()
    assert "saved 'lexical'" in texts(app.sidebar.success)
    root = Path(os.environ["RAGKIT_INDEX_ROOT"])
    saved = json.loads((root / ".configs" / "lexical.json").read_text())
    assert saved["retriever"] == "bm25" and saved["top_k"] == 7 and "groq" not in json.dumps(saved).lower()
    # load it into B: B's widgets now show the saved values
    app.sidebar.radio(key="editing").set_value("B").run()
    app.sidebar.selectbox(key="load_pick").set_value("lexical").run()
    next(b for b in app.sidebar.button if b.label == "Load into B").click().run()
    assert not app.exception, app.exception
    cfg_b = app.session_state["configs"]["B"]
    assert cfg_b.retriever == "bm25" and cfg_b.top_k == 7 and cfg_b.name == "B"
    assert app.sidebar.number_input(key="cfgB_top_k").value == 7
    # export: the download button carries the config JSON
    export = next(b for b in app.get("download_button") if b.label == "Export JSON")
    assert export is not None


def test_delete_document_asks_first(app):
    app.run()
    next(b for b in app.button if b.label == "Delete").click().run()
    assert not app.exception, app.exception
    assert "Delete 'docling_multi_page.pdf' from the collection?" in texts(app.warning)
    next(b for b in app.button if b.label == "Cancel").click().run()
    assert len(Collection("papers").documents()) == 1  # nothing happened
    next(b for b in app.button if b.label == "Delete").click().run()
    next(b for b in app.button if b.label == "Delete for good").click().run()
    assert not app.exception, app.exception
    assert Collection("papers").documents() == []
    assert "is empty" in texts(app.info)


def test_work_survives_a_new_session_and_collections_keep_their_own(app):
    """What a reload or a second tab does: a fresh session on the same folder finds configs, the chat and
    the comparison; creating collections never crashes nor resets the configs."""
    app.run()
    app.sidebar.selectbox(key="cfgA_retriever").set_value("dense").run()
    app.sidebar.number_input(key="cfgA_top_k").set_value(4).run()
    app.sidebar.radio(key="editing").set_value("B").run()
    app.sidebar.selectbox(key="cfgB_chunker").set_value("sentence").run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    for name in ("second", "third"):  # "Create" used to crash with one collection present
        app.sidebar.text_input[0].set_value(name)
        next(b for b in app.sidebar.button if b.label == "Create").click().run()
        assert not app.exception, app.exception
        assert app.session_state["collection"] == name
        assert app.session_state["configs"]["A"].retriever == "dense"  # carried over, not reset
    # a new session: lands on the collection used last (third); switching back restores papers' work
    again = make_app().run()
    assert not again.exception and again.session_state["collection"] == "third"
    again.sidebar.selectbox(key="collection").set_value("papers").run()
    cfg_a, cfg_b = again.session_state["configs"]["A"], again.session_state["configs"]["B"]
    assert (cfg_a.retriever, cfg_a.top_k, cfg_b.chunker) == ("dense", 4, "sentence")
    assert again.sidebar.number_input(key="cfgA_top_k").value == 4  # the widgets show the restored config
    again.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    assert not again.exception, again.exception
    # another session's chat is never shown (nor written to) unasked: it is listed, to reopen
    assert not again.chat_message
    picker = next(s for s in again.selectbox if s.label == "Chat")
    (chat_id,) = [c["id"] for c in Workspace(Collection("papers").path).chats()]
    picker.set_value(chat_id).run()
    assert QUESTION in texts(again.chat_message[0].markdown) and "Sholes" in texts(
        again.chat_message[1].markdown
    )
    next(b for b in again.button if b.label == "New chat").click().run()
    assert not again.chat_message  # a fresh chat; the old one is kept and listed
    assert "Chat" in {s.label for s in again.selectbox}  # the earlier chat can be reopened
    linked = make_app()  # a reload, or a link to the chat: the URL names it
    linked.query_params["collection"], linked.query_params["chat"] = "papers", chat_id
    linked.run()
    linked.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    assert QUESTION in texts(linked.chat_message[0].markdown)


def test_switching_back_to_a_collection_reopens_the_sessions_chat_there(app):
    """Walked in the browser: asking in one collection, switching to another and back showed an empty
    "new chat"; the conversation was only in the list. The session's chat per collection comes back."""
    app.run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.chat_input[0].set_value(QUESTION).run()
    app.sidebar.text_input[0].set_value("other")
    next(b for b in app.sidebar.button if b.label == "Create").click().run()
    assert app.session_state["collection"] == "other" and not app.chat_message  # its own, empty chat
    app.sidebar.selectbox(key="collection").set_value("papers").run()
    assert not app.exception, app.exception
    assert QUESTION in texts(app.chat_message[0].markdown)
    assert [app.query_params["chat"]] == [c["id"] for c in Workspace(Collection("papers").path).chats()]


def test_a_collection_created_with_its_vectors_in_embedded_qdrant_answers(app, evaldata):
    """The sidebar's store choice: a collection whose indexes keep their vectors in Qdrant's embedded
    engine is indexed and answers like any other (and says where its vectors are)."""
    import os

    app.run()
    app.sidebar.text_input[0].set_value("vq")
    next(s for s in app.sidebar.selectbox if s.label == "Vectors in").set_value("Qdrant, embedded")
    next(b for b in app.sidebar.button if b.label == "Create").click().run()
    assert not app.exception, app.exception
    root = Path(os.environ["RAGKIT_INDEX_ROOT"])
    c = Collection("vq", root)
    assert c.store == {"kind": "qdrant"}
    assert "Vectors in Qdrant embedded (qdrant-edge)" in texts(app.sidebar.caption)
    pdf = evaldata / "pdfs" / "docling_multi_page.pdf"
    c.add_files([(pdf.name, pdf.read_bytes())])
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    assert "Sholes" in texts(app.chat_message[1].markdown)
    indexes = list((c.path / "indexes").iterdir())
    assert indexes and all((p / "qdrant").is_dir() and not list(p.glob("vectors-*.npy")) for p in indexes)


def test_sidebar_engine_and_dense_index_reach_ask_and_compare(app):
    """Round-3 regression: the sidebar's BM25 engine and dense search were left out of the cached
    retriever's key, so Ask and Compare always ran the defaults while the answer reported the choice."""
    app.run()
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.sidebar.selectbox(key="cfgA_bm25_engine").set_value("rank_bm25").run()
    app.sidebar.selectbox(key="cfgA_dense_index").set_value("hnsw").run()
    assert app.session_state["configs"]["A"].bm25_engine == "rank_bm25"
    app.chat_input[0].set_value(QUESTION).run()
    assert not app.exception, app.exception
    searched = texts(app.chat_message[1].caption)
    assert "bm25[language=english, engine=rank_bm25]" in searched and "dense[index=hnsw]" in searched
    # B keeps the defaults; Compare runs each with its own
    app.switch_page(str(ROOT / "app_pages" / "compare.py")).run()
    app.text_input[0].set_value(QUESTION)
    app.button[0].click().run()
    assert not app.exception, app.exception
    captions = texts(app.caption)
    assert "engine=rank_bm25" in captions and "dense[index=hnsw]" in captions  # A
    assert "bm25[language=english, engine=bm25s]" in captions  # B (bm25 alone)


def test_the_qdrant_url_field_shows_only_for_a_qdrant_server(app):
    app.run()
    assert "Qdrant server URL" not in {t.label for t in app.sidebar.text_input}  # local FAISS: no URL
    next(s for s in app.sidebar.selectbox if s.label == "Vectors in").set_value("Qdrant server (URL)").run()
    assert "Qdrant server URL" in {t.label for t in app.sidebar.text_input}
    app.sidebar.text_input[0].set_value("srv")
    next(b for b in app.sidebar.button if b.label == "Create").click().run()
    assert "a Qdrant server collection needs the server's URL" in texts(app.sidebar.error)


def test_documents_page_says_what_the_content_filter_removed(app):
    """With the content filter on, each web page in the list says how much text the filter removed and
    shows some of it."""
    import os

    from tests.integration.test_web_pipeline import SHOP

    c = Collection.create("shop", Path(os.environ["RAGKIT_INDEX_ROOT"]))
    c.add_files([("kiln.html", SHOP)])
    app.run()
    app.sidebar.selectbox(key="collection").set_value("shop").run()
    assert "content filter removed" not in texts(app.markdown)
    app.sidebar.selectbox(key="cfgA_content_filter").set_value("heuristic").run()
    assert not app.exception, app.exception
    assert "content filter removed" in texts(app.markdown) and "BOOK NOW" in texts(app.caption)


def test_service_urls_a_visitor_sets_are_held_to_the_fetch_policy(app, monkeypatch):
    """A shared server connects where its settings say: a visitor's LLM-server or SearXNG URL that the
    fetch policy refuses (cloud metadata, the intranet) is not used, from the sidebar or from a saved
    workspace, and the sidebar says why; the administrator's own URL is kept."""
    monkeypatch.setenv("RAGKIT_FETCH_ALLOW", "")  # a server that opened nothing
    monkeypatch.setenv("OPENAI_BASE_URL", "http://10.0.0.5/v1")  # the administrator's server
    app.run()
    app.sidebar.selectbox(key="cfgA_llm").set_value("openai").run()
    app.sidebar.text_input(key="cfgA_openai_base_url").set_value("http://169.254.169.254/v1").run()
    assert not app.exception, app.exception
    said = texts(app.sidebar.error)
    assert "Server base URL 'http://169.254.169.254/v1' not used" in said and "link-local" in said
    assert app.session_state["configs"]["A"].openai_base_url is None
    app.sidebar.text_input(key="cfgA_openai_base_url").set_value("http://10.0.0.5/v1").run()
    assert app.session_state["configs"]["A"].openai_base_url == "http://10.0.0.5/v1"
    assert not app.sidebar.error
    # a workspace saved with an intranet SearXNG: a new session does not use it, and says so
    from ragkit.pipeline.config import PipelineConfig

    ws = Workspace(Collection("papers").path)
    ws.save_configs(
        {
            "A": PipelineConfig(name="A"),
            "B": PipelineConfig(name="B", web_search=True, searxng_url="http://10.1.2.3"),
        }
    )
    again = make_app()
    again.run()
    assert not again.exception, again.exception
    assert again.session_state["configs"]["B"].searxng_url is None
    assert "SearXNG instance URL 'http://10.1.2.3' not used" in texts(again.sidebar.error)


def test_upload_pressed_before_any_file_arrived_says_so(app):
    """Pressing "Upload and index" while a file is still being sent submits the form without it; the form
    is cleared, so the page says what happened instead of doing nothing."""
    app.run()
    [button] = [b for b in app.button if b.label == "Upload and index"]
    button.click().run()
    assert not app.exception, app.exception
    assert "No file had arrived" in texts(app.warning)
