"""The extractive backend: no language model. It answers with the retrieved sentences that best match
the question (by the embedder's cosine similarity), each followed by its citation. Instant,
deterministic, always grounded — the default when no Groq key or Ollama server is available."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ragkit.chunkers.sentence import paragraphs, sentences
from ragkit.llms.base import Generation, GenerationRequest
from ragkit.prompts import FALLBACK_ANSWER


class ExtractiveLLM:
    """Picks the ``max_sentences`` source sentences most similar to the question.

    Args:
        embedder: any object with ``embed(texts)`` and ``embed_query(text)`` returning unit vectors.
        max_sentences: how many sentences make the answer.
        min_similarity: below this cosine the best sentence is not an answer: reply with the fallback.
        store: the index the sources come from; with it, a sentence cut by the chunk's edge is
            completed from the page text (a sliding window does not stop at sentence ends).
    """

    name = "extractive"

    def __init__(
        self, embedder: Any, max_sentences: int = 2, min_similarity: float = 0.0, store: Any | None = None
    ) -> None:
        self.embedder = embedder
        self.model = f"extractive:{embedder.model_id}"
        self.max_sentences = max_sentences
        self.min_similarity = min_similarity
        self.store = store

    def _sentences(self, chunk: Any) -> list[str]:
        """The chunk's sentences, paragraph by paragraph; whole sentences from the page when possible."""
        doc = self.store.documents.get(chunk.doc_id) if self.store is not None else None
        if doc is None or not chunk.spans:
            pieces = [(chunk.text, 0, len(chunk.text))]
        else:
            pieces = [(doc.pages[sp.page - 1].text, sp.start, sp.end) for sp in chunk.spans]
        out: list[str] = []
        for text, lo, hi in pieces:
            for p_start, p_end in paragraphs(text):
                if p_end <= lo or p_start >= hi:
                    continue
                for s, e in sentences(text, p_start, p_end):
                    if s < hi and e > lo:  # overlaps the chunk: keep the whole sentence
                        out.append(" ".join(text[s:e].split()))
        return out

    def select(self, request: GenerationRequest) -> list[tuple[float, int, str]]:
        """``(similarity, source number, sentence)`` of the chosen sentences, in source order."""
        candidates: list[tuple[int, int, str]] = []  # (source number, position, sentence)
        seen: set[str] = set()
        for n, hit in enumerate(request.sources, start=1):
            for pos, sent in enumerate(self._sentences(hit.chunk)):
                if len(sent) >= 3 and sent not in seen:  # overlapping chunks repeat sentences
                    seen.add(sent)
                    candidates.append((n, pos, sent))
        if not candidates:
            return []
        q = self.embedder.embed_query(request.question)
        vecs = self.embedder.embed([c[2] for c in candidates])
        sims = vecs @ q
        # best first; ties go to the better-ranked source, then the earlier sentence
        order = sorted(range(len(candidates)), key=lambda i: (-float(sims[i]), candidates[i][:2]))
        chosen = [i for i in order[: self.max_sentences] if float(sims[i]) >= self.min_similarity]
        chosen.sort(key=lambda i: candidates[i][:2])
        return [(float(sims[i]), candidates[i][0], candidates[i][2]) for i in chosen]

    def generate(self, request: GenerationRequest) -> Generation:
        picked = self.select(request)
        if not picked:
            return Generation(FALLBACK_ANSWER, self.model, meta={"similarities": []})
        text = " ".join(f"{sent} [{n}]" for _, n, sent in picked)
        return Generation(
            text, self.model, meta={"similarities": [float(np.round(s, 4)) for s, _, _ in picked]}
        )

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        yield self.generate(request).text
