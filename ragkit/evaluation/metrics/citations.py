"""Does each citation support the sentence that cites it? An offline check, no LLM needed.

For every answer sentence with citations, each cited chunk is scored against the sentence:

- **semantic**: the highest cosine (all-MiniLM-L6-v2, ``CHECK_MODEL``, whatever model the pipeline
  retrieves with) between the sentence and the chunk's sentences (a citation supports one statement,
  rarely a whole chunk);
- **lexical**: the share of the sentence's content words (stemmed, stop words out) found in the chunk;
- **key**: the share of the sentence's key terms (numbers, and capitalised words past the first) found in
  the chunk: a swapped year or name barely moves the other two signals.

A citation *supports* its sentence when all three reach their threshold (``SEMANTIC_MIN``,
``LEXICAL_MIN``, ``KEY_MIN``). The thresholds were chosen on labelled (sentence, chunk) pairs built from
XQuAD's first 120 paragraphs (``bench/citation_pairs.py``: a claim made of a question and its gold answer
against the chunk holding the answer = supported; against a same-article chunk without it, or with
another answer of that article swapped in = not), maximising F1 there; the detector's precision and
recall on the other 120 paragraphs are in BENCHMARKS.md (test F1 0.81; 0.76 without the key terms).

Per answer: **citation precision** = cited (sentence, chunk) pairs that support / all cited pairs;
**citation recall** = sentences that some retrieved chunk supports and that carry a supporting citation /
sentences that some retrieved chunk supports. A judge LLM can replace the offline decision
(:func:`llm_support`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.ingestion.chunkers.sentence import sentences

#: chosen on the development half of the labelled pairs (see the module docstring and BENCHMARKS.md)
SEMANTIC_MIN = 0.35
LEXICAL_MIN = 0.5
KEY_MIN = 0.75
#: the embedding model the thresholds were chosen for: the check always uses it, whatever model the
#: pipeline retrieves with (another model's cosines live on another scale)
CHECK_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass
class SentenceCheck:
    sentence: str
    cited: list[int]  # source numbers (1-based) cited by the sentence
    supported_by: list[int] = field(default_factory=list)  # cited sources that support it
    unsupported: list[int] = field(default_factory=list)  # cited sources that do not
    supportable: bool = False  # some retrieved source supports it (cited or not)
    span: tuple[int, int] = (0, 0)  # where the sentence (and its markers) sits in the answer
    #: source -> (semantic, lexical, key)
    scores: dict[int, tuple[float, float, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentence": self.sentence,
            "span": list(self.span),
            "cited": self.cited,
            "supported_by": self.supported_by,
            "unsupported": self.unsupported,
            "supportable": self.supportable,
            "scores": {str(k): [round(x, 4) for x in v] for k, v in self.scores.items()},
        }


@dataclass
class CitationCheck:
    sentences: list[SentenceCheck]
    precision: float | None  # None when nothing is cited
    recall: float | None  # None when no sentence is supportable
    method: str = "offline"
    #: cited source number -> does that passage answer the question itself ({"answers", "why", …})
    answers_question: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def unsupported(self) -> list[int]:
        """Source numbers cited somewhere without supporting their sentence."""
        return sorted({n for s in self.sentences for n in s.unsupported})

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "method": self.method,
            "unsupported": self.unsupported,
            "sentences": [s.to_dict() for s in self.sentences],
            "answers_question": {str(n): v for n, v in self.answers_question.items()},
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CitationCheck:
        """A check back from :meth:`to_dict` (a restored chat)."""
        checks = [
            SentenceCheck(
                x["sentence"],
                list(x["cited"]),
                list(x["supported_by"]),
                list(x["unsupported"]),
                bool(x["supportable"]),
                (int(x["span"][0]), int(x["span"][1])),
                {int(k): tuple(v) for k, v in x.get("scores", {}).items()},  # type: ignore[misc]
            )
            for x in d.get("sentences", [])
        ]
        answers = {int(n): dict(v) for n, v in (d.get("answers_question") or {}).items()}
        return cls(checks, d.get("precision"), d.get("recall"), d.get("method", "offline"), answers)

    def summary(self) -> str:
        """One line for a reader: how many citations support their sentence, which do not."""
        pairs = sum(len(s.cited) for s in self.sentences)
        if not pairs:
            return "Citation check: the answer cites no source for any of its claims."
        good = sum(len(s.supported_by) for s in self.sentences)
        how = (
            "an LLM judge"
            if self.method == "llm"
            else "offline: sentence embedding, word overlap and key terms"
        )
        line = f"Citation check ({how}): {good} of {pairs} citations support their sentence"
        if self.unsupported:
            line += "; " + ", ".join(f"[{n}]" for n in self.unsupported) + " cited without support"
        # the question verdict (answers_question) is recorded, not summarised: on the sealed held-out
        # pairs it flags passages that answer as often as ones that do not (BENCHMARKS.md)
        return line + "."


def cited_sentences(
    text: str, n_sources: int = 10**6, style: str = "numbered", urls: Sequence[str] = ()
) -> list[tuple[str, list[int]]]:
    """The answer's sentences with the source numbers each cites, in the prompt style's citation syntax
    (``[n]``, "Context 2", ``source id="2"``, a link to a source's url). A marker standing alone right
    after a sentence's period belongs to that sentence: "It was 1868. [1]"."""
    return [(c, n) for c, n, _ in _claims(text, n_sources, style, urls)]


def _claims(
    text: str, n_sources: int, style: str, urls: Sequence[str]
) -> list[tuple[str, list[int], tuple[int, int]]]:
    """:func:`cited_sentences` with each sentence's span in ``text`` (its citation markers included)."""
    from ragkit.pipeline.citations import parse_citations

    out: list[tuple[str, list[int], tuple[int, int]]] = []
    for s, e in sentences(text):
        piece = text[s:e]
        # markers before the piece's first word close the previous sentence ("… Seine. [2] Yes.")
        lead = 0
        for a, b in sorted(parse_citations(piece, n_sources, style, urls).spans):
            if piece[lead:a].strip():
                break
            lead = b
        if lead and out:
            clean, numbers, (ps, _) = out[-1]
            numbers.extend(parse_citations(piece[:lead], n_sources, style, urls).markers)
            out[-1] = (clean, numbers, (ps, s + lead))
            piece, s = piece[lead:], s + lead
        report = parse_citations(piece, n_sources, style, urls)
        clean = piece
        for a, b in sorted(report.spans, reverse=True):
            clean = clean[:a] + clean[b:]
        if style == "xml":
            clean = re.sub(r"\s*/?>", "", clean)  # the rest of a <source id="1"/> tag
        clean = " ".join(clean.split())
        if clean and re.search(r"\w", clean):
            if out and _table_goes_on(text, out[-1], s, piece):  # a table's rows are one claim
                was, numbers, (ps, _) = out[-1]
                out[-1] = (f"{was} {clean}", [*numbers, *report.markers], (ps, e))
                continue
            out.append((clean, list(report.markers), (s, e)))
    return out


def _table_goes_on(text: str, last: tuple[str, list[int], tuple[int, int]], s: int, piece: str) -> bool:
    """Whether ``piece`` (at ``s`` in ``text``) is a Markdown table row of the table the claim ``last``
    is: a table cited once after its last row (an extractive answer's table and its "[1]") cites all of
    it, and a row of one word ("| | complete |") is no claim of its own."""
    if not (piece.lstrip().startswith("|") and last[0].startswith("|")):
        return False
    between = text[last[2][1] : s]
    return all(not line.strip() or line.strip().startswith("|") for line in between.splitlines())


def unsupported_markers(text: str, check: CitationCheck) -> list[list[int]]:
    """For each ``[n]`` marker of ``text`` in order (the markers :func:`ragkit.pipeline.citations.renumber`
    rewrites one for one), the source numbers in it that do not support the sentence it closes."""
    from ragkit.pipeline.citations import _MARKER, parse_citations

    bad_by_span = [(c.span, set(c.unsupported)) for c in check.sentences if c.unsupported]
    out: list[list[int]] = []
    for m in _MARKER.finditer(text):
        numbers = parse_citations(m.group(0), 10**6).markers
        bad = next((b for (a, z), b in bad_by_span if a <= m.start() < z), set())
        out.append([n for n in numbers if n in bad])
    return out


_TOKEN = re.compile(r"\d[\d,.]*\d|\d|[^\W\d_]+(?:['’][^\W\d_]+)?")


_PARAGRAPH = re.compile(r"\n\s*\n")


def _tokens(text: str) -> list[str]:
    return [t.replace(",", "").rstrip(".") for t in _TOKEN.findall(text)]


def key_terms(sentence: str) -> set[str]:
    """The words a claim hinges on: numbers and names (capitalised words past the first), lowercased.
    A swapped year or name barely moves the embedding or the word overlap; it breaks this."""
    raw = _TOKEN.findall(sentence)
    out = set()
    for i, t in enumerate(raw):
        if t[0].isdigit() or (i > 0 and t[0].isupper()):
            out.add(t.replace(",", "").rstrip(".").lower())
    return out


class _Source:
    """A source's sentence vectors, content words and tokens, computed once per answer."""

    def __init__(self, text: str, embedder: Any, analyzer: Any) -> None:
        # a paragraph break ends a statement too: a title, a byline and an abstract's first sentence
        # without a full stop between them are three things a sentence may cite
        parts = [p for s, e in sentences(text) for p in _PARAGRAPH.split(text[s:e]) if p.strip()] or [text]
        self.vectors = embedder.embed(parts)
        self.terms = set(analyzer(text))
        self.tokens = {t.lower() for t in _tokens(text)}
        self.text = text

    def scores(self, vector: Any, words: set[str], keys: set[str]) -> tuple[float, float, float]:
        semantic = float(max(self.vectors @ vector)) if len(self.vectors) else 0.0
        return semantic, *_overlap(words, keys, self.terms, self.tokens)


def _overlap(words: set[str], keys: set[str], terms: set[str], tokens: set[str]) -> tuple[float, float]:
    """``(lexical, key)``: the share of a sentence's content words among a text's terms, and of its key
    terms among the text's tokens."""
    lexical = len(words & terms) / len(words) if words else 0.0
    return lexical, (len(keys & tokens) / len(keys) if keys else 1.0)


def pair_scores(sentence: str, chunk_text: str, embedder: Any, analyzer: Any) -> tuple[float, float, float]:
    """``(semantic, lexical, key)`` support of a sentence by a chunk (see the module docstring)."""
    return _Source(chunk_text, embedder, analyzer).scores(
        embedder.embed([sentence])[0], set(analyzer(sentence)), key_terms(sentence)
    )


def lexical_scores(sentence: str, text: str, analyzer: Any) -> tuple[float, float]:
    """``(lexical, key)`` support of a sentence by a text: the two signals that need no embedding."""
    return _overlap(
        set(analyzer(sentence)), key_terms(sentence), set(analyzer(text)), {t.lower() for t in _tokens(text)}
    )


def supports(semantic: float, lexical: float, key: float = 1.0) -> bool:
    """The offline decision: every signal at or above its threshold."""
    return semantic >= SEMANTIC_MIN and lexical >= LEXICAL_MIN and key >= KEY_MIN


def check_citations(
    text: str,
    sources: Sequence[str],
    embedder: Any,
    decide: Callable[[str, str], bool] | None = None,
    style: str = "numbered",
    urls: Sequence[str] = (),
) -> CitationCheck:
    """Check every citation of an answer against the source texts it cites (``sources[i]`` is source
    ``i + 1``); ``decide(sentence, source_text)`` replaces the offline decision (an LLM check) for the
    cited pairs (uncited ones still use the offline signal, for recall)."""
    from ragkit.retrievers.analyzer import Analyzer

    analyzer = Analyzer()
    claims = [
        (s, c, span)
        for s, c, span in _claims(text, len(sources), style, urls)
        if len(re.findall(r"\w+", s)) >= 3  # "Yes." carries no claim to check
    ]
    if not claims:
        return CitationCheck([], None, None, "llm" if decide is not None else "offline")
    prepared = [_Source(t, embedder, analyzer) for t in sources]
    vectors = embedder.embed([s for s, _, _ in claims])
    checks: list[SentenceCheck] = []
    pairs = supported_pairs = 0
    for (sentence, cited, span), vector in zip(claims, vectors, strict=True):
        words, keys = set(analyzer(sentence)), key_terms(sentence)
        check = SentenceCheck(sentence, sorted({n for n in cited if 1 <= n <= len(sources)}), span=span)
        for n, src in enumerate(prepared, start=1):
            sem, lex, key = src.scores(vector, words, keys)
            check.scores[n] = (sem, lex, key)
            cited_here = n in check.cited
            ok = decide(sentence, src.text) if decide is not None and cited_here else supports(sem, lex, key)
            check.supportable |= ok
            if cited_here:
                (check.supported_by if ok else check.unsupported).append(n)
        if check.unsupported and len(check.cited) > 1:
            # a sentence that spans the edge of two chunks cites both: together they support it
            joined = "\n".join(sources[n - 1] for n in check.cited)
            union = _Source(joined, embedder, analyzer)
            ok = (
                decide(sentence, joined)
                if decide is not None
                else supports(*union.scores(vector, words, keys))
            )
            if ok:
                check.supported_by, check.unsupported = list(check.cited), []
                check.supportable = True
        pairs += len(check.cited)
        supported_pairs += len(check.supported_by)
        checks.append(check)
    supportable = [c for c in checks if c.supportable]
    precision = supported_pairs / pairs if pairs else None
    recall = sum(bool(c.supported_by) for c in supportable) / len(supportable) if supportable else None
    return CitationCheck(checks, precision, recall, "llm" if decide is not None else "offline")


def annotate(answer: Any, embedder: Any) -> CitationCheck:
    """The answer's citation check, computed once and kept in ``answer.trace["citation_check"]`` (so a
    restored chat shows it without recomputing). Runs after the answer: never part of its latency."""
    stored = answer.trace.get("citation_check")
    if isinstance(stored, dict):
        return CitationCheck.from_dict(stored)
    check = check_answer(answer, embedder)
    answer.trace["citation_check"] = check.to_dict()
    return check


def check_answer(
    answer: Any, embedder: Any, decide: Callable[[str, str], bool] | None = None
) -> CitationCheck:
    """:func:`check_citations` for a pipeline :class:`~ragkit.pipeline.Answer` (its hits are the numbered
    sources, its prompt style says how citations are written); an abstention has nothing to check."""
    if answer.abstained or not answer.hits:
        return CitationCheck([], None, None, "offline" if decide is None else "llm")
    from ragkit.llms.extractive.judge import passage_answers
    from ragkit.pipeline.prompts import source_url

    check = check_citations(
        answer.text,
        [h.chunk.text for h in answer.hits],
        embedder,
        decide,
        answer.prompt_style,
        [source_url(h) for h in answer.hits],
    )
    cited = sorted({n for s in check.sentences for n in s.cited if 0 < n <= len(answer.hits)})
    question = answer.query or answer.question  # a follow-up as searched (with what it refers to)
    check.answers_question = {n: passage_answers(question, answer.hits[n - 1].chunk.text, embedder).to_dict()
                              for n in cited}  # fmt: skip
    return check


def llm_support(llm: Any) -> Callable[[str, str], bool]:
    """A judge LLM's yes/no on "does this source support this sentence?" (unparsable: not supported)."""
    from ragkit.core.types import Message
    from ragkit.llms.base import GenerationRequest
    from ragkit.pipeline.stages import parse_yes_no

    def decide(sentence: str, source: str) -> bool:
        prompt = (
            "Does the source support the sentence (everything the sentence claims can be read in the "
            f"source)? Answer yes or no.\n\nSource:\n{source[:4000]}\n\nSentence: {sentence}"
        )
        req = GenerationRequest([Message("user", prompt)], prompt, sentence, (), 0.0, 8, ())
        return parse_yes_no(llm.generate(req).text) is True

    return decide
