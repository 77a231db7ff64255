"""Every field of a pipeline config, gathered from the components that declare them.

Each component declares the fields it reads beside its code (a chunker its settings, a retriever its
``bm25_*`` or ``hnsw_*`` fields, a backend its host or base URL); the pipeline declares the few that belong
to no component (top-k, history, the no-retrieval baseline) and the labels. The groups say what a field
decides, which is what the app's caches key on: ``index`` fields decide the index, ``retrieval`` fields
the retriever built over it, the rest are read per question.
"""

from __future__ import annotations

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.index import embeddings
from ragkit.ingestion import chunkers, parsing
from ragkit.llms import LLMS
from ragkit.llms import OPTIONS as LLM_OPTIONS
from ragkit.pipeline import answerability, confidence, followup, front_matter, prompts, stages
from ragkit.retrievers import OPTIONS as RETRIEVER_OPTIONS
from ragkit.retrievers import RETRIEVERS, web
from ragkit.retrievers.rerank import CrossEncoderReranker

#: labels, not settings: two configs that differ only in these are the same pipeline (same hash)
LABELS = (
    Option("name", "str", "default", field="name", widget="none", help="the config's name"),
    Option("description", "str", "", field="description", widget="none", help="what the config is"),
    Option("reference", "str", "", field="reference", widget="none",
           help="the work whose pipeline it reproduces (a title, not a person)"),
)  # fmt: skip

#: the pipeline's own settings (no component reads them)
PIPELINE = (
    Option("top_k", "int", 5, 1, 1000, field="top_k", label="Top-k chunks", suggest=(3, 5, 10), sweep="main",
           help="how many chunks the answer is written from (and retrieval metrics are cut at)"),
    Option("history_turns", "int", 5, 0, 1000, field="history_turns", widget="none",
           help="conversation turns a follow-up question is read with"),
    Option("no_retrieval", "bool", False, field="no_retrieval", label="No-retrieval baseline (plain LLM)",
           needs="generative", help="baseline: the plain LLM without any retrieved context"),
)  # fmt: skip


def _component_options(components: list[Component]) -> tuple[Option, ...]:
    return tuple(o for c in components for o in c.options if o.field)


#: field groups, by what they decide (see the module docstring)
GROUPS: dict[str, tuple[Option, ...]] = {
    "labels": LABELS,
    "index": (*parsing.OPTIONS, *chunkers.OPTIONS, *embeddings.OPTIONS),
    "retrieval": (
        *RETRIEVER_OPTIONS,
        *_component_options(RETRIEVERS.components()),
        *CrossEncoderReranker.component.options,
    ),
    "generation": (*LLM_OPTIONS, *_component_options(LLMS.components())),
    "pipeline": (
        *PIPELINE,
        *confidence.OPTIONS,
        *answerability.OPTIONS,
        *followup.OPTIONS,
        *front_matter.OPTIONS,
        *prompts.OPTIONS,
        *stages.OPTIONS,
        *web.OPTIONS,
    ),
}


def _collect() -> dict[str, Option]:
    out: dict[str, Option] = {}
    for group in GROUPS.values():
        for o in group:
            if not o.field:
                continue
            if o.field in out:
                raise ConfigError(f"config field {o.field!r} is declared twice")
            out[o.field] = o
    return out


#: field name -> its declaration
FIELDS: dict[str, Option] = _collect()


def _owners() -> dict[str, Component]:
    out: dict[str, Component] = {}
    for c in [*RETRIEVERS.components(), CrossEncoderReranker.component, *LLMS.components()]:
        for o in c.options:
            if o.field:
                out[o.field] = c
    return out


#: field -> the component that declares it (fields of no component are absent)
OWNERS: dict[str, Component] = _owners()


def fields_of(*groups: str) -> tuple[str, ...]:
    """The fields of these groups, in declaration order."""
    return tuple(o.field for g in groups for o in GROUPS[g] if o.field)
