"""Question generation's pure parts: covering passage order, type plans, strict reply parsing, the
critique's rules (lexical forms), the reviewer's edits, and question files with evidence spans."""

from __future__ import annotations

import json

import pytest

from ragkit.core.errors import RagkitError
from ragkit.core.types import Document, Page
from ragkit.evaluation.datasets.loaders import parse_question_file
from ragkit.evaluation.datasets.questionsets import collection_question_set
from ragkit.evaluation.questiongen import GenerationReport, plan_types, question_file
from ragkit.evaluation.questiongen.critique import COPIES, DUPLICATE, NOT_STANDALONE, UNSUPPORTED, critique
from ragkit.evaluation.questiongen.llm import MISSING, NOT_JSON, NOT_QUOTED, ReplyError, question_from_reply
from ragkit.evaluation.questiongen.passages import page_passages, sample_passages
from ragkit.evaluation.questiongen.records import GeneratedQuestion
from ragkit.evaluation.questiongen.review import BY_REVIEWER, Decision, apply_review, marked_passages

SENTENCE = "The committee met {i} times to review the budget of the regional water authority in detail."


def doc(name: str, paragraphs: int, pages: int = 1) -> Document:
    body = "\n\n".join(
        " ".join(SENTENCE.format(i=f"{name}{p}-{k}") for k in range(3)) for p in range(paragraphs)
    )
    return Document(name, name, name, tuple(Page(n, body) for n in range(1, pages + 1)), "txt")


def test_passages_cover_every_document_and_every_part_in_a_prefix_stable_order():
    docs = [doc("a", 8, pages=2), doc("b", 1), doc("c", 2)]
    first = sample_passages(docs, 3)
    assert {p.source for p in first} == {"a", "b", "c"}  # one per document before any gets two
    eleven = sample_passages(docs, 11)
    assert eleven[:3] == first and sample_passages(docs, 7) == eleven[:7]  # prefix-stable
    a = [p for p in sample_passages(docs, 100) if p.source == "a"]
    assert len(a) == 16 and {(p.page, p.start) for p in a[:4]} != {(1, a[0].start)}  # spread, not the top
    assert {p.page for p in a[:2]} == {1, 2}  # the second pick of a long document is in its other half
    for p in eleven:  # every passage is exactly its page's text between its offsets
        page = next(d for d in docs if d.source == p.source).pages[p.page - 1]
        assert page.text[p.start : p.end] == p.text
    other = sample_passages(docs, 11, seed=1)
    assert {(p.source, p.start, p.page) for p in other[:3]} != {(p.source, p.start, p.page) for p in first}
    assert {p.source for p in other[:3]} == {"a", "b", "c"} and {
        p.page for p in other if p.source == "a"
    } == {1, 2}


def test_short_blocks_merge_and_headings_alone_are_not_passages():
    text = "Title\n\n" + "Short line one here.\n\n" + " ".join(["word"] * 40)
    ps = page_passages("x", 1, text)
    assert len(ps) == 1 and ps[0].text.startswith("Title")  # merged up to the minimum size
    assert page_passages("x", 1, "Just a heading") == []


def test_type_plan_keeps_the_mix_in_every_prefix():
    plan = plan_types(10, {"factual": 2, "why": 1, "two_passage": 1, "unanswerable": 1})
    assert plan.count("factual") == 4 and plan.count("why") == 2 and plan.count("unanswerable") == 2
    assert plan[:5].count("factual") == 2 and plan_types(5, {"factual": 2, "why": 1, "two_passage": 1,
                                                             "unanswerable": 1}) == plan[:5]  # fmt: skip
    with pytest.raises(RagkitError, match="question types are"):
        plan_types(3, {"trivia": 1})


def _passage():
    from ragkit.evaluation.questiongen.passages import Passage

    text = "Glaciers carve valleys. The Aletsch Glacier is about 23 kilometres long."
    page = "Intro line.\n\n" + text
    return Passage("g.txt", 1, 13, 13 + len(text), text), page


def test_replies_are_parsed_strictly():
    p, page = _passage()
    good = json.dumps({"question": "How long is the Aletsch?", "answer": "23 km",
                       "evidence": "the aletsch glacier is about 23  kilometres long"})  # fmt: skip
    q = question_from_reply(good, "factual", p, None, "llm:x:y")
    ((source, ((pg, s, e),)),) = q.evidence
    assert (source, pg) == ("g.txt", 1) and page[s:e] == "The Aletsch Glacier is about 23 kilometres long"
    cases = {
        "Here you go: {}": NOT_JSON,
        "[1, 2]": NOT_JSON,
        json.dumps({"question": "Q?", "answer": ""}): MISSING,
        json.dumps({"question": "Q?", "answer": "a", "evidence": "glaciers melt in summer"}): NOT_QUOTED,
    }
    for reply, reason in cases.items():
        with pytest.raises(ReplyError) as info:
            question_from_reply(reply, "factual", p, None, "llm:x:y")
        assert info.value.reason == reason and info.value.reply == reply
    absent = question_from_reply('{"question": "What did it cost?"}', "unanswerable", p, None, "g")
    assert absent.absent and absent.evidence == () and absent.passages == (("g.txt", 1, p.start, p.end),)


def gq(
    question,
    answer="23 kilometres",
    evidence="The Aletsch Glacier is the largest in the Alps, 23 kilometres long.",
):
    return GeneratedQuestion(question, answer, "factual", (("g.txt", ((1, 0, len(evidence)),)),), (evidence,),
                             (("g.txt", 1, 0, len(evidence)),), "test")  # fmt: skip


def test_critique_rules_without_an_embedder():
    qs = critique([
        gq("How long is the biggest glacier of the Alps?"),
        gq("According to the text, how long is the glacier?"),
        gq("The Aletsch Glacier is the largest in the Alps, right?"),
        gq("Which river did Napoleon cross in Egypt?", answer="The Nile"),
        gq("How long is the biggest glacier in the Alps?"),
    ])  # fmt: skip
    assert [q.reason for q in qs] == ["", NOT_STANDALONE, COPIES, UNSUPPORTED, DUPLICATE]
    assert [q.status for q in qs] == ["accepted"] + ["rejected"] * 4


def test_review_edits_moves_evidence_and_rejects():
    text = "Glaciers carve valleys. The Aletsch Glacier is about 23 kilometres long."
    docs = [Document("g.txt", "g.txt", "x", (Page(1, text),), "txt")]
    q = GeneratedQuestion("Q one?", "23 kilometres", "factual", (("g.txt", ((1, 24, len(text)),)),),
                          (text[24:],), (("g.txt", 1, 0, len(text)),), "test")  # fmt: skip
    report = GenerationReport("llm", [q, q, q])
    edit = Decision(True, "How long is the Aletsch Glacier?", "about 23 km", ("Aletsch Glacier is about 23",))
    out = apply_review(report, {0: edit, 1: Decision(False, "Q one?", "23 kilometres", (text[24:],))}, docs)
    first, second, third = out.questions
    assert (
        first.question == "How long is the Aletsch Glacier?"
        and first.edited
        and first.answer == "about 23 km"
    )
    ((_, ((_, s, e),)),) = first.evidence
    assert text[s:e] == "Aletsch Glacier is about 23" and first.evidence_text == (
        "Aletsch Glacier is about 23",
    )
    assert second.status == "rejected" and second.reason == BY_REVIEWER and third == q
    assert report.questions[0] == q  # the report under review is not changed in place
    pieces = marked_passages(first, docs)[0]
    assert [t for t, marked in pieces if marked] == ["Aletsch Glacier is about 23"]
    assert "".join(t for t, _ in pieces) == text
    with pytest.raises(RagkitError, match=r"is not on page 1 of g\.txt"):
        apply_review(report, {0: Decision(True, "Q?", "a", ("glaciers melt",))}, docs)
    with pytest.raises(RagkitError, match="the question is empty"):
        apply_review(report, {0: Decision(True, " ", "a", (text[24:],))}, docs)


def test_a_quote_across_line_ends_is_unchanged_as_the_review_box_shows_it():
    """The review box shows each quote on one line: a quote that spans a PDF's line ends comes back as
    one line, and rejecting (or editing the question) must not read that as a moved quote."""
    text = "Glaciers carve valleys. The Aletsch Glacier\nis about 23 kilometres\nlong."
    docs = [Document("g.txt", "g.txt", "x", (Page(1, text),), "txt")]
    q = GeneratedQuestion("Q one?", "23 kilometres", "factual", (("g.txt", ((1, 24, len(text)),)),),
                          (text[24:],), (("g.txt", 1, 0, len(text)),), "test")  # fmt: skip
    shown = (" ".join(text[24:].split()),)  # as the review form's text box holds it
    decisions = {0: Decision(False, "Q one?", q.answer, shown), 1: Decision(True, "Q two?", q.answer, shown)}
    out = apply_review(GenerationReport("llm", [q, q]), decisions, docs)
    assert out.questions[0].status == "rejected" and not out.questions[0].edited
    assert out.questions[0].evidence == q.evidence
    assert out.questions[1].question == "Q two?" and out.questions[1].evidence_text == q.evidence_text


class _Collection:
    name = "c"

    def __init__(self, docs):
        self._docs = docs

    def documents(self):
        return self._docs


def test_question_files_with_evidence_spans_round_trip_and_are_checked():
    text = "Glaciers carve valleys. The Aletsch Glacier is about 23 kilometres long."
    docs = [Document("g.txt", "g.txt", "x", (Page(1, text),), "txt")]
    q = gq("How long is the biggest glacier of the Alps?", evidence=text)
    absent = GeneratedQuestion("What did it cost?", "", "unanswerable", (), (), (("g.txt", 1, 0, 9),), "t")
    rejected = gq("Dropped?").reject(DUPLICATE)
    body = question_file([q, absent, rejected])
    rows = parse_question_file(body, "gen.jsonl")
    assert len(rows) == 2 and rows[0].evidence[0].spans == ((1, 0, len(text)),) and rows[1].absent
    qset = collection_question_set("gen", "gen.jsonl", rows, _Collection(docs))
    assert qset.level == "passage" and qset.questions[0].evidence[0].source == "g.txt"
    far = body.replace(f"[1, 0, {len(text)}]", "[1, 0, 999]")
    with pytest.raises(RagkitError, match=r"evidence span 1:0-999 is not in g\.txt"):
        collection_question_set("gen", "gen.jsonl", parse_question_file(far, "gen.jsonl"), _Collection(docs))
    with pytest.raises(RagkitError, match=r"gen\.jsonl: line 1: evidence_spans must be"):
        parse_question_file('{"question": "q?", "evidence_spans": [{"source": "g.txt"}]}', "gen.jsonl")
    csv_text = question_file([q, absent], "csv")
    assert csv_text.splitlines()[0] == "id,question,gold_answer,relevant_sources,evidence,type,generator"
    again = parse_question_file(csv_text, "gen.csv")  # quotes, located again over the collection
    assert again[0].quotes == (text,) and again[1].absent


def test_the_absence_check_reads_its_reply_strictly():
    """An unanswerable question is kept only on a parsed "not answered"; answered (quoted or not) and
    unparsable replies reject it, naming why."""
    from ragkit.evaluation.questiongen.absence import ANSWERED, UNCHECKED, closest, verdict
    from ragkit.evaluation.questiongen.offline import IdfTable
    from ragkit.evaluation.questiongen.passages import Passage
    from ragkit.evaluation.questiongen.records import GeneratedQuestion
    from ragkit.retrievers.analyzer import Analyzer

    pool = [
        Passage("a.txt", 1, 0, 60, "The kiln holds cone 10 for twenty minutes at the end of firing."),
        Passage("b.txt", 2, 0, 50, "Honey bees dance to show where the flowers are."),
    ]
    q = GeneratedQuestion(
        "How long does the kiln hold cone 10?", "no answer", "unanswerable", (), (), (), "t"
    )
    analyzer = Analyzer()
    terms = [(p, set(analyzer(p.text))) for p in pool]
    shown = closest(q.question, terms, IdfTable(pool, analyzer))
    assert IdfTable.of_terms([t for _, t in terms], analyzer).df == IdfTable(pool, analyzer).df
    assert [p.source for p in shown] == ["a.txt"]  # no shared term with the bees: not shown
    assert verdict('{"answered": false, "evidence": ""}', q, shown) == q
    quoted = verdict(
        '```json\n{"answered": true, "evidence": "holds cone 10 for twenty minutes"}\n```', q, shown
    )
    assert quoted.status == "rejected" and quoted.reason.startswith(f"{ANSWERED}: a.txt, page 1: “holds cone")
    unquoted = verdict('{"answered": true, "evidence": "forty minutes"}', q, shown)
    assert unquoted.reason == f"{ANSWERED} (by the checker; its quote is not in the passages shown)"
    for reply in ("Yes, it is answered.", '{"answered": "yes"}', "[true]"):
        assert verdict(reply, q, shown).reason == UNCHECKED
