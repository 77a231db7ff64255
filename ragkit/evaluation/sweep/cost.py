"""What a sweep will cost, before it runs: the set-ups (after merging), the indexes to build and which are
cached, the question evaluations at most, and minutes from this machine's measured rates.

The minutes rest on the rates earlier sweeps measured here (:mod:`ragkit.evaluation.sweep.rates`); where
one is missing a probe measures it now, cheaply: a sample of the documents is chunked (and looked up in the
embedding cache), a few of the chunks the sweep will need anyway are embedded, and a few questions are
embedded as queries. A kind of set-up no sweep has timed yet and no probe can time (whole answers) is left
out, and the estimate says it is a lower bound. What racing saves is never assumed: it depends on the grid
and is known only after the race.
"""

from __future__ import annotations

import random
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragkit.core.hashing import sha256_text
from ragkit.evaluation.runs.beir import dataset_index_cached, dataset_index_path
from ragkit.evaluation.runs.config_run import embedder_for, embedder_key
from ragkit.evaluation.sweep.candidates import reads_vectors, work_kind
from ragkit.evaluation.sweep.rates import (
    CHUNK_RATE,
    embed_rate_name,
    load_rates,
    question_rate_name,
    rate,
    save_rates,
    setup_rate_name,
)
from ragkit.index.lexical import TEXT_ONLY
from ragkit.ingestion.chunkers import make_chunker
from ragkit.ingestion.parsing import ParseSettings
from ragkit.llms import LLMS

#: an estimate over this many minutes, or a grid of more set-ups than this, asks before it starts
CONFIRM_MINUTES = 30.0
CONFIRM_SETUPS = 50
#: documents chunked to estimate an index (and to probe the chunking rate); chunks embedded by a probe
SAMPLE_DOCS = 40
PROBE_CHUNKS = 64
PROBE_QUESTIONS = 5
#: chunks a probe embeds before it starts the clock (model loading and the first batch's warm-up)
WARM = 8
#: fewest chunks a probe times (fewer would be noise; so few chunks cost nothing worth estimating)
MIN_TIMED = 16


@dataclass
class IndexPlan:
    """One index the sweep searches: which set-ups share it, and what it takes to have it."""

    key: str
    label: str
    vectors: bool
    state: str  # "cached" (opened, nothing built) | "in memory" (chunked at the start) | "to build"
    model: str  # the embedder's cache key ("" for a text-only index)
    chars: int = 0
    chunks: int | None = None  # estimated from the sample
    embedded: float | None = None  # the share of its chunks already in the embedding cache
    setups: list[str] = field(default_factory=list)  # candidate keys
    sample: list[str] = field(default_factory=list, repr=False)  # sampled chunk texts


def _documents(qset: Any) -> list[Any]:
    if qset.beir is not None:
        return qset.beir.documents()
    if qset.documents is not None:
        return qset.documents
    return qset.collection.documents() if qset.collection is not None else []


def _chunker_text(chunker: Any) -> str:
    settings = chunker.spec()["config"]
    return f"{chunker.name}({', '.join(f'{k}={v}' for k, v in settings.items())})"


def plan_indexes(sweep: Any, embedders: dict) -> tuple[list[IndexPlan], float | None]:
    """The sweep's distinct indexes in grid order, each with its state; and the chunking rate the sample
    showed (characters per second, None when nothing was chunked)."""
    qset, docs = sweep.qset, _documents(sweep.qset)
    sample = random.Random(0).sample(docs, min(SAMPLE_DOCS, len(docs)))
    sample_chars = sum(len(p.text) for d in sample for p in d.pages)
    total_chars = sum(len(p.text) for d in docs for p in d.pages)
    plans: dict[str, IndexPlan] = {}
    chunk_s = chunked = 0.0
    for cand in sweep.candidates:
        config, vectors = cand.config, reads_vectors(qset, cand.config)
        emb = embedder_for(config, embedders)
        model = emb if vectors else TEXT_ONLY
        chunker = make_chunker(config.chunker, **config.chunker_params)
        backend = f" ({emb.backend})" if getattr(emb, "backend", None) else ""  # two backends, two indexes
        vectors_of = emb.model_id.split("/")[-1] + backend if vectors else "text only"
        label = f"{_chunker_text(chunker)} · {vectors_of}"
        if qset.collection is None:
            key = f"{chunker.name}-{chunker.key()}-{model.cache_key}"
        else:
            settings = ParseSettings.of(config)
            key = str(qset.collection.index_path(chunker, model, settings))
            label += "" if settings.is_default else f" · PDFs read by {settings.key()}"
        plan = plans.get(key)
        if plan is None:
            plan = plans[key] = IndexPlan(key, label, vectors, "", model.cache_key if vectors else "")
            plan.state = _state(sweep, docs, chunker, model, config, vectors)
            if plan.state != "cached":
                t = time.perf_counter()
                texts = [c.text for d in sample for c in chunker.split(d)]
                chunk_s += time.perf_counter() - t
                chunked += sample_chars
                plan.chars, plan.sample = total_chars, texts
                plan.chunks = round(len(texts) * total_chars / max(sample_chars, 1))
                if vectors:
                    plan.embedded = embedded_share(texts, emb)
        plan.setups.append(cand.key)
    return list(plans.values()), (chunked / chunk_s if chunk_s > 0 else None)


def embedded_share(texts: list[str], emb: Any) -> float | None:
    """The share of ``texts`` already in the embedder's cache (None: no cache, or no texts)."""
    cache = getattr(emb, "cache", None)
    if cache is None or not texts:
        return None
    hits = cache.get_many(emb.cache_key, [sha256_text(t) for t in texts])
    return sum(sha256_text(t) in hits for t in texts) / len(texts)


def _state(sweep: Any, docs: list[Any], chunker: Any, model: Any, config: Any, vectors: bool) -> str:
    qset = sweep.qset
    if qset.collection is not None:
        settings = ParseSettings.of(config)
        built = qset.collection.indexed_generation(chunker, model, settings) is not None
        return "cached" if built else "to build"
    if not vectors:
        return "in memory"
    path = dataset_index_path(qset.name, docs, chunker, model, sweep.index_root)
    return "cached" if dataset_index_cached(Path(path)) else "to build"


def _sample_set(qset: Any, docs: list[Any]) -> Any:
    """The question set over a sample of its documents only (its questions unchanged): what a probe
    builds its small index of, under a temporary root."""
    from dataclasses import replace

    if qset.beir is not None:
        ids = {d.doc_id for d in docs}
        corpus = {k: v for k, v in qset.beir.corpus.items() if k in ids}
        return replace(qset, hash=f"{qset.hash}-probe", beir=replace(qset.beir, corpus=corpus))
    return replace(qset, kind="questions", hash=f"{qset.hash}-probe", documents=docs, collection=None)


def _time_questions(sweep: Any, config: Any, embedders: dict, docs: list[Any]) -> tuple[float, float] | None:
    """Seconds to prepare ``config`` (its retriever and models over an index of sampled documents, whose
    chunks the embedding probe cached) and per question evaluation (its answer and its scoring), timed
    on a few of the sweep's questions; None when nothing could be timed."""
    items = (sweep.items + sweep.held_items)[: PROBE_QUESTIONS + 1]
    if len(items) < 2:
        return None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sample = _sample_set(sweep.qset, docs)
            sweep.make_runner(sample, config, embedders, tmp).step(items[0])  # loads and warms the models
            t0 = time.perf_counter()
            runner = sweep.make_runner(sample, config, embedders, tmp)
            setup = time.perf_counter() - t0
            t0 = time.perf_counter()
            for q in items[1:]:
                runner.step(q)
            runner.finish()
            return setup, (time.perf_counter() - t0) / (len(items) - 1)
    except Exception:  # a probe that cannot run leaves the rate unmeasured; the sweep says why it fails
        return None


def _probe(
    sweep: Any, plans: list[IndexPlan], embedders: dict, rates: dict, chunk_rate: float | None
) -> dict:
    """Measure now the rates this estimate needs and no earlier sweep measured; returns them."""
    new: dict[str, dict[str, Any]] = {}
    if CHUNK_RATE not in rates and chunk_rate:
        new[CHUNK_RATE] = rate(chunk_rate, "characters per s", f"probe: {SAMPLE_DOCS} documents chunked")
    for config in {embedder_key(c.config): c.config for c in sweep.candidates}.values():
        emb = embedder_for(config, embedders)
        todo = [
            t
            for p in plans
            if p.vectors and p.model == emb.cache_key and p.state == "to build" and (p.embedded or 0) < 1
            for t in p.sample
        ]
        if embed_rate_name(emb.cache_key) in rates or not todo:
            continue
        cache = getattr(emb, "cache", None)
        cached = cache.get_many(emb.cache_key, [sha256_text(t) for t in todo]) if cache else {}
        fresh = [t for t in dict.fromkeys(todo) if sha256_text(t) not in cached][: PROBE_CHUNKS + WARM]
        # chunks the sweep needs anyway (the cache keeps them); the first few load the model and warm it
        # up, and are not part of the rate; a corpus this small is simply embedded (nothing left to time)
        emb.embed(fresh[:WARM])
        if len(fresh) >= WARM + MIN_TIMED:
            t0 = time.perf_counter()
            emb.embed(fresh[WARM:])
            new[embed_rate_name(emb.cache_key)] = rate(
                (len(fresh) - WARM) / (time.perf_counter() - t0),
                "chunks per s",
                f"probe: {len(fresh) - WARM} of its chunks embedded",
            )
        else:
            emb.embed(fresh[WARM:])
    judged = sweep.judge is not None
    every = _documents(sweep.qset)
    docs = random.Random(0).sample(every, min(SAMPLE_DOCS, len(every)))
    tried: set[str] = set()
    for c in sweep.candidates:
        kind = work_kind(sweep.qset, c.config, judged)
        names = (setup_rate_name(kind), question_rate_name(kind))
        if kind in tried or all(n in rates for n in names):
            continue
        tried.add(kind)
        if judged or LLMS.component(c.config.llm).generative:
            continue  # its calls take a server's time (and may cost): the first sweep of them measures it
        timed = _time_questions(sweep, c.config, embedders, docs)
        if timed is not None:  # a rate a sweep measured stays: a probe only stands in for a missing one
            where = f"probe over {len(docs)} of its documents"
            probed = {
                names[0]: rate(timed[0], "s per set-up", f"{where} (a whole corpus takes longer)"),
                names[1]: rate(timed[1], "s per question", f"{where}, {PROBE_QUESTIONS} questions"),
            }
            new |= {k: v for k, v in probed.items() if k not in rates}
    return new


def estimate_cost(sweep: Any, embedders: dict | None = None, probe: bool = True) -> dict[str, Any]:
    """Everything the page and the CLI show before a sweep starts (see the module docstring)."""
    embedders = embedders if embedders is not None else {}
    est = sweep.estimate()
    plans, chunk_rate = plan_indexes(sweep, embedders)
    sweep.index_plans = plans  # the run learns its build rates from the states found before it
    rates = load_rates(sweep.index_root)
    if probe:
        found = _probe(sweep, plans, embedders, rates, chunk_rate)
        save_rates(sweep.index_root, found)
        rates |= found
        for p in plans:  # what the probe embedded (the sweep's own chunks) is in the cache now
            if p.vectors and p.state == "to build":
                p.embedded = embedded_share(p.sample, embedder_for(_config_of(sweep, p), embedders))
    rests_on: dict[str, str] = {}

    def used(name: str, text: str) -> float | None:
        r = rates.get(name)
        if r is not None:
            rests_on[name] = f"{text} {rate_text(r)} ({r['source']}, {r['date']})"
        return None if r is None else float(r["value"])

    build_s, unknown = 0.0, []
    for p in plans:
        if p.state == "cached":
            continue
        speed = used(CHUNK_RATE, "chunking and indexing:")
        build_s += p.chars / speed if speed else 0.0
        if p.vectors and p.state == "to build" and p.chunks:
            todo = p.chunks * (1 - (p.embedded or 0.0))
            speed = used(embed_rate_name(p.model), f"embedding ({p.model.split('|')[0].split('/')[-1]}):")
            if speed:
                build_s += todo / speed
            elif todo:
                unknown.append(f"embedding {round(todo)} chunks for {p.label}")
    judged = sweep.judge is not None
    question_s = 0.0
    for c in sweep.candidates:
        kind = work_kind(sweep.qset, c.config, judged)
        per = used(question_rate_name(kind), f"a question ({kind}):")
        if per is None:
            unknown.append(f"questions of {kind}")
        else:
            question_s += per * sweep.n_questions
        setup = used(setup_rate_name(kind), f"preparing a set-up ({kind}) over its index:")
        if setup is None:
            unknown.append(f"preparing set-ups of {kind}")
        else:
            build_s += setup
    minutes = (build_s + question_s) / 60
    n = len(sweep.candidates)
    confirm = []
    if minutes > CONFIRM_MINUTES:
        confirm.append(f"about {minutes:.0f} minutes, over the {CONFIRM_MINUTES:g}-minute limit")
    if n > CONFIRM_SETUPS:
        confirm.append(f"{n} set-ups, over the limit of {CONFIRM_SETUPS}")
    out = {
        **est,
        "combinations": sweep.grid.size(),
        "metric": sweep.metric,
        "judge": getattr(sweep.judge, "model_id", None),
        "n_selection": len(sweep.items),
        "n_holdout": len(sweep.held_items),
        "holdout_note": sweep.split_status,
        "racing": sweep.schedule.racing,
        "evaluations_max": n * sweep.n_questions,
        "indexes": [{k: v for k, v in asdict(p).items() if k != "sample"} for p in plans],
        "minutes": minutes,
        "build_minutes": build_s / 60,
        "question_minutes": question_s / 60,
        "lower_bound": bool(unknown),
        "not_estimated": sorted(set(unknown)),
        "rests_on": list(rests_on.values()),
        "confirm": confirm,
    }
    # the result keeps what was estimated, beside what it took
    keep = ("minutes", "build_minutes", "question_minutes", "lower_bound", "not_estimated", "rests_on")
    sweep.estimated = {k: out[k] for k in keep}
    return out


def _config_of(sweep: Any, plan: IndexPlan) -> Any:
    return sweep.by_key[plan.setups[0]].config


def rate_text(r: dict[str, Any]) -> str:
    """A rate as read: ``85 chunks per s``, ``12 ms per question``, ``2,573,922 characters per s``."""
    value, unit = float(r["value"]), r["unit"]
    if unit.startswith("s per") and value < 1:
        value, unit = value * 1000, "ms" + unit[1:]
    return f"{value:.3g} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def cost_lines(cost: dict[str, Any]) -> list[str]:
    """The cost as lines of text: the same on the page and in the terminal."""
    n, q = cost["candidates"], cost["questions"]
    merged = f", {cost['merged_duplicates']} merged: the same set-up" if cost["merged_duplicates"] else ""
    held = (
        f" ({cost['n_selection']} raced, {cost['n_holdout']} held out to re-score the best set)"
        if cost["n_holdout"]
        else ""
    )
    lines = [f"{n} set-ups from {cost['combinations']} combinations{merged} · {q} questions{held}"]
    groups: dict[str, list[str]] = {}
    for ix in cost["indexes"]:
        extra = f", {ix['embedded']:.0%} of its chunks already embedded" if ix["embedded"] is not None else ""
        groups.setdefault(ix["state"], []).append(f"{ix['label']} ({len(ix['setups'])} set-ups{extra})")
    count = len(cost["indexes"])
    lines.append(
        f"{count} {'index' if count == 1 else 'indexes'}: "
        + "; ".join(f"{len(v)} {k}: " + ", ".join(v) for k, v in sorted(groups.items()))
    )
    racing = (
        "racing drops the set-ups worse than the best as it goes; what it saves depends on the grid and is "
        "known only after the race"
        if cost["racing"]
        else "no racing: every set-up answers every question"
    )
    lines.append(f"At most {cost['evaluations_max']:,} question evaluations ({n} × {q}); {racing}")
    if cost["llm_calls_max"]:
        lines.append(
            f"At most {cost['llm_calls_max']:,} LLM calls, about {cost['tokens_max_estimate']:,} tokens"
        )
    if cost["judge_calls_max"]:
        lines.append(
            f"At most {cost['judge_calls_max']:,} judge calls ({cost['judge']} grading {cost['metric']})"
        )
    bound = "at least" if cost["lower_bound"] else "about"
    unmeasured = ", ".join(cost["not_estimated"])
    lines.append(
        f"Time on this machine if every set-up answers every question: {bound} {_minutes(cost['minutes'])} "
        f"(index builds {_minutes(cost['build_minutes'])}, questions {_minutes(cost['question_minutes'])})"
        + (f"; not counted, never measured here yet: {unmeasured}" if unmeasured else "")
    )
    if cost["rests_on"]:
        lines.append("The estimate rests on: " + "; ".join(cost["rests_on"]))
    return lines


def _minutes(m: float) -> str:
    return f"{m * 60:.0f} s" if m < 1 else f"{m:.0f} min" if m < 120 else f"{m / 60:.1f} h"
