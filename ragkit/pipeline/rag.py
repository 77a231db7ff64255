"""The grounded pipeline: (follow-up rewrite) -> (expansion) -> retrieve -> (rerank) -> (grade, one
rewrite and retry) -> (context budget) -> confidence -> prompt -> generate -> Answer.

Below the confidence threshold the LLM is never called: the answer is the fallback sentence with the
reason. Every answer carries its hits (scores and ranks per stage), citations, confidence, token counts
where the backend reports them, timings per stage, a trace of the optional stages (grades, the rewrite,
both retrievals, the alternative queries, what the budget dropped) and the hash of its config."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.types import Message
from ragkit.index.store import IndexStore
from ragkit.llms import capabilities, llm_from_config
from ragkit.llms.base import LLM, GenerationRequest
from ragkit.pipeline import answerability
from ragkit.pipeline.answer import Answer, Citation, Prepared
from ragkit.pipeline.citations import parse_citations
from ragkit.pipeline.confidence import ConfidenceConfig, apply_calibration, retrieval_confidence
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.followup import added_terms, follow_up_reason, keeps_question, merge_terms, recent_turns
from ragkit.pipeline.front_matter import add_front_matter
from ragkit.pipeline.prompts import (
    CITING_STYLES,
    FALLBACK_ANSWER,
    PromptTemplates,
    grounded_completion,
    grounded_messages,
    is_fallback,
    no_context_completion,
    no_context_messages,
    rewrite_prompt,
    source_url,
    templates_for,
)
from ragkit.pipeline.retrieval import Retrieved, retrieve
from ragkit.retrievers import retriever_from_config
from ragkit.retrievers.base import warm_up


class RagPipeline:
    """Ask questions against an index with one :class:`PipelineConfig`.

    Args:
        config: the pipeline's settings.
        store: the index to search.
        embedder: the index's embedder (queries, and the extractive backend).
        llm: a backend to use instead of building ``config.llm`` (tests, shared instances).
        api_key: a Groq key held in memory only.
        reranker: a reranker instance to share (e.g. a cached cross-encoder).
        retriever: a retriever built from this config to share (its BM25/FAISS state is built once).
        scope: the collection (or dataset) searched; a calibration map fitted elsewhere is not applied
            (None: the caller vouches for the map).
    """

    def __init__(
        self,
        config: PipelineConfig,
        store: IndexStore,
        embedder: Any,
        llm: LLM | None = None,
        api_key: str | None = None,
        reranker: Any | None = None,
        templates: PromptTemplates | None = None,
        retriever: Any | None = None,
        scope: str | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.embedder = embedder
        self.templates = templates or templates_for(
            config.prompt_style, config.prompt_template, config.fallback_answer
        )
        self.llm = llm or llm_from_config(config, embedder=embedder, store=store, api_key=api_key)
        self.capabilities = capabilities(self.llm)
        #: the backend says how well its evidence answers (the extractive reader): it may still run when
        #: the retrieval gauge is low, and its answerability decides
        self.measures_answerability = bool(self.capabilities.extras.get("answerability"))
        self.retriever = retriever or retriever_from_config(config, store, embedder, reranker)
        self.confidence_config = ConfidenceConfig(threshold=config.confidence_threshold)
        self.calibration = None
        #: why the config's calibration map is not applied here (fitted on another collection)
        self.calibration_note: str | None = None
        if config.confidence_calibration is not None:
            from ragkit.pipeline.calibration import CalibrationMap

            cmap = CalibrationMap.from_dict(config.confidence_calibration)
            if cmap.applies_to(scope):
                self.calibration = cmap
            else:
                self.calibration_note = (
                    f"the gauge's calibration was fitted on {cmap.scope!r}, not {scope!r}: the raw gauge is "
                    "shown (fit a map on this collection to calibrate it)"
                )
        self._warm = False

    def warm_up(self) -> float:
        """Load every model and build the search structures now; returns the milliseconds it took.

        The first question runs this itself and reports it as the ``load`` stage, outside ``total``: a
        model load is not the latency of a question.
        """
        t = time.perf_counter()
        if not self._warm:
            if not self.config.no_retrieval:
                warm_up(self.retriever)
            load = getattr(self.llm, "load", None)
            if load is not None and self.capabilities.in_process:
                load()
            if self.config.web_search:  # fetched pages are parsed by a worker: have one ready
                from ragkit.ingestion.worker import POOL

                POOL.keep_warm(1, wait=60.0)
            self._warm = True
        return (time.perf_counter() - t) * 1000

    @classmethod
    def from_index(cls, path: str | Path, config: PipelineConfig, **kwargs: Any) -> RagPipeline:
        """Open the index at ``path`` with the embedding model it was built with."""
        from dataclasses import replace

        from ragkit.index.embedders import LEGACY_BACKEND
        from ragkit.index.embeddings import Embedder
        from ragkit.index.lexical import is_text_only, open_text_only

        manifest = IndexStore.read_manifest(path)
        if is_text_only(manifest):  # BM25 alone; the config's model embeds what the gauge reads
            emb = Embedder(config.embedding_model, backend=config.embedding_backend)
            return cls(config, open_text_only(path, config), emb, **kwargs)
        m = manifest["embedding"]
        backend = m.get("backend", LEGACY_BACKEND)  # the index's: its queries are embedded as its chunks
        embedder = Embedder(m["model"], dtype=m.get("dtype", "float32"), backend=backend)
        store = IndexStore.open(path, model_id=embedder.model_id)
        # the index fixes the chunker and the embedding model: record them, so the answer's config
        # hash and JSON say what was really searched
        chunker = store.chunker
        config = replace(
            config,
            chunker=chunker["name"],
            chunker_params=dict(chunker.get("config", {})),
            embedding_model=store.model_id,
            embedding_backend=backend,
        )
        return cls(config, store, embedder, **kwargs)

    # -------------------------------------------------------------- steps

    def standalone_query(
        self, question: str, history: Sequence[Message], timings: dict[str, float], trace: dict[str, Any]
    ) -> str:
        """The query searched for ``question``: itself, unless it cannot stand alone and rewriting is on
        (then an LLM's rewrite, or the previous question's terms added); the trace says which and why."""
        why = follow_up_reason(question, history)
        if why is None:
            return question
        if not self.config.rewrite_follow_ups:
            trace["follow_up"] = {"rewritten": False, "why": why, "note": "rewriting is off"}
            return question
        previous = next(m.content for m in reversed(history) if m.role == "user")
        t = time.perf_counter()
        how, query = "terms", merge_terms(question, previous)
        added = added_terms(question, previous)
        if self.capabilities.generative:
            prompt = rewrite_prompt(
                question, recent_turns(history, self.config.history_turns), self.templates
            )
            req = GenerationRequest([Message("user", prompt)], prompt, question, (), 0.0, 64, ("\n",))
            lines = self.llm.generate(req).text.strip().splitlines()
            rewritten = lines[0].strip().strip('"') if lines else ""
            if len(rewritten) > 3 and keeps_question(rewritten, question):
                how, query = "llm", rewritten
        timings["rewrite"] = (time.perf_counter() - t) * 1000
        trace["follow_up"] = {"rewritten": True, "why": why, "how": how, "from": question, "to": query}
        if how == "terms":  # the words added from the conversation: the reader takes them as context
            trace["follow_up"]["added"] = added
            trace["follow_up"]["previous"] = previous
        return query

    def prepare(self, question: str, history: Sequence[Message] = ()) -> Prepared:
        """Rewrite, retrieve and score confidence; build the request unless the pipeline abstains. The
        time this took (model loading excluded) is kept as the work before generation."""
        prep = self._prepare(question, history)
        prep.work_ms = (time.perf_counter() - prep.started) * 1000
        return prep

    def _prepare(self, question: str, history: Sequence[Message]) -> Prepared:
        timings: dict[str, float] = {}
        if not self._warm:
            timings["load"] = self.warm_up()
        started = time.perf_counter()
        earlier_pages = list(dict.fromkeys(u for m in history for u in m.pages))  # the whole conversation's
        history = recent_turns(history, self.config.history_turns)
        t = self.templates
        if self.config.no_retrieval:
            request = GenerationRequest(
                no_context_messages(question, history, t),
                no_context_completion(question, history, t),
                question,
                (),
                self.config.temperature,
                self.config.max_tokens,
                self._stop(),
            )
            return Prepared(question, question, [], None, request, None, "no_retrieval", timings, started)
        trace: dict[str, Any] = {}
        if self.config.web_search and earlier_pages:
            trace["web_earlier_pages"] = earlier_pages  # searched again with this question's results
        query = self.standalone_query(question, history, timings, trace)
        has_query = getattr(self.embedder, "has_query", None)
        cached = ["embed_query"] if has_query is not None and has_query(query) else []
        ranking, hits = self.retrieve(query, timings, trace)
        confidence = retrieval_confidence(hits, self.confidence_config)
        if self.calibration is not None:
            confidence = apply_calibration(confidence, self.calibration, self.confidence_config)
        elif self.calibration_note:
            trace["calibration"] = self.calibration_note
        gate = None
        if confidence.abstain:
            reason = confidence.reason
            if not hits and "grades" in trace:
                reason = "no retrieved chunk was graded relevant, even after rewriting the query once"
            if not (hits and self.measures_answerability):
                return Prepared(
                    question,
                    query,
                    hits,
                    confidence,
                    None,
                    reason,
                    "rag",
                    timings,
                    started,
                    cached,
                    trace,
                    ranking=ranking,
                )
            gate = reason  # a reader is cheap: let its answerability decide (see pipeline.answerability)
        hits = add_front_matter(self, query, hits, trace)
        # ``question`` carries the standalone query: the extractive backend matches sentences to it,
        # while chat backends read the original question (and the history) from the messages.
        request = GenerationRequest(
            grounded_messages(question, hits, history, t),
            grounded_completion(question, hits, history, t),
            query,
            hits,
            self.config.temperature,
            self.config.max_tokens,
            self._stop(),
            (trace.get("follow_up") or {}).get("added", ""),
            (trace.get("follow_up") or {}).get("previous", ""),
        )
        return Prepared(
            question,
            query,
            hits,
            confidence,
            request,
            None,
            "rag",
            timings,
            started,
            cached,
            trace,
            gate,
            ranking=ranking,
        )

    def retrieve(self, query: str, timings: dict[str, float], trace: dict[str, Any]) -> Retrieved:
        """The retrieval stage's ranking (to :data:`RANKING_DEPTH`) and the hits the reader reads."""
        return retrieve(self, query, timings, trace)

    def _stop(self) -> tuple[str, ...]:
        # base models continue the transcript; chat models end their turn by themselves
        return self.templates.completion_stop if self.capabilities.continues_text else ()

    def finish(
        self,
        prep: Prepared,
        text: str,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Answer:
        """Turn generated text (or an abstention) into an :class:`Answer` with parsed citations; the
        decision to abstain is :func:`~ragkit.pipeline.answerability.decide`'s."""
        t_finish = time.perf_counter()
        fallback = self.templates.fallback
        reason, answerability = self._decide(prep, text, meta if meta is not None else prep.meta)
        abstained = reason is not None
        trace = dict(prep.trace)
        if abstained:
            if self._says_something(text):
                trace["withheld"] = text  # what the backend would have said: kept for evaluation
            text = fallback
        style = self.templates.style
        report = parse_citations(text, len(prep.hits), style, [source_url(h) for h in prep.hits])
        citations = [
            Citation(n, prep.hits[n - 1].chunk_id, prep.hits[n - 1].chunk.source, prep.hits[n - 1].chunk.page)
            for n in report.valid
        ]
        timings = dict(prep.timings_ms)
        # the work only: preparing, generating and this; not what a page did in between (rendering,
        # streaming to the browser)
        finish_ms = (time.perf_counter() - t_finish) * 1000
        timings["total"] = prep.work_ms + timings.get("generate", 0.0) + finish_ms
        return Answer(
            question=prep.question,
            query=prep.query,
            text=text,
            abstained=abstained,
            abstain_reason=reason,
            citations=citations,
            invalid_citations=list(report.invalid),
            uncited=report.uncited and not abstained and prep.mode == "rag" and style in CITING_STYLES,
            hits=prep.hits,
            confidence=prep.confidence,
            llm=self.llm.name,
            model=self.llm.model,
            mode=prep.mode,
            config_hash=self.config.cache_key(),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            timings_ms=timings,
            cached_stages=list(prep.cached_stages),
            trace=trace,
            prompt_style=style,
            answerability=answerability,
            ranking=list(prep.ranking),
        )

    def _says_something(self, text: str) -> bool:
        """Whether generated text is an answer at all (not empty, not the "I don't know" sentence)."""
        return bool(text.strip()) and not is_fallback(text, (self.templates.fallback, FALLBACK_ANSWER))

    def _decide(self, prep: Prepared, text: str, meta: dict[str, Any]) -> tuple[str | None, Any]:
        """Why to abstain (None: answer) and the answer's answerability."""
        threshold = self.config.answer_threshold
        if prep.request is None:
            return prep.abstain_reason, None
        if prep.mode != "rag":
            return None, None
        if self.measures_answerability:
            retrieval = prep.confidence.value if prep.confidence is not None else None
            ans = answerability.from_reader(meta, threshold, retrieval)
            return answerability.decide(prep.gate is not None, prep.gate, ans), ans
        said_idk = is_fallback(text, (self.templates.fallback, FALLBACK_ANSWER))
        ans = answerability.from_llm(said_idk, prep.trace, threshold)
        return answerability.decide(False, None, ans), ans

    # -------------------------------------------------------------- entry points

    def ask(self, question: str, history: Sequence[Message] = ()) -> Answer:
        """Answer ``question`` (with the conversation so far) in one call."""
        prep = self.prepare(question, history)
        if prep.request is None:
            return self.finish(prep, "")
        t = time.perf_counter()
        gen = self.llm.generate(prep.request)
        prep.timings_ms["generate"] = (time.perf_counter() - t) * 1000
        return self.finish(prep, gen.text, gen.prompt_tokens, gen.completion_tokens, gen.meta)

    def stream(self, prep: Prepared) -> Iterator[str]:
        """Text pieces of the answer for a prepared question (the fallback sentence if it abstained)."""
        if prep.request is None:
            yield self.templates.fallback
            return
        t = time.perf_counter()
        if self.measures_answerability:  # a reader answers at once, and may decide to abstain
            gen = self.llm.generate(prep.request)
            prep.timings_ms["generate"] = (time.perf_counter() - t) * 1000
            prep.meta = dict(gen.meta)
            reason, _ = self._decide(prep, gen.text, prep.meta)
            if reason and self._says_something(gen.text):
                prep.trace["withheld"] = gen.text  # as ask() keeps it: what the reader would have said
            yield self.templates.fallback if reason else gen.text
            return
        # time only the backend's own steps: while a piece is with the consumer (written to the browser)
        # the clock stops
        spent = 0.0
        pieces = iter(self.llm.stream(prep.request))
        try:
            while True:
                t = time.perf_counter()
                try:
                    piece = next(pieces)
                except StopIteration:
                    return
                finally:
                    spent += time.perf_counter() - t
                yield piece
        finally:
            prep.timings_ms["generate"] = spent * 1000
