"""The extractive backend: no language model. It answers with what the retrieved chunks say that best
matches the question, each piece followed by its citation. Instant, deterministic, always grounded —
the default when no Groq key or Ollama server is available.

What it answers with, and why:

- **Units** are the sentences of each retrieved chunk (completed from the page when the chunk's edge cuts
  one) and, inside Markdown tables, the table's *rows*: a table is never one giant "sentence".
- **Headings are never an answer** (``# Methods``, a heading line, a short paragraph of its own with no
  sentence punctuation: a PDF heading or a table title), nor are fragments under four words.
- **Score** = ``0.6 × cosine(question, unit) + 0.4 × share of the question's content words (stemmed) in
  the unit``, each word weighted by its inverse frequency among the candidates: the words a user asks
  about must be there, not just the topic (and "California" outweighs a column name every row shares;
  names — capitalised words after the first — count double).
- **Rows**: when the best unit is a table row, the answer is that table's header with the rows that match
  best (at most three), as a small Markdown table — "Texas total" gives the Texas row, not 5,000
  characters of pipes.
- **Length**: at most ``max_sentences`` sentences of at most ``max_chars`` characters each (longer ones
  are cut at a word with "…").
- **Abstains** (the fallback sentence) when no unit matches: best cosine below ``min_similarity`` and not
  one content word of the question in it.

Every step is linear in the size of the retrieved chunks (a neighbourhood of each chunk is read from its
page, never the whole page).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component
from ragkit.ingestion.chunkers.base import table_regions
from ragkit.ingestion.chunkers.sentence import paragraphs, sentences
from ragkit.llms.base import FALLBACK_ANSWER, Generation, GenerationRequest, LLMContext

#: how far around a chunk its page is read to complete the sentences its edges cut
_MARGIN = 600
_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did can could would should is are was were "
    "many much tell me please give name list find show".split()
)
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Unit:
    """A candidate piece of an answer: a sentence, or a table row with its table's header."""

    source: int  # 1-based source number
    position: int
    text: str
    header: str = ""  # table rows: the header row and rule


class ExtractiveReader:
    """Answers with the source sentences (or table rows) that best match the question: a reader, not a
    language model (it writes nothing of its own).

    Args:
        embedder: any object with ``embed(texts)`` and ``embed_query(text)`` returning unit vectors.
        max_sentences: how many sentences make a prose answer.
        min_similarity: below this cosine, a unit with none of the question's content words is no answer.
        store: the index the sources come from; with it, a sentence cut by the chunk's edge is completed
            from the page text (a sliding window does not stop at sentence ends).
        max_chars: the longest sentence quoted whole; longer ones are cut at a word.
    """

    component = Component(
        "llm",
        "extractive",
        "no language model: the retrieved sentences closest to the question, each cited",
        generative=False,
    )
    name = "extractive"

    @classmethod
    def from_context(cls, ctx: LLMContext) -> ExtractiveReader:
        if ctx.embedder is None:
            raise ConfigError("the extractive backend needs the index's embedder")
        return cls(ctx.embedder, store=ctx.store, **({"fallback": ctx.fallback} if ctx.fallback else {}))

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        """Why it cannot run here: never (it needs nothing)."""
        return None

    def __init__(
        self,
        embedder: Any,
        max_sentences: int = 2,
        min_similarity: float = 0.2,
        store: Any | None = None,
        max_chars: int = 400,
        fallback: str = FALLBACK_ANSWER,
    ) -> None:
        self.fallback = fallback
        self.embedder = embedder
        self.model = f"extractive:{embedder.model_id}"
        self.max_sentences = max_sentences
        self.min_similarity = min_similarity
        self.store = store
        self.max_chars = max_chars
        self._analyzer = None

    # -------------------------------------------------------------- units

    def _pieces(self, chunk: Any) -> list[tuple[str, int, int]]:
        """(text, lo, hi) per span: the text the chunk's sentences are read from, and the chunk's part."""
        doc = self.store.documents.get(chunk.doc_id) if self.store is not None else None
        if doc is None or not chunk.spans:
            return [(chunk.text, 0, len(chunk.text))]
        return [(doc.pages[sp.page - 1].text, sp.start, sp.end) for sp in chunk.spans]

    def units(self, n: int, chunk: Any, tables: dict[int, list] | None = None) -> list[Unit]:
        """The chunk's sentences and table rows, in order (whole sentences from the page when possible).

        ``tables`` caches each page's table regions for one answer (a page is scanned once, not per chunk).
        """
        tables = {} if tables is None else tables
        out: list[Unit] = []
        seen: set[tuple[int, int]] = set()
        for text, lo, hi in self._pieces(chunk):
            regions = tables.get(id(text))
            if regions is None:
                regions = tables[id(text)] = table_regions(text)
            w_lo, w_hi = _neighbourhood(text, lo, hi)
            for p_start, p_end in paragraphs(text, w_lo, w_hi):
                if p_end <= lo or p_start >= hi:
                    continue
                for s, e in sentences(text, p_start, p_end):
                    if s >= hi or e <= lo or (s, e) in seen:
                        continue
                    seen.add((s, e))
                    raw = text[s:e]
                    if raw.lstrip().startswith("|"):
                        table = _table_at(regions, s)
                        if table is None or s < table[1]:
                            continue  # the header row or rule itself, or a row of a headerless table
                        out.append(Unit(n, len(out), raw.strip(), text[table[0] : table[1]]))
                    elif _is_answer_sentence(raw, chunk, whole_paragraph=(s, e) == (p_start, p_end)):
                        out.append(Unit(n, len(out), " ".join(raw.split())))
        return out

    # -------------------------------------------------------------- scoring

    def _terms(self, text: str) -> set[str]:
        if self._analyzer is None:
            from ragkit.retrievers.analyzer import Analyzer

            self._analyzer = Analyzer()
        return set(self._analyzer(text))

    def score(self, request: GenerationRequest) -> list[tuple[float, float, float, Unit]]:
        """``(score, cosine, word overlap, unit)`` for every candidate unit, best first."""
        candidates: list[Unit] = []
        seen: set[str] = set()
        tables: dict[int, list] = {}
        for n, hit in enumerate(request.sources, start=1):
            for u in self.units(n, hit.chunk, tables):
                if u.text not in seen:  # overlapping chunks repeat sentences
                    seen.add(u.text)
                    candidates.append(u)
        if not candidates:
            return []
        stop = self._terms(" ".join(_QUESTION_WORDS))
        q_terms = {t for t in self._terms(request.question) if t not in stop}
        q = self.embedder.embed_query(request.question)
        vecs = self.embedder.embed([(u.header + "\n" + u.text) if u.header else u.text for u in candidates])
        sims = vecs @ q
        # a row is read with its header: "permit checks in California" matches the Permit column too
        words = [self._terms(f"{u.header}\n{u.text}" if u.header else u.text) for u in candidates]
        # a question word found in few candidates says more than one found in all (every row has the
        # header's words): weight each by its inverse document frequency over the candidates
        n = len(candidates)
        weight = {t: math.log(1 + n / (1 + sum(t in w for w in words))) for t in q_terms}
        for t in self._terms(" ".join(_names(request.question))) & q_terms:
            weight[t] *= 2  # a name the user asks about ("California") is what the answer must hold
        total = sum(weight.values())
        scored = []
        for u, sim, w in zip(candidates, sims, words, strict=True):
            overlap = sum(weight[t] for t in q_terms & w) / total if total else 0.0
            scored.append((0.6 * float(sim) + 0.4 * overlap, float(sim), overlap, u))
        # best first; ties go to the better-ranked source, then the earlier unit
        scored.sort(key=lambda x: (-x[0], x[3].source, x[3].position))
        return scored

    # -------------------------------------------------------------- answering

    def generate(self, request: GenerationRequest) -> Generation:
        scored = self.score(request)
        if not scored or (scored[0][1] < self.min_similarity and scored[0][2] == 0):
            best = scored[0][0] if scored else 0.0
            return Generation(self.fallback, self.model, meta={"support": round(best, 4), "units": []})
        top = scored[0]
        if top[3].header:
            text, used = self._rows_answer(scored)
        else:
            used = [s for s in scored if not s[3].header][: self.max_sentences]
            used = [used[0]] + [s for s in used[1:] if s[1] >= self.min_similarity or s[2] > 0]
            used.sort(key=lambda s: (s[3].source, s[3].position))
            text = " ".join(f"{_cut(s[3].text, self.max_chars)} [{s[3].source}]" for s in used)
        meta = {
            "support": round(top[0], 4),
            "units": [
                {"source": s[3].source, "score": round(s[0], 4), "cosine": round(s[1], 4)} for s in used
            ],
            "similarities": [float(np.round(s[1], 4)) for s in used],
        }
        return Generation(text, self.model, meta=meta)

    def _rows_answer(self, scored: list[tuple[float, float, float, Unit]]) -> tuple[str, list]:
        """The header of the best row's table and its best-matching rows (at most three, same table)."""
        best = scored[0][3]
        same = [s for s in scored if s[3].header == best.header and s[3].source == best.source]
        keep = [s for s in same if s[2] >= scored[0][2] and s[2] > 0][:3] or [scored[0]]
        keep.sort(key=lambda s: s[3].position)
        rows = "\n".join(s[3].text for s in keep)
        return f"{best.header}\n{rows}\n\n[{best.source}]", keep

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        yield self.generate(request).text


def _names(question: str) -> list[str]:
    """Capitalised words after the first (names: "Texas", "S2ORC"), which the answer must mention."""
    words = _WORD.findall(question)
    return [w for w in words[1:] if w[:1].isupper()]


def _neighbourhood(text: str, lo: int, hi: int) -> tuple[int, int]:
    """``[lo, hi)`` widened to the paragraph breaks around it, at most ``_MARGIN`` characters each way."""
    start = max(0, lo - _MARGIN)
    brk = text.rfind("\n\n", start, lo)
    start = brk + 2 if brk != -1 else start
    end = min(len(text), hi + _MARGIN)
    brk = text.find("\n\n", hi, end)
    end = brk if brk != -1 else end
    return start, end


def _table_at(tables: list[tuple[int, int, int]], pos: int) -> tuple[int, int, int] | None:
    """The table region (start, header end, end) holding offset ``pos``."""
    import bisect

    i = bisect.bisect_right(tables, (pos, 1 << 62, 0)) - 1
    if i >= 0 and tables[i][0] <= pos <= tables[i][2]:
        return tables[i]
    return None


def _is_answer_sentence(raw: str, chunk: Any, whole_paragraph: bool = False) -> bool:
    """Not a heading: not a ``#`` line, not the chunk's heading, not a short paragraph of its own without
    sentence punctuation (a PDF heading or a table's title); and at least four words."""
    line = raw.strip()
    if _HEADING_LINE.match(line):
        return False
    if line in getattr(chunk, "heading_path", ()):
        return False
    words = len(_WORD.findall(line))
    if whole_paragraph and words <= 12 and line.rstrip("\"'”’)]")[-1:] not in ".!?:;":
        return False
    return words >= 4


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + " …"
