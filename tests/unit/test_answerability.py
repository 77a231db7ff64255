"""Unit tests of :mod:`ragkit.pipeline.answerability`: the decision between answering and abstaining
from the retrieval gauge and the reader's answerability, and the answerability's round trip."""

from __future__ import annotations

from ragkit.pipeline.answer_confidence import answer_confidence
from ragkit.pipeline.answerability import RESCUE, RULED_OUT, Answerability, decide, from_llm

#: what the reader measures over a passage that answers: every key term, the kind asked for, a clear margin
STRONG = dict(coverage=1.0, cosine=0.8, kind_found=True, margin=0.6, same_document=1.0)
#: and over one that does not: few key terms, a weak cosine, no margin over the next candidate
WEAK = dict(coverage=0.1, cosine=0.3, kind_found=False, margin=0.0)


def reader(value: float, retrieval: float, **inputs) -> Answerability:
    return Answerability(value, 0.4, "reader", inputs, retrieval)


def test_the_fitted_answer_confidence_decides():
    assert decide(False, None, reader(0.9, 0.8, **STRONG)) is None
    weak = reader(0.3, 0.6, missing_terms=["budget"], **WEAK)
    why = decide(False, None, weak)
    assert weak.answer_confidence < 0.4
    assert why and f"answer confidence {weak.answer_confidence:.2f}" in why
    # the terms missing from the passage it would answer from: "they do not mention “Microsoft's”" was
    # read as every passage, beside the retrieved passages of the Microsoft article
    assert "the passage it would answer from does not mention “budget”" in why


def test_more_of_the_questions_terms_found_raises_the_answer_confidence():
    low = reader(0.6, 0.7, **{**STRONG, "coverage": 0.2}).answer_confidence
    high = reader(0.6, 0.7, **STRONG).answer_confidence
    assert 0.0 <= low < high <= 1.0


def test_a_name_the_evidence_never_mentions_refuses_whatever_the_gauges():
    why = decide(False, None, reader(0.9, 0.9, missing_subject=True, missing_terms=["github", "star"]))
    assert why and "the passages never mention “github”" in why


def test_a_name_another_passage_mentions_is_not_said_to_be_in_none_of_them():
    """The reader would quote a passage without "Kenya" while another retrieved passage has it: saying the
    passages never mention Kenya was false."""
    inputs = {"missing_subject": True, "subject_elsewhere": True, "missing_terms": ["Kenya"]}
    why = decide(False, None, reader(0.9, 0.9, **inputs))
    assert why and "the passage it would answer from never mentions “Kenya”; another does" in why


def test_a_low_retrieval_gauge_refuses_unless_the_reader_found_a_strong_answer():
    low = "retrieval confidence 0.22 is below"
    assert decide(True, low, reader(0.6, 0.22, **STRONG)).startswith("retrieval")
    assert decide(True, low, reader(RESCUE, 0.22, **STRONG)) is None  # rescued


def test_a_models_i_dont_know_is_an_abstention_and_a_grader_share_is_shown():
    assert decide(False, None, from_llm(True, {}, 0.4)) == "the model found no answer in the sources"
    graded = from_llm(False, {"grades": [{"relevant": True}, {"relevant": False}]}, 0.4)
    assert graded.value == 0.5 and graded.basis == "grader" and decide(False, None, graded) is None
    assert from_llm(False, {}, 0.4).value is None  # not measured


def test_it_round_trips_with_its_retrieval_gauge():
    a = reader(0.7, 0.5, expects="number", **STRONG)
    back = Answerability.from_dict(a.to_dict())
    assert back == a and back.answer_confidence == a.answer_confidence == a.to_dict()["answer_confidence"]
    graded = Answerability.from_dict(Answerability(0.5, 0.4, "grader", {}, 0.7).to_dict())
    assert graded.answer_confidence == 0.6  # a language model's: the mean of its two gauges


def test_evidence_with_the_subject_alone_and_no_kind_asked_for_refuses():
    """What port number does KVL use? over KVL's introduction: the subject is there, nothing asked
    about it is, and no number: refused whatever the gauges, with a reason that says so."""
    off = dict(STRONG, only_subject=True, expects="number", kind_found=False, missing_terms=["port"])
    why = decide(False, None, reader(0.5, 0.8, **off))
    assert why and "only the subject" in why and "“port”" in why and "no number" in why
    assert decide(False, None, reader(0.5, 0.8, **{**off, "kind_found": True})) is None  # a number is there
    assert decide(False, None, reader(0.5, 0.8, **{**off, "expects": "any"})) is None  # none asked for


def test_no_value_of_the_kind_asked_for_refuses_and_the_confidence_says_so():
    """When will the sanctions on Sudan be lifted? over a sentence that they are: every term is there,
    no date is. Before, the gauges answered it at 0.8; an answer a rule refuses is not shown as likely
    right."""
    asked = dict(STRONG, expects="date", kind_found=False, value_found=False)
    assert answer_confidence(asked, 0.75, 0.99) >= 0.4  # what the fitted model alone says of such evidence
    refused = reader(0.75, 0.99, **asked)
    why = decide(False, None, refused)
    assert why and "no date that answers it" in why
    assert refused.answer_confidence <= RULED_OUT < 0.4
    assert (
        decide(False, None, reader(0.75, 0.99, **{**asked, "expects": "reason"})) is None
    )  # cues miss reasons
