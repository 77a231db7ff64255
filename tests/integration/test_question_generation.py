"""Question generation through the real SDKs against loopback servers with a scripted writer: every
question type, failed replies counted, every critique reason, the reply cache on a re-run and a larger
set, cancellation, and the saved question file read back as a question set over the collection."""

from __future__ import annotations

import json

import pytest

from ragkit.evaluation.datasets.questionsets import load_question_set
from ragkit.evaluation.metrics.citations import CHECK_MODEL
from ragkit.evaluation.questiongen import QuestionGenerator, question_file, save_question_set
from ragkit.evaluation.questiongen.absence import ANSWERED
from ragkit.evaluation.questiongen.critique import COPIES, DUPLICATE, NOT_STANDALONE, UNSUPPORTED
from ragkit.evaluation.questiongen.generator import estimate
from ragkit.evaluation.questiongen.llm import NOT_JSON
from ragkit.index.collections import Collection
from ragkit.index.embeddings import Embedder
from ragkit.llms.groq import GroqLLM
from ragkit.llms.ollama import OllamaLLM
from ragkit.llms.openai_compat import OpenAILLM
from tests.fake_servers import FakeGroq, FakeOllama
from tests.question_script import DOCS, responder

KEY = "gsk_test_key_123456789"


@pytest.fixture(scope="module")
def embedder():
    return Embedder(CHECK_MODEL)


@pytest.fixture
def collection(tmp_path):
    c = Collection.create("notes", tmp_path / "root")
    assert not c.add_files([(n, t.encode()) for n, t in DOCS.items()]).failed
    return c


def located(doc_text: dict, q) -> list[str]:
    """The text each evidence span points at in the documents."""
    return [doc_text[s][a:b] for s, spans in q.evidence for _p, a, b in spans]


def test_every_type_through_the_groq_sdk_and_the_file_it_saves(collection, embedder, tmp_path):
    docs = collection.documents()
    text = {d.source: d.pages[0].text for d in docs}
    with FakeGroq() as srv:
        srv.responder = responder()
        llm = GroqLLM(model="llama-3.1-8b-instant", api_key=KEY, base_url=srv.url)
        mix = {"factual": 1, "why": 1, "two_passage": 1, "unanswerable": 1}
        report = QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, mix=mix).run(6)
        checks = sum(q.absent for q in report.questions)  # each unanswerable one is checked: one more call
        assert checks == 1 and len(srv.requests) == 7 and report.calls == 7
        assert all(r["auth"] == f"Bearer {KEY}" for r in srv.requests)
    assert report.failures == {}
    by_type = {q.qtype: q for q in report.questions}
    assert set(by_type) == {"factual", "why", "two_passage", "unanswerable"}
    for q in report.questions:
        assert q.generator == "llm:groq:llama-3.1-8b-instant" and len(q.prompt_hash) == 12
        assert located(text, q) == list(q.evidence_text)  # spans point at the quoted sentences
    two = by_type["two_passage"]
    assert len(two.evidence) == 2 and two.evidence[0][0] != two.evidence[1][0]  # two places
    nothing = by_type["unanswerable"]
    assert nothing.absent and nothing.evidence == () and nothing.answer == "no answer in the collection"
    # saved with the collection: read back as a question set whose evidence is exact passages
    path = save_question_set(collection, "llm set", report)
    assert path.name == "llm-set.jsonl" and path.with_suffix(".report.json").is_file()
    qset = load_question_set(path, collection=collection)
    accepted = report.accepted
    assert qset.n == len(accepted) and qset.level == "passage"
    for lq, gq in zip(qset.questions, accepted, strict=True):
        assert lq.question == gq.question and lq.absent == gq.absent
        assert [(e.source, e.spans) for e in lq.evidence] == [(s, sp) for s, sp in gq.evidence]


def test_failed_replies_and_each_critique_reason(collection, embedder):
    docs = collection.documents()
    with FakeOllama(models=("llama3.2:latest",)) as srv:
        srv.responder = responder(faulty=True)
        llm = OllamaLLM(model="llama3.2", host=srv.url)
        report = QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, mix={"factual": 1}).run(6)
    acc = report.acceptance()
    # the bees' reply is prose, not JSON: counted, with its text shown, and no question made of it
    assert acc["failed_replies"] == {NOT_JSON: 1} and "Sure! Here is" in report.failure_examples[NOT_JSON]
    assert acc["attempts"] == 6 and acc["made"] == 5
    reasons = {q.evidence[0][0]: q.reason for q in report.questions}
    assert reasons["telescope.txt"] == NOT_STANDALONE
    assert reasons["glacier.txt"] == COPIES
    assert reasons["coffee.txt"] == UNSUPPORTED
    # the two typewriter paragraphs got the same question: the second is a near-duplicate
    typewriter = [q for q in report.questions if q.evidence[0][0] == "typewriter.txt"]
    assert sorted(q.reason for q in typewriter) == ["", DUPLICATE]
    assert acc["accepted"] == 1 and acc["rejected"] == {
        NOT_STANDALONE: 1, COPIES: 1, UNSUPPORTED: 1, DUPLICATE: 1,
    }  # fmt: skip


def test_an_unanswerable_question_the_collection_answers_is_rejected(collection, embedder):
    """The writer saw one typewriter paragraph and asked what the other one answers: the check shows the
    collection's closest passages to the same backend, which quotes the answer; the question is
    rejected with where it is answered. Questions the collection does not answer are kept."""
    docs = collection.documents()
    with FakeGroq() as srv:
        srv.responder = responder(faulty=True)
        llm = GroqLLM(api_key=KEY, base_url=srv.url)
        report = QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, mix={"unanswerable": 1}).run(6)
        checks = [r for r in srv.requests if "state the answer to the question" in str(r["body"])]
    assert len(checks) == 6 and report.calls == 12
    answered = [q for q in report.questions if q.reason.startswith(ANSWERED)]
    assert [q.question for q in answered] == ["In which year was the first successful typewriter patented?"]
    assert (
        "typewriter.txt, page 1" in answered[0].reason
        and "patented by Christopher Latham" in answered[0].reason
    )
    kept = [q for q in report.questions if q.status == "accepted"]
    assert len(kept) == 5 and all(q.absent and "cost to build in 1850" in q.question for q in kept)
    assert estimate(6, "llm", {"unanswerable": 1})["llm_calls"] == 12


def test_replies_are_cached_for_a_rerun_and_a_larger_set(collection, embedder, tmp_path):
    docs, cache = collection.documents(), tmp_path / "cache.jsonl"
    with FakeGroq(valid_key=None) as srv:
        srv.responder = responder()
        llm = OpenAILLM(model="local-model", base_url=f"{srv.url}/v1")

        def run(n):
            return QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, cache_path=cache).run(n)

        first = run(4)  # four questions, one of them unanswerable: its absence check is a fifth call
        assert first.calls == 5 and len(srv.requests) == 5
        again = run(4)  # a re-run: every reply, the check's too, comes from the cache
        assert again.calls == 0 and again.cached == 5 and len(srv.requests) == 5
        assert [q.to_dict() for q in again.questions] == [q.to_dict() for q in first.questions]
        larger = run(6)  # the first four passages are the same: two new calls (both factual)
        assert larger.calls == 2 and larger.cached == 5 and len(srv.requests) == 7
        other = OpenAILLM(model="another-model", base_url=f"{srv.url}/v1")
        QuestionGenerator(docs, "llm", llm=other, embedder=embedder, cache_path=cache).run(2)
        assert len(srv.requests) == 9  # another model is another cache key


def test_cancelling_keeps_what_was_made(collection, embedder, tmp_path):
    docs, cache = collection.documents(), tmp_path / "cache.jsonl"
    with FakeGroq() as srv:
        srv.responder = responder()
        llm = GroqLLM(api_key=KEY, base_url=srv.url)
        stop_after = {"n": 0}

        def should_stop() -> bool:
            stop_after["n"] += 1
            return stop_after["n"] > 2  # two questions, then the user presses Stop

        report = QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, cache_path=cache).run(
            6, should_stop=should_stop
        )
        assert report.status == "cancelled" and len(report.questions) == 2 and len(srv.requests) == 2
        assert len(cache.read_text().splitlines()) == 2  # the replies paid for are kept
        resumed = QuestionGenerator(docs, "llm", llm=llm, embedder=embedder, cache_path=cache).run(6)
        assert resumed.cached == 2 and resumed.calls == 5  # four questions and one absence check


def test_a_backend_that_is_down_stops_the_run_with_the_reason(collection, embedder):
    from tests.unit.test_llms import free_port

    llm = GroqLLM(api_key=KEY, base_url=f"http://127.0.0.1:{free_port()}", max_retries=0)
    report = QuestionGenerator(collection.documents(), "llm", llm=llm, embedder=embedder).run(6)
    assert report.status.startswith("stopped after 3 failed LLM calls") and report.questions == []
    assert report.acceptance()["failed_replies"] == {"the LLM call failed": 3}


def test_offline_file_scores_two_chunkers_differently_through_the_cli(collection, tmp_path, monkeypatch):
    """``questions generate --method offline`` writes a file that ``eval run`` scores for two chunkers."""
    from ragkit.cli import main

    root = collection.path.parent
    monkeypatch.setenv("RAGKIT_INDEX_ROOT", str(root))
    out = tmp_path / "q.jsonl"
    assert main(["questions", "generate", "--collection", "notes", "--n", "40", "--method", "offline",
                 "--out", str(out)]) == 0  # fmt: skip
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["evidence_spans"] and r["type"] == "factual" for r in rows)
    assert all(r["generator"] == "offline:salient-terms" for r in rows)
    configs = []
    for name, chunker, params in (("sentences", "sentence", {"n": 1}), ("windows", "sliding", {})):
        cfg = tmp_path / f"{name}.json"
        cfg.write_text(json.dumps({"name": name, "chunker": chunker, "chunker_params": params,
                                   "retriever": "bm25", "llm": "extractive"}))  # fmt: skip
        configs += ["--config", str(cfg)]
    result = tmp_path / "run.json"
    assert main(["eval", "run", "--collection", "notes", "--dataset", str(out), *configs,
                 "--index-root", str(tmp_path / "eval"), "--json", str(result)]) == 0  # fmt: skip
    run = json.loads(result.read_text())
    a, b = run["configs"]
    assert run["questions"] == len(rows) and run["level"] == "passage"
    assert a["metrics"]["evidence_precision"] != b["metrics"]["evidence_precision"]
    assert question_file([], "csv").startswith("id,question")
