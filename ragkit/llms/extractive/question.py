"""What a question asks for: the kind of answer it expects (a number for "how many", a person for "who",
a date for "when", a reason for "why", code for "how do I") and its key terms (the words an answer must
be about, names weighted most). A follow-up rewritten with the previous question's words ("What changed
in it? contributors Orbit 2.0") asks what its own words ask; the added names say what "it" is, the other
added words are context. Pure functions, no model."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the kinds of answer a question can expect; ``any`` when the wording does not say
EXPECTS = ("number", "person", "date", "reason", "code", "place", "any")

_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did can could would should is are was were "
    "many much tell me please give name list find show explain describe the a an of in on for to with "
    "i we you it its this that there their have has had be been being".split()
)
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("code", re.compile(r"^\s*how\s+(do|can|should|would)\s+(i|you|we|one)\b|\bhow\s+to\b|\b(command|"
                        r"snippet|example code|code example|code for|syntax)\b", re.I)),
    ("reason", re.compile(r"^\s*why\b|\b(what is|what's|what was) the (reason|cause|motivation)\b|"
                          r"\bfor what reason\b|\bwhat (causes|caused)\b", re.I)),
    ("date", re.compile(r"^\s*when\b|\b(what|which|in which|in what) (year|date|day|month)\b|"
                        r"\bsince when\b|^\s*(what|which) (is|was|are|were) the (\w+ ){0,2}(date|deadline|"
                        r"day|year)\b", re.I)),
    ("person", re.compile(r"^\s*(who|whom|whose)\b|\b(which|what) (person|author|researcher|maintainer|"
                          r"people|team)\b|\b(first|last|lead|corresponding) author\b|\bwritten by\b", re.I)),
    ("place", re.compile(r"^\s*where\b|\bin which (room|city|country|building|place)\b", re.I)),
    ("number", re.compile(r"^\s*how\s+(many|much|long|large|big|old|far|often|fast|high|tall|wide|"
                          r"heavy|small)\b|\b(what|which) (is|was|are|were) the (\w+ ){0,3}(number|"
                          r"percentage|rate|size|length|latency|count|amount|duration|maximum|minimum|"
                          r"cost|price|speed|throughput|limit|ratio)\b|\bhow many\b|"
                          r"^\s*(what|which) (percentage|proportion|fraction|share|number|amount)\b|"
                          r"^\s*(what|which) (\w+ )?(number|version|port)\b|"
                          # a measured quantity asked for by name ("what F1 did …", "what bone mineral
                          # density did …"), or a cost ("… will the test cost?")
                          r"(?:^\s*|[,;]\s*)(what|which) (\w+ ){0,2}(score|f1|accuracy|map|precision|recall|"
                          r"rate|cost|price|fee|density|temperature|pressure|distance|weight|height|"
                          r"duration|speed|salary|budget|total)\b|^\s*(what|how much)\b.*\bcost\b", re.I)),
)  # fmt: skip

#: a name: a capitalised word (any alphabet), or a word with capitals or digits inside ("S2ORC", "XYLayoutLM")
NAME = re.compile(r"\b[A-Z][\w\-]*[A-Z0-9][\w\-]*\b|\b[A-Z][^\W\d_]+\b")  # letters beyond a-z: "Temüjin"
#: a quoted phrase: in double quotes, or in single quotes that open and close outside a word (an
#: apostrophe is not a quote: "Yuan's … shouldn't" quotes nothing)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|(?<!\w)[‘']([^'’]{2,60})[’'](?!\w)")
_IDENT = re.compile(r"`([^`]+)`|\b\w+[_.]\w+\b|--[\w-]+")


@dataclass(frozen=True)
class QuestionSpec:
    """A question's expected answer kind and its key terms (analysed like BM25 terms: stemmed)."""

    text: str
    expects: str
    terms: frozenset[str]
    names: frozenset[str]  # terms of names, identifiers and quoted phrases: the answer must be about them
    literals: frozenset[str]  # numbers and codes the question itself contains (not an answer)
    #: terms a follow-up's rewrite added from the conversation, names aside: they place the question,
    #: they are not what it asks
    context: frozenset[str] = frozenset()
    #: what a sentence that answers reads like: the question in its own words, with the names a
    #: follow-up's rewrite added (the previous question's other words would pull toward its answer)
    focus: str = ""


#: a name of capitalised words after the question's first word ("the Speed Trim System", "Ethiopian
#: Airlines Flight"): its words name a thing, they do not say what kind of answer is asked for
_TITLED = re.compile(r"(?<=\s)[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)+")


def expected_kind(question: str) -> str:
    """The kind of answer the wording asks for (first rule that matches, else ``any``), names of
    capitalised words aside ("What is the Speed Trim System?" asks for no speed)."""
    wording = _TITLED.sub("X", question)
    for kind, rule in _RULES:
        if rule.search(wording):
            return kind
    return "any"


#: a follow-up that asks what the previous question asked, about another subject ("And in the Ethiopian
#: crash?", "What about RoBERTa?"): it starts with a connective
_ELLIPTIC = re.compile(r"^\s*(and|what about|how about|but|or|same for)\b", re.I)


def analyze(question: str, terms_of, follow_up: str = "", previous: str = "") -> QuestionSpec:
    """The spec of ``question``; ``terms_of(text)`` turns text into terms (the BM25 analyzer).
    ``follow_up``: the words a rewrite appended to ``question`` from the conversation ("What changed in
    it? Orbit 2.0 contributors"): its names are the subject's, its other words only context.
    ``previous``: the question it continues. An elliptic follow-up ("And in the Ethiopian Airlines
    accident?") asks what ``previous`` asked ("How many people were killed …": a number) about the
    subject it names itself: the previous question's names are then its context, not its subject."""
    tail = follow_up and question.endswith(follow_up)
    own = question[: len(question) - len(follow_up)] if tail else question
    added = question[len(own) :]
    elliptic = bool(added and previous and _ELLIPTIC.match(own))
    stop = terms_of(" ".join(_QUESTION_WORDS))
    content = {t for t in terms_of(question) if t not in stop}
    names = [w for w in re.findall(r"\w+", own)[1:] if NAME.fullmatch(w)]
    names += [a or b for a, b in _QUOTED.findall(own)]
    names += [m.group(1) or m.group(0) for m in _IDENT.finditer(own)]
    referents = [w for w in re.findall(r"\w+", added) if NAME.fullmatch(w)]
    if elliptic and names:
        referents = []  # it names its own subject: the previous one's names are replaced, not kept
    names += referents
    name_terms = {t for t in terms_of(" ".join(names))} & content
    context = frozenset(terms_of(added) - terms_of(own) - name_terms) & content
    replaced = elliptic and bool(names) and not referents
    literals = frozenset(re.findall(r"\d[\d.,]*", own if replaced else question))
    focus = " ".join([own.strip(), *referents]) if added else question
    if replaced:  # what is asked comes from the previous question, without its subject
        focus = " ".join(
            [own.strip(), *(w for w in added.split() if not NAME.fullmatch(w) and not w.isdigit())]
        )
    kind = expected_kind(own)
    if elliptic and kind == "any":
        kind = expected_kind(previous)  # "And in 2019?" after "How many …?": a number again
    return QuestionSpec(question, kind, frozenset(content), frozenset(name_terms), literals, context, focus)
