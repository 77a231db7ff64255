"""The extractive reader with the real MiniLM over the own-documents corpus (``bench/corpus``): it answers
with the sentence, row or code block that holds the answer, abstains when the topic is near but the
answer is not, never quotes page furniture, and keeps a document's own "[1]" as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.app.presentation import answer_html
from ragkit.core.types import Message
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.llms.base import WORD_JOINER
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pipe(tmp_path_factory, embedder):
    store, chunker = open_or_create(tmp_path_factory.mktemp("own") / "idx", embedder, SlidingChunker())
    files = [
        CORPUS / f
        for f in ("orbit_release.html", "tessera_README.md", "rfc9999_kvl.txt", "lab_handbook.docx")
    ]
    report = ingest_paths(store, files, chunker, embedder)
    assert not report.failed
    return RagPipeline(PipelineConfig(), store, embedder)


@pytest.mark.parametrize(
    "question, gold",
    [
        ("Why was the Orbit queue rewritten in Rust?", "global interpreter lock"),
        ("How many contributors sent patches for Orbit 2.0?", "37"),
        ("Where is the cryostat?", "Room B102"),
        ("Why must a KVL key not be longer than 64 octets?", "fixed-size buffers"),
    ],
)
def test_answers_hold_the_answer(pipe, question, gold):
    answer = pipe.ask(question)
    assert not answer.abstained and gold in answer.text
    assert answer.answerability is not None and answer.answerability.value >= 0.5


@pytest.mark.parametrize(
    "question, missing",
    [
        ("How many GitHub stars does Orbit have?", "github"),
        ("What license is Orbit released under?", "orbit"),
        ("When was the KVL format first published as an Internet-Draft?", "draft"),
        ("Quelle est la capitale de la France ?", "below the threshold"),
    ],
)
def test_near_topic_and_off_topic_questions_are_refused_saying_why(pipe, question, missing):
    answer = pipe.ask(question)
    assert answer.abstained and answer.text == pipe.templates.fallback
    assert missing in answer.abstain_reason.lower()


def test_code_answers_keep_their_block_and_render_it(pipe):
    answer = pipe.ask("How do I split an image into 256-pixel tiles with tessera?")
    assert "```bash\ntessera split photo.png --size 256 --out tiles/\n```" in answer.text
    html, _ = answer_html(answer.text, len(answer.hits), "k")
    code = html[html.index("```") : html.rindex("```")]
    assert "<a " not in code and html.count('class="rk-ref"') >= 1


def test_a_documents_own_reference_stays_text_and_footers_are_never_quoted(pipe):
    answer = pipe.ask("Which document is the KVL format based on?")
    assert "RFC 4180" in answer.text and f"[{WORD_JOINER}1]" in answer.text
    assert all(c.source == "rfc9999_kvl.txt" for c in answer.citations) and not answer.invalid_citations
    for question in ("What media type does KVL register?", "Which document is the KVL format based on?"):
        text = pipe.ask(question).text
        assert "[Page" not in text and "Informational" not in text


def test_a_transcripts_date_line_and_counsel_answer_offline(tmp_path, embedder):
    """The Supreme Court transcript read row by row (no margin line numbers): the argument's date sits
    on a line of its own before the sentence about the argument, and counsel's name in the appearances."""
    from tests.conftest import PDFS

    store, chunker = open_or_create(tmp_path / "idx", embedder, SlidingChunker())
    assert not ingest_paths(store, [PDFS / "transcript_scotus_p1.pdf"], chunker, embedder).failed
    # what the reader quotes, whatever the answer confidence decides (its abstention is measured apart)
    pipe = RagPipeline(PipelineConfig(answer_threshold=0.0), store, embedder)
    dated = pipe.ask("On what date was the Knowles v. Mirzayance argument heard?")
    assert not dated.abstained and "January 13, 2009" in dated.text
    assert "oral argument" in dated.text  # with the sentence that says what happened on that date
    counsel = pipe.ask("Who argued for the petitioner in Knowles v. Mirzayance?")
    assert not counsel.abstained and "STEVEN E. MERCER" in counsel.text


@pytest.mark.parametrize(
    "first, follow_up, gold",
    [
        ("How many contributors sent patches for Orbit 2.0?", "What changed in it?", "legacy-fairshare"),
        ("What media type does KVL register?", "What is the maximum length of its keys?", "64 octets"),
        (
            "How many contributors sent patches for Orbit 2.0?",
            "Why was its queue rewritten?",
            "interpreter lock",
        ),
    ],
)
def test_a_follow_ups_answer_is_about_what_it_asks_not_the_previous_answer(pipe, first, follow_up, gold):
    """The rewrite adds the previous question's words to find what "it" is; the reader weighs them as
    context, so the follow-up is not answered again with the sentence that answered the first question."""
    earlier = pipe.ask(first)
    answer = pipe.ask(follow_up, [Message("user", first), Message("assistant", earlier.text)])
    assert answer.query != follow_up and answer.trace["follow_up"]["how"] == "terms"
    assert not answer.abstained and gold in answer.text
    assert earlier.text.split(" [")[0] not in answer.text


@pytest.fixture(scope="module")
def papers(tmp_path_factory, embedder, evaldata):
    """The S2ORC paper (two columns, its author block on page 1) beside the RFC, as a user uploads them."""
    store, chunker = open_or_create(tmp_path_factory.mktemp("papers") / "idx", embedder, SlidingChunker())
    files = [evaldata / "pdfs" / "acl2020_s2orc_2020.acl-main.447.pdf", CORPUS / "rfc9999_kvl.txt"]
    assert not ingest_paths(store, files, chunker, embedder).failed
    # what the reader reads and quotes, whatever the answer confidence decides (measured apart)
    return lambda **kw: RagPipeline(PipelineConfig(**{"answer_threshold": 0.0, **kw}), store, embedder)


def test_a_papers_authors_come_from_its_front_matter_which_search_does_not_rank(papers):
    """Search ranks the author block nowhere near the top for "first author" (it shares no word with
    the question but the paper's name); the front-matter stage reads it, and the reader quotes it."""
    question = "Who is the first author of the S2ORC paper?"
    answer = papers().ask(question)
    assert not answer.abstained and "Kyle Lo" in answer.text
    assert answer.trace["front_matter"]["document"] == "acl2020_s2orc_2020.acl-main.447.pdf"
    assert answer.citations[0].chunk_id == answer.hits[-1].chunk_id  # the added chunk is the one cited
    without = papers(front_matter=False).ask(question)
    assert "front_matter" not in without.trace and "Kyle Lo" not in without.text


def test_a_documents_date_is_its_front_matters_date(papers):
    answer = papers().ask("When was the KVL specification published?")
    assert not answer.abstained and "June 2023" in answer.text


NEWS = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>U.S. to Lift Sudan Sanctions</title></head>
<body><main><article>
<h1>United States to Lift Sudan Sanctions</h1>
<p class="byline-dateline">By JEFFREY ALDEN JAN. 13, 2017</p>
<p>After nearly 20 years of hostile relations, the American government plans to reverse its position on
Sudan and lift trade sanctions, administration officials said late Thursday.</p>
<p>In exchange for the lifting of the trade sanctions, Sudan has said it will improve access for aid
groups and stop supporting rebels in neighboring countries.</p>
<p>To make sure the progress continues, the executive order will have a review period, officials said.</p>
<p>Critics said they were appalled that the American government was lifting the sanctions.</p>
</article></main></body></html>"""


def test_a_news_bylines_date_is_when_it_was_published_not_when_anything_else_happens(tmp_path, embedder):
    """Asked when the sanctions will be lifted, the reader quoted the byline's date at answer confidence
    0.84; the article never says. A byline's date answers when the piece was published, nothing else, and
    evidence with no date for a "when" question is refused with a low answer confidence."""
    page = tmp_path / "sudan.html"
    page.write_text(NEWS, encoding="utf-8")
    store, chunker = open_or_create(tmp_path / "idx", embedder, SlidingChunker())
    assert not ingest_paths(store, [page], chunker, embedder).failed
    pipe = RagPipeline(PipelineConfig(answer_threshold=0.0), store, embedder)
    when = pipe.ask("When will the sanctions on Sudan be lifted?")
    assert when.abstained and "no date" in when.abstain_reason
    assert when.answerability.answer_confidence <= 0.1
    published = pipe.ask("When was the story about the Sudan sanctions published?")
    assert not published.abstained and "JAN. 13, 2017" in published.text
