"""Choosing the answer among the candidate units, and saying how well the chosen evidence answers.

- **Score** = ``0.45 × cosine(question, unit) + 0.35 × key-term coverage + 0.20 × kind match``: coverage
  weighs each of the question's terms by its rarity among the candidates (names twice; words of the
  document's title and headings count half; the words a follow-up's rewrite brought from the
  conversation a quarter), and a unit says what its phrasing implies ("longer than 64 octets": a
  maximum, a length; a byline in a document's front matter: its authors; a date there: when it was
  published); *kind match* is whether the unit holds an answer of the kind the question expects (a
  quantity not in the question for "how many": not a reference marker, an RFC's or a table's number, or
  a citation's year; a date for "when", a person's name for "who", a reason cue for "why", code for
  "how do I"). Without an expected kind the first two share the weight. A document's own date or author
  line, and a table row whose label the question names, gain a little over the rest.
- **Choice**: the best unit; when it lacks the expected kind but a unit about as relevant has it, that
  one; for "why", the neighbouring sentence that gives the reason when the best one only states the
  premise; for "when", a date on a line of its own just before the best sentence (a transcript's or a
  letter's date line) when the sentence has none; a table row comes with its header (and the other rows
  that match as well), a code block with the sentence that introduces it.
- **Answerability** in [0, 1] = ``0.45 × coverage of the chosen evidence + 0.25 × kind found + 0.30 ×
  cosine (0.25 -> 0, 0.6 -> 1)``, at most ``CAP`` when the evidence lacks a name the question asks about
  or holds only that name and none of what is asked about it: the topic being near is not enough; the
  answer's key terms and a candidate of the expected kind must be there. Missing key terms are named.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.llms.extractive.question import QuestionSpec
from ragkit.llms.extractive.signals import margin, names_in_text, qualifiers, rarest_found
from ragkit.llms.extractive.units import MONTHS, Unit, person_names

_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*(?:\s?(?:[kKMB%]|ms|s|GB|MB|KB|octets|bytes|pixels|hours|days|"
                     r"years|minutes|seconds|percent))?(?![\w])")  # fmt: skip
#: what makes a number a name rather than a quantity: a reference marker ("[4]", "[12, 13]"), or a number
#: right after an acronym or a reference word ("RFC 4180", "ISO 9001", "Table 3", "Section 2.1")
_REFERENCE_BEFORE = re.compile(
    r"(?:\[(?:\d+\s*[,–-]\s*)*|\b(?:[A-Z]{2,}|Table|Tab\.|Figure|Fig\.|Section|Sec\.|Chapter|Appendix|"
    r"Eq\.|Equation|Algorithm|Theorem|Lemma|Page|No\.)\s?)$"
)
#: a count spelled out ("six-time Grammy winner", "four of the five"); not "one" (mostly no count: "one
#: of the", "the one that"), a ratio ("three times more") or a vague amount ("millions of fields")
_NUMBER_WORD = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
    r"thousand|million|billion|dozen)\b(?!\s+times\b|s\b)",
    re.I,
)
_DATE = re.compile(
    rf"\b(?:(?:{MONTHS})\.?\s+\d{{1,2}}(?:\s*[-–]\s*\d{{1,2}})?,?\s+\d{{4}}"
    rf"|\d{{1,2}}\s+(?:{MONTHS})\s+\d{{4}}|(?:{MONTHS})\s+\d{{4}}|(?:1[89]|20)\d\d|\d{{4}}-\d\d-\d\d)\b",
    re.I,
)
_REASON = re.compile(
    r"\b(because|due to|owing to|since|as a result|so that|in order to|caused by|the reason|therefore|"
    r"thus|hence|results? from|stems? from|leads? to)\b",
    re.I,
)
_CODE = re.compile(r"`[^`]+`|^\s*[$>]\s|\b[\w.-]+\s+--[\w-]+")
_PLACE = re.compile(r"\b(room|building|floor|street|city|lab|office|campus)\b|\b(in|at)\s+[A-Z]\w+", re.I)


#: how a text states a limit or a dimension without naming it: "longer than 64 octets" answers "the
#: maximum length", "at least 8 GB" "the minimum memory" (the words a question would use, implied)
_IMPLIED = (
    (re.compile(r"\b(no (more|longer|larger) than|(more|longer|larger|greater|bigger) than|at most|up to|"
                r"must not exceed|exceeds?|not exceed|limited to)\b", re.I), "maximum max limit"),
    (re.compile(r"\b(no (fewer|less|shorter|smaller) than|(fewer|less|shorter|smaller) than|at least|"
                r"minimum of)\b", re.I), "minimum min limit"),
    (re.compile(r"\b(long|longer|longest)\b", re.I), "length"),
    (re.compile(r"\b(large|larger|largest|big|bigger|biggest)\b", re.I), "size"),
    (re.compile(r"\b(wide|wider|widest)\b", re.I), "width"),
    (re.compile(r"\b(high|higher|highest|tall|taller|tallest)\b", re.I), "height"),
    (re.compile(r"\b(heavy|heavier|heaviest)\b", re.I), "weight"),
    (re.compile(r"\b(deep|deeper|deepest)\b", re.I), "depth"),
)  # fmt: skip


#: the most answerability evidence gets when it lacks the question's subject (a name it asks about) or
#: holds nothing but the subject (none of what is asked about it)
CAP = 0.3
#: how much a question term counts when it is in the unit's document title, file name or headings only
CONTEXT = 0.75
#: a second sentence joins the best one when it scores at least this share of the best's score
RUNNER_UP = 0.8
#: the kinds of answer a document's front matter holds (its date, its authors), and the answerability of
#: one found there (a byline or an author block reads nothing like the question: its cosine is low)
FRONT_KINDS = ("date", "person")
FRONT_VALUE = 0.6
#: a table row whose label (its first cell) the question names verbatim: the question asks about that row
ROW_LABEL = 0.05
#: the key-term coverage a unit needs for its number, date or name to count as the kind asked for
MIN_KIND_COVERAGE = 0.3
#: how much a term a follow-up's rewrite brought from the conversation counts, names aside (the previous
#: question's words: they place the follow-up, the sentence that answered them is not its answer)
CONVERSATION = 0.25


@dataclass(frozen=True)
class Scored:
    score: float
    cosine: float
    coverage: float
    kind: bool
    unit: Unit


@dataclass
class Choice:
    """The chosen units and how well they answer."""

    units: list[Scored]
    answerability: float
    inputs: dict[str, Any] = field(default_factory=dict)


def unit_terms(text: str, terms_of: Callable[[str], set[str]], front: str = "") -> set[str]:
    """The terms of ``text`` and the words its phrasing implies (see ``_IMPLIED``), with ``front``: what
    a unit of a document's front matter says about the document (:func:`front_words`)."""
    implied = " ".join([*(words for rule, words in _IMPLIED if rule.search(text)), front]).strip()
    return terms_of(text) | terms_of(implied) if implied else terms_of(text)


def front_words(unit: Unit, common: frozenset[str] | set[str]) -> str:
    """What a unit of a document's front matter says about the document: a short line or block with
    people's names is its byline (who wrote it), a date there is its date (when it was published).
    ``common``: words seen in lower case nearby, which make a capitalised pair a title, not a name."""
    if not unit.front:
        return ""
    # a byline, or a header block of names and labels (an RFC's: "Network Working Group C. Okonkwo …"),
    # not prose that mentions someone
    block = unit.kind == "line" or len(re.findall(r"\b[a-z]{3,}\b", unit.text)) <= 3
    short = block and len(unit.text.split()) <= 30
    words = "author authors wrote written" if short and person_names(unit.text, common) else ""
    return f"{words} published publication" if _DATE.search(unit.text) else words


#: a question about the document itself (when it was published, who wrote it), not about an event in it
_ABOUT_DOCUMENT = re.compile(
    r"\b(?:publish\w*|publication|wr[io]te|written|writing|posted|article|story|report|paper|piece|byline|"
    r"authors?|updated)\b",
    re.I,
)
#: how a byline names its writers: "By JEFFREY GETTLEMAN", "Posted on 12 May 2024 by Ann Lee"
_BY = re.compile(r"(?:^|\s)[Bb]y\s+[A-Z]")


def byline_date(unit: Unit, spec: QuestionSpec, common: frozenset[str] | set[str]) -> bool:
    """Whether ``unit`` is a byline with a date ("By JEFFREY GETTLEMAN JAN. 13, 2017") asked "when" about
    something else: the date is when the piece was published, no answer to when an event happens (a
    transcript's or a letter's date line, with no names, is the date of what it records)."""
    return (
        unit.front
        and spec.expects == "date"
        and bool(_BY.search(unit.text))
        and not _ABOUT_DOCUMENT.search(spec.text)
        and bool(person_names(unit.text, common))
    )


def kind_found(text: str, spec: QuestionSpec, common: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether ``text`` holds an answer of the kind ``spec`` expects (always true for ``any``)."""
    kind = spec.expects
    if kind == "any":
        return True
    if kind == "number":
        asked = spec.text.lower()
        return any(quantity(text, m) and m.group(0).split()[0].rstrip(".,") not in spec.literals
                   for m in _NUMBER.finditer(text)) or any(
            w.lower() not in asked for w in _NUMBER_WORD.findall(text))  # fmt: skip
    if kind == "date":
        return any(m.group(0) not in spec.text for m in _DATE.finditer(text))
    if kind == "person":
        return any(n not in spec.text for n in person_names(text, common))
    if kind == "reason":
        return bool(_REASON.search(text))
    if kind == "code":
        return "```" in text or bool(_CODE.search(text))
    if kind == "place":
        return bool(_PLACE.search(text))
    return True


def quantity(text: str, match: re.Match[str]) -> bool:
    """Whether a number in ``text`` is a quantity that can answer "how many", not a name: a reference
    marker, the number of an RFC, a table or a section ("RFC 4180 [1]" answers no "how long"), or the
    year of a citation ("Saier and Färber (2019)", "(Ammar et al., 2018)")."""
    before = text[max(0, match.start() - 80) : match.start()]
    if _REFERENCE_BEFORE.search(before[-12:]):
        return False
    year = re.fullmatch(r"(?:1[6-9]|20)\d\d", match.group(0))
    cited = year and re.match(r"\s*[),;]", text[match.end() :]) and before.rfind("(") > before.rfind(")")
    return not cited


def row_label(row: str) -> str:
    """A Markdown table row's first cell, without emphasis ("|**PubMed Central (OA)**|2.6M|" -> "PubMed
    Central (OA)")."""
    cells = row.strip().strip("|").split("|")
    return cells[0].replace("**", "").replace("__", "").strip() if cells else ""


def named(name: str, terms: set[str]) -> bool:
    """Whether a name of the question is among ``terms``, allowing the word forms a name takes
    ("Amazon" in "Amazonian", "California" in "Californian") and, for a name of five letters or more,
    one slip of the typing ("Bedigo" for "Bendigo", "Carslbad" for "Carlsbad", "Temujin" for "Temüjin")."""
    if name in terms:
        return True
    if len(name) < 4:
        return False
    stem = name[: max(4, len(name) - 2)]
    if any(t.startswith(stem) for t in terms if len(t) >= 4):
        return True
    return len(name) >= 5 and any(one_slip(name, t) for t in terms if abs(len(t) - len(name)) <= 1)


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def one_slip(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (same first letter) differ by at most one typing slip: a letter added,
    dropped, changed or two neighbours swapped, accents aside."""
    a, b = _fold(a), _fold(b)
    if a == b:
        return True
    if not a or not b or a[0] != b[0]:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    if len(a) < len(b):  # one letter added
        return a[i:] == b[i + 1 :]
    return a[i + 1 :] == b[i + 1 :] or (a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1])


def as_asked(term: str, question: str, terms_of: Callable[[str], set[str]]) -> str:
    """A stemmed term as the question wrote it ("grammi" -> "Grammys"), to name it to a reader."""
    return next((w for w in re.findall(r"[^\W_][\w'’-]*", question) if term in terms_of(w)), term)


def lowercase_words(units: Sequence[Unit]) -> set[str]:
    """Words the candidates use in lower case: a capitalised pair of them is a title, not a name."""
    return {w for u in units for w in re.findall(r"\b[a-z]{2,}\b", u.text)}


def score_units(
    spec: QuestionSpec,
    units: Sequence[Unit],
    cosines: Sequence[float],
    terms_of: Callable[[str], set[str]],
) -> tuple[list[Scored], dict[str, float]]:
    """Every unit scored (best first) and the weight of each question term."""
    common = lowercase_words(units)
    words = [unit_terms(f"{u.header}\n{u.text}", terms_of, front_words(u, common)) for u in units]
    context = [terms_of(u.context) for u in units]
    n = len(units)
    weight = {t: math.log(1 + n / (1 + sum(t in w for w in words))) for t in spec.terms}
    for t in spec.names:
        weight[t] *= 1.5
    for t in spec.context:
        weight[t] *= CONVERSATION
    out = []
    for u, cos, w, ctx in zip(units, cosines, words, context, strict=True):
        cov = coverage(spec, weight, w, ctx, 1.0 if u.front and spec.expects in FRONT_KINDS else CONTEXT)
        # an answer of the right kind counts where the question's terms are (any number is not a count)
        read = u.text if u.kind != "row" else f"{u.header}\n{u.text}"
        kind = (spec.expects == "any" or cov >= MIN_KIND_COVERAGE) and kind_found(read, spec, common)
        typed = spec.expects != "any"
        s = 0.45 * cos + 0.35 * cov + 0.20 * kind if typed else 0.55 * cos + 0.45 * cov
        if kind and u.front and spec.expects in FRONT_KINDS:
            s += 0.05  # a document's own date or author line, over a date or name in its body
        label = row_label(u.text) if u.kind == "row" else ""
        if len(label) >= 3 and label.lower() in spec.text.lower():
            s += ROW_LABEL
        out.append(Scored(s, float(cos), cov, kind, u))
    out.sort(key=lambda x: (-x.score, x.unit.source, x.unit.position))
    return out, weight


def coverage(
    spec: QuestionSpec, weight: dict[str, float], words: set[str], context: set[str], ctx_share: float = 0.75
) -> float:
    """Share of the question's term weight found in a unit (terms of its document's title, file name or
    headings count ``ctx_share``: ``CONTEXT``, or whole in the front matter for a date or author
    question)."""
    total = sum(weight.values())
    if not total:
        return 0.0
    got = sum(weight[t] if t in words else ctx_share * weight[t] if t in context else 0.0 for t in spec.terms)
    return got / total


def choose(
    spec: QuestionSpec,
    scored: Sequence[Scored],
    weight: dict[str, float],
    terms_of: Callable[[str], set[str]],
    passages: dict[int, set[str]] | None = None,
) -> Choice:
    """The units that answer (see the module docstring), and the answerability of that evidence.
    ``passages`` maps a source number to the terms of its document: the question's subject may be named
    away from the sentence that answers ("… it reached 3,200 m" after "Everest …")."""
    common = lowercase_words([s.unit for s in scored])
    # a dated byline says when the piece appeared: no candidate for when something else happens
    scored = [s for s in scored if not byline_date(s.unit, spec, common)] or scored

    def says(s: Scored) -> set[str]:
        return unit_terms(f"{s.unit.header}\n{s.unit.text}", terms_of, front_words(s.unit, common))

    best = scored[0]
    if spec.expects not in ("any", "code") and not best.kind:
        alt = next((s for s in scored[1:8] if s.kind and s.coverage >= 0.6 * best.coverage
                    and s.score >= 0.75 * best.score), None)  # fmt: skip
        if alt is not None:
            best = alt
    asked = spec.terms - spec.names - spec.context  # what the question asks about its subject
    if asked and not asked & says(best):
        alt = next((s for s in scored[1:8] if asked & says(s)
                    and s.score >= 0.7 * best.score and (s.kind or not best.kind)), None)  # fmt: skip
        if alt is not None:
            best = alt
    if spec.expects == "code":
        code = next((s for s in scored[:8] if s.unit.kind == "code" and s.score >= 0.6 * best.score), None)
        best = code or best
    if spec.expects in FRONT_KINDS and not best.unit.front and "author" in spec.text.lower():
        # "who wrote …" about a document: its byline answers, over a name its body happens to hold
        front = next((s for s in scored[:8] if s.unit.front and s.kind and s.score >= 0.8 * best.score), None)
        best = front or best
    chosen = [best]
    if spec.expects == "date" and not best.kind and best.unit.kind == "sentence":
        # a date on a line of its own just before the sentence on the topic (a letter's) answers it
        before = {best.unit.position - 1, best.unit.position - 2}
        line = next((s for s in scored if s.unit.position in before and s.unit.source == best.unit.source
                     and s.unit.kind == "line" and kind_found(s.unit.text, spec)), None)  # fmt: skip
        if line is not None:
            chosen = [line, best]
    if spec.expects == "reason" and not _REASON.search(best.unit.text):
        after = best.unit.position + 1
        nxt = next((s for s in scored if s.unit.position == after and s.unit.source == best.unit.source
                    and s.unit.kind == "sentence" and _REASON.search(s.unit.text)), None)  # fmt: skip
        if nxt is not None:
            chosen.append(nxt)
    if len(chosen) == 1 and best.unit.kind == "sentence":
        # a runner-up of the same passage nearly as good joins it (in reading order): the sentence that
        # carries the answer when the best one frames it (never a sentence of another document: two
        # documents' halves do not make one answer)
        second = next((s for s in scored if s is not best and s.unit.kind == "sentence"
                       and s.unit.source == best.unit.source), None)  # fmt: skip
        if second is not None and second.score >= RUNNER_UP * best.score and (second.kind or not best.kind):
            chosen = sorted([best, second], key=lambda s: (s.unit.source, s.unit.position))
    if best.unit.kind == "row":
        same = [s for s in scored if s.unit.kind == "row" and s.unit.header == best.unit.header]
        chosen = [best, *[s for s in same if s is not best and s.coverage >= best.coverage > 0][:2]]
    text = " ".join(f"{s.unit.header}\n{s.unit.text}" for s in chosen)
    context = set().union(*(terms_of(s.unit.context) for s in chosen))
    front = spec.expects in FRONT_KINDS and any(s.unit.front for s in chosen)
    said = unit_terms(text, terms_of, " ".join(front_words(s.unit, common) for s in chosen))
    cov = coverage(spec, weight, said, context, 1.0 if front else CONTEXT)
    # a value of the kind asked for anywhere in the evidence, however few of the question's terms
    value_found = kind_found(text, spec, common)
    kind = (spec.expects == "any" or cov >= MIN_KIND_COVERAGE) and value_found
    cos = max(s.cosine for s in chosen)
    cos_part = min(max((cos - 0.25) / 0.35, 0.0), 1.0)
    value = 0.45 * cov + 0.25 * float(kind) + 0.30 * cos_part
    if front and kind:  # a document's own date or author, asked about the document: a metadata line
        value = max(value, FRONT_VALUE)
    found = said | context
    missing = sorted((t for t in spec.terms if t not in found), key=lambda t: -weight[t])
    # the subject is not there, or only the subject is: the topic is near, the answer is not
    around = set().union(
        *((passages or {}).get(n, set()) for s in chosen for n in s.unit.sources or (s.unit.source,))
    )
    off_subject = any(not named(n, found | around) for n in spec.names)
    elsewhere = all(named(n, set().union(found, *(passages or {}).values())) for n in spec.names)
    # "number" in "What port number …" names the kind asked for, not what is asked about
    about = asked - terms_of("number") if spec.expects == "number" else asked
    only_subject = bool(about) and not (about & found) and not front
    if off_subject or only_subject:
        value = min(value, CAP)
    inputs = {
        "expects": spec.expects,
        "kind_found": kind,
        "value_found": value_found,
        "coverage": round(cov, 4),
        "cosine": round(cos, 4),
        "missing_terms": [as_asked(t, spec.text, terms_of) for t in missing[:5]],
        **({"missing_subject": True, "subject_elsewhere": elsewhere} if off_subject else {}),
        **({"only_subject": True} if only_subject else {}),
        # what the answer confidence reads beside the above (ragkit.pipeline.answer_confidence)
        **qualifiers(spec, text),
        "names_in_text": names_in_text(spec, text, terms_of),
        "margin": margin(chosen, scored),
        "rarest_found": rarest_found(spec, weight, found),
    }
    return Choice(chosen, round(min(max(value, 0.0), 1.0), 4), inputs)
