"""Question sets: a BEIR directory, a SQuAD JSON (optionally with held-out paragraphs), a CSV/JSONL over a
collection, or the labels saved with a collection."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.hashing import config_key
from ragkit.core.types import Document
from ragkit.evaluation.datasets.loaders import (
    BeirDataset,
    LabelledQuestion,
    held_out_paragraphs,
    load_beir,
    load_question_file,
    load_squad,
    parse_question_file,
    squad_questions,
)
from ragkit.pipeline.calibration import scope_name


@dataclass
class QuestionSet:
    """A labelled question set and where its documents come from (a corpus indexed for the evaluation,
    or an existing collection)."""

    name: str
    kind: str  # beir | squad | questions | labels
    source: str  # the path, or the uploaded file's name
    hash: str
    questions: list[LabelledQuestion] = field(default_factory=list)
    documents: list[Document] | None = None  # None: use ``collection``'s documents
    collection: Any = None  # ragkit.index.collections.Collection
    level: str = "document"  # document (files) | passage (labelled spans) | mixed
    beir: BeirDataset | None = None
    params: dict[str, Any] = field(default_factory=dict)
    #: rows of the file set aside, each with why: an evidence quote not found in the collection (with the
    #: nearest passage and how it differs) or a relevant source that is not one of its files
    problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.beir.queries) if self.beir is not None else len(self.questions)

    @property
    def scope(self) -> str:
        """Where its questions are asked: the collection's name, or the dataset's (a calibration map fitted
        on a run of this set holds there)."""
        return scope_name(self.collection.name if self.collection is not None else None, self.name)


def dataset_hash(path: str | Path) -> str:
    """sha256 over the dataset's files (a directory's files in sorted order), to stamp every run."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    for f in files:
        h.update(f.name.encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def questions_hash(questions: Sequence[LabelledQuestion], collection: Any) -> str:
    """sha256 over the questions, their labels and the collection's documents (name + content hash)."""
    payload = {
        "questions": [q.to_list() for q in questions],
        "documents": sorted([d.source, d.sha256] for d in collection.documents()) if collection else [],
    }
    return config_key(payload)


def load_question_set(
    path: str | Path | None = None,
    *,
    collection: Any = None,
    text: str | None = None,
    filename: str | None = None,
    holdout: float = 0.0,
    labels: bool = False,
    fixes: dict[str, dict[str, str]] | None = None,
    split: str = "test",
) -> QuestionSet:
    """A question set from a path (BEIR dir, SQuAD ``.json``, ``.csv``/``.jsonl``), from an uploaded
    file's ``text`` and ``filename``, or (``labels=True``) from the labels saved with ``collection``.
    ``fixes`` replaces evidence quotes of a question file (question id -> {quote: replacement}): the
    nearest passages the user chose for quotes that were not found."""
    if labels:
        from ragkit.evaluation.datasets.labels import LabelSet

        if collection is None:
            raise RagkitError("labelled questions belong to a collection: choose one")
        every = LabelSet.for_collection(collection).questions()
        qs = [q for q in every if q.status != "unlabelled"]
        if not qs:
            raise RagkitError(
                f"collection {collection.name!r} has no labelled questions yet"
                + (f" ({len(every)} questions have no evidence marked yet)" if every else "")
            )
        return QuestionSet(
            f"{collection.name}-labels",
            "labels",
            f"labels of {collection.name}",
            questions_hash(qs, collection),
            qs,
            None,
            collection,
            "passage",
            params={
                "collection": collection.name,
                "collection_files": len(collection.documents()),
                "unlabelled_left_out": len(every) - len(qs),
            },
        )
    if text is not None:
        name = filename or "questions.csv"
        qs = with_fixes(parse_question_file(text, name), fixes)
        return collection_question_set(Path(name).stem, name, qs, collection)
    if path is None:
        raise RagkitError("give a question set: a path, an uploaded file, or a collection's labels")
    p = Path(path)
    if not p.exists():
        raise RagkitError(f"{p}: no such file or directory")
    if p.is_dir():
        ds = load_beir(p, split)
        if split == "test":
            return QuestionSet(ds.name, "beir", str(p), dataset_hash(p), beir=ds)
        # another split's queries over the same corpus: another set (name, hash), re-run with its split
        key = config_key({"dataset": dataset_hash(p), "split": split})
        return QuestionSet(f"{ds.name}-{split}", "beir", str(p), key, beir=ds, params={"split": split})
    if p.suffix.lower() == ".json":
        sq = load_squad(p)
        held = held_out_paragraphs(sq, holdout)
        return QuestionSet(
            sq.name,
            "squad",
            str(p),
            dataset_hash(p),
            squad_questions(sq, held),
            sq.documents(exclude=held),
            params={"holdout": holdout, "held_out_paragraphs": len(held)},
        )
    if p.suffix.lower() in (".csv", ".jsonl"):
        return collection_question_set(p.stem, str(p), with_fixes(load_question_file(p), fixes), collection)
    raise RagkitError(f"{p}: expected a BEIR directory, a SQuAD .json, or a .csv/.jsonl question set")


def with_fixes(qs: list[LabelledQuestion], fixes: dict[str, dict[str, str]] | None) -> list[LabelledQuestion]:
    """The questions with the chosen replacements of their evidence quotes (see :func:`load_question_set`)."""
    from dataclasses import replace

    if not fixes:
        return qs
    return [
        replace(q, quotes=tuple(fixes[q.qid].get(x, x) for x in q.quotes)) if q.qid in fixes else q
        for q in qs
    ]


def collection_question_set(
    name: str, source: str, qs: list[LabelledQuestion], collection: Any
) -> QuestionSet:
    """A question set over an existing collection: relevant sources are files of it (a bare file name
    matches a document stored under a longer path when only one does), evidence quotes occur in it. A
    question whose source or quote is not found is set aside with the reason (``problems``, the quote's
    nearest passage included) and the others run; only a set with nothing left is refused."""
    from dataclasses import replace

    from ragkit.evaluation.datasets.evidence import locate_quote, merge_passages
    from ragkit.evaluation.datasets.nearest import nearest_passage

    if collection is None:
        raise RagkitError(f"{Path(source).name}: a CSV/JSONL question set runs over a collection: choose one")
    docs = collection.documents()
    if not docs:
        raise RagkitError(f"collection {collection.name!r} is empty")
    wanted = {s for q in qs for s, _ in q.relevant} | {e.source for q in qs for e in q.evidence}
    names = resolve_sources(wanted, [d.source for d in docs])
    page_sizes = {(d.source, p.number): len(p.text) for d in docs for p in d.pages}
    out, problems = [], []
    for q in qs:
        unknown = [s for s, _ in q.relevant if names.get(s) is None]
        if unknown:
            why = f"{unknown[0]} is not a file of collection {collection.name!r}"
            problems.append({"qid": q.qid, "question": q.question, "source": unknown[0], "why": why})
            continue
        relevant = tuple((names[s] or s, g) for s, g in q.relevant)
        evidence = tuple(replace(e, source=names[e.source] or e.source) for e in q.evidence)
        check_spans(Path(source).name, q.qid, evidence, page_sizes)
        if q.quotes:
            passages, missing = [], None
            for quote in q.quotes:
                found = [p for src, _ in relevant or [(None, 0)] for p in locate_quote(quote, docs, src)]
                if not found and missing is None:
                    where = f"in {', '.join(s for s, _ in relevant)}" if relevant else "in the collection"
                    near = [nearest_passage(quote, docs, src) for src, _ in relevant or [(None, 0)]]
                    best = max((n for n in near if n is not None), key=lambda n: n.shared, default=None)
                    missing = {"qid": q.qid, "question": q.question, "quote": quote,
                               "why": f"the evidence quote is not {where}",
                               "nearest": best.to_dict() if best is not None else None}  # fmt: skip
                passages.extend(found)
            if missing is not None:
                problems.append(missing)
                continue
            evidence = tuple(merge_passages(passages))
        out.append(replace(q, relevant=relevant, evidence=evidence, quotes=()))
    kept = {q.qid for q in out}
    for q in list(out):  # a follow-up of a question set aside has no conversation to continue
        if q.follows and q.follows not in kept:
            out.remove(q)
            kept.discard(q.qid)
            problems.append({"qid": q.qid, "question": q.question,
                             "why": f"it follows question {q.follows}, which was set aside"})  # fmt: skip
    if not out:
        first = problems[0]
        raise RagkitError(
            f"{Path(source).name}: no question can run over collection {collection.name!r}: "
            f"{len(problems)} set aside (question {first['qid']}: {first['why']})"
        )
    levels = {
        "passage" if q.evidence else "document" for q in out if q.answerable and (q.evidence or q.relevant)
    }
    level = levels.pop() if len(levels) == 1 else ("mixed" if levels else "document")
    return QuestionSet(
        name,
        "questions",
        source,
        questions_hash(out, collection),
        out,
        None,
        collection,
        level,
        params={"collection": collection.name, "collection_files": len(docs)}
        | ({"set_aside": len(problems)} if problems else {}),
        problems=problems,
    )


def resolve_sources(wanted: set[str], sources: Sequence[str]) -> dict[str, str | None]:
    """Each wanted file name -> the collection's document name: itself, or the one document whose name
    ends with ``/<wanted>`` (same-name files from two folders are stored under longer names)."""
    have = set(sources)
    out: dict[str, str | None] = {}
    for w in wanted:
        if w in have:
            out[w] = w
            continue
        matches = [s for s in sources if s.endswith("/" + w)]
        out[w] = matches[0] if len(matches) == 1 else None
    return out


def check_spans(
    filename: str, qid: str, evidence: Sequence[Any], page_sizes: dict[tuple[str, int], int]
) -> None:
    """Refuse evidence spans outside their document's pages (a file made for another version of it);
    ``page_sizes`` maps (document, page) to the page's length."""
    for e in evidence:
        for page, _start, end in e.spans:
            size = page_sizes.get((e.source, page))
            if size is None or end > size:
                raise RagkitError(
                    f"{filename}: question {qid}: evidence span {page}:{_start}-{end} is not in "
                    f"{e.source} as the collection holds it (was the file re-parsed or changed?)"
                )
