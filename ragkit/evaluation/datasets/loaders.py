"""Loaders for labelled datasets: BEIR (corpus, queries, qrels)."""

from __future__ import annotations

import csv
import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.types import Document, Page


@dataclass(frozen=True)
class BeirDataset:
    """A BEIR dataset: ``corpus[id] = (title, text)``, ``queries[id] = text``, ``qrels[qid][docid] = rel``."""

    name: str
    path: Path
    corpus: dict[str, tuple[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]

    def documents(self) -> list[Document]:
        """One single-page document per corpus record, ``title`` and ``text`` joined by a blank line.

        The document id (and file name) is the corpus id, so chunk hits map straight back to qrels.
        """
        docs = []
        for doc_id, (title, text) in self.corpus.items():
            body = f"{title}\n\n{text}" if title else text
            docs.append(
                Document(
                    doc_id=doc_id,
                    source=doc_id,
                    sha256=sha256_bytes(body.encode("utf-8")),
                    pages=(Page(1, body),),
                    kind="txt",
                )
            )
        return docs


def _jsonl(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load_beir(path: str | os.PathLike[str], split: str = "test") -> BeirDataset:
    """Read ``corpus.jsonl[.gz]``, ``queries.jsonl`` and ``qrels/<split>.tsv``; keep the split's queries."""
    root = Path(path)
    corpus_path = next((root / n for n in ("corpus.jsonl", "corpus.jsonl.gz") if (root / n).is_file()), None)
    qrels_path = root / "qrels" / f"{split}.tsv"
    for needed, p in (
        ("corpus.jsonl(.gz)", corpus_path),
        ("queries.jsonl", root / "queries.jsonl"),
        (f"qrels/{split}.tsv", qrels_path),
    ):
        if p is None or not p.is_file():
            raise RagkitError(f"{root} is not a BEIR dataset: {needed} is missing")
    corpus = {str(r["_id"]): (r.get("title") or "", r.get("text") or "") for r in _jsonl(corpus_path)}
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path, encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        for row in reader:
            if not row or row[0] == "query-id":
                continue
            qid, did, rel = row[0], row[1], int(row[2])
            qrels.setdefault(qid, {})[did] = rel
    queries = {str(r["_id"]): r["text"] for r in _jsonl(root / "queries.jsonl") if str(r["_id"]) in qrels}
    return BeirDataset(root.name, root, corpus, queries, qrels)


@dataclass(frozen=True)
class SquadQuestion:
    qid: str
    question: str
    answers: tuple[str, ...]
    paragraph_id: str


@dataclass(frozen=True)
class SquadDataset:
    """SQuAD-format QA: context paragraphs (``paragraphs[pid] = (title, context)``) and their questions."""

    name: str
    path: Path
    paragraphs: dict[str, tuple[str, str]]
    questions: list[SquadQuestion]

    def documents(self, exclude: set[str] | frozenset[str] = frozenset()) -> list[Document]:
        """One document per paragraph (id = file name = paragraph id), optionally leaving some out."""
        docs = []
        for pid, (title, context) in self.paragraphs.items():
            if pid in exclude:
                continue
            sha = sha256_bytes(context.encode("utf-8"))
            meta = {"title": title.replace("_", " ")} if title else {}  # the article it comes from
            docs.append(Document(pid, pid, sha, (Page(1, context),), "txt", meta=meta))
        return docs


def load_squad(path: str | os.PathLike[str]) -> SquadDataset:
    """Read a SQuAD v1.1 JSON file; paragraph ids are ``p0000``, ``p0001``… in file order."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))["data"]
    except (OSError, ValueError, KeyError) as e:
        raise RagkitError(f"{p} is not a SQuAD JSON file: {e}") from None
    paragraphs: dict[str, tuple[str, str]] = {}
    questions: list[SquadQuestion] = []
    for article in data:
        for para in article["paragraphs"]:
            pid = f"p{len(paragraphs):04d}"
            paragraphs[pid] = (article.get("title", ""), para["context"])
            for qa in para["qas"]:
                answers = tuple(dict.fromkeys(a["text"] for a in qa.get("answers", [])))
                questions.append(SquadQuestion(str(qa["id"]), qa["question"], answers, pid))
    return SquadDataset(p.stem, p, paragraphs, questions)


# ------------------------------------------------------------------ question sets over a collection


@dataclass(frozen=True)
class LabelledQuestion:
    """One question of a set run through full pipelines.

    Relevance comes at one of two levels:

    - ``relevant`` maps a *file* to its grade (``relevant_sources`` of a CSV/JSONL set, the paragraph of a
      SQuAD question): chunk hits are aggregated to files, each at its best chunk's rank.
    - ``evidence`` holds labelled *passages* (UI labels, ``evidence`` quotes in a CSV/JSONL set): any
      chunk of any chunker is judged by its overlap with them (:mod:`ragkit.evaluation.datasets.evidence`).

    ``absent`` says there is no evidence in the collection (the right response is "I don't know"): a
    held-out SQuAD paragraph, a CSV row with no gold answer, source or evidence, or a question the user
    marked so in the Label tab. A question that is neither answerable nor absent is *unlabelled* and left
    out of every metric.
    """

    qid: str
    question: str
    answers: tuple[str, ...] = ()
    relevant: tuple[tuple[str, int], ...] = ()
    evidence: tuple[Any, ...] = ()  # ragkit.evaluation.datasets.evidence.Evidence
    absent: bool = False
    quotes: tuple[str, ...] = ()  # evidence as typed in a question file, located over the collection
    follows: str = ""  # the id of the question this one continues (asked after it, with its answer)

    @property
    def answerable(self) -> bool:
        return bool(self.answers or self.relevant or self.evidence or self.quotes)

    @property
    def status(self) -> str:
        if self.answerable:
            return "answerable"
        return "absent" if self.absent else "unlabelled"

    def qrels(self) -> dict[str, int]:
        if self.evidence:
            return {e.unit_id: 1 for e in self.evidence}
        return dict(self.relevant)

    def to_list(self) -> list[Any]:
        """JSON form stored with a saved run (so it can be re-run without the original file)."""
        return [
            self.qid,
            self.question,
            list(self.answers),
            [list(r) for r in self.relevant],
            [e.to_list() for e in self.evidence],
            self.absent,
            *([self.follows] if self.follows else []),  # sets without follow-ups keep their hash
        ]

    @classmethod
    def from_list(cls, x: list[Any]) -> LabelledQuestion:
        from ragkit.evaluation.datasets.evidence import Evidence

        evidence = tuple(Evidence.from_list(e) for e in x[4]) if len(x) > 4 else ()
        answers, relevant = tuple(x[2]), tuple(tuple(r) for r in x[3])
        # runs saved before ``absent`` existed: no answers and no relevant sources meant absent
        absent = bool(x[5]) if len(x) > 5 else not (answers or relevant)
        follows = str(x[6]) if len(x) > 6 else ""
        return cls(str(x[0]), str(x[1]), answers, relevant, evidence, absent, follows=follows)  # type: ignore[arg-type]


def _split_list(value: object) -> tuple[str, ...]:
    """A CSV cell ``"a.pdf; b.pdf"`` (or ``|``-separated), or a JSON list, as a tuple of non-empty strings."""
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        items = [str(v) for v in value]
    else:
        import re

        items = re.split(r"\s*[;|]\s*", str(value))
    return tuple(dict.fromkeys(s.strip() for s in items if str(s).strip()))


def _split_quotes(value: object) -> tuple[str, ...]:
    """Evidence quotes: a JSON list, or one cell with several quotes separated by ``|`` (a quote may hold
    ``;`` or ``,``)."""
    if value is None:
        return ()
    items = [str(v) for v in value] if isinstance(value, list | tuple) else str(value).split("|")
    return tuple(dict.fromkeys(x.strip() for x in items if x.strip()))


#: SimpleQA's own CSV (``problem, answer, metadata``): the problem is the question, the answer the gold
SIMPLEQA_COLUMNS = frozenset({"problem", "answer"})


def parse_question_file(text: str, filename: str) -> list[LabelledQuestion]:
    """Questions from a CSV (header row) or JSONL file with ``question`` and optional ``gold_answer``,
    ``relevant_sources`` (several separated by ``;`` or ``|``, or JSON lists), ``evidence`` (quotes of the
    passages that answer it, separated by ``|``: passage-level relevance), ``id`` and ``follows`` (the id,
    or the 1-based row, of an earlier question this one continues: it is asked after that question, with
    its answer as the conversation). SimpleQA's CSV as published (``metadata, problem, answer``) is read
    as ``question`` and ``gold_answer``.

    Raises ``RagkitError`` naming the file and the line for a missing column, bad JSON or an empty question.
    """
    rows: list[tuple[int, dict]] = []
    if filename.lower().endswith(".jsonl"):
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise RagkitError(f"{filename}: line {n} is not valid JSON ({e.msg})") from None
            if not isinstance(obj, dict):
                raise RagkitError(f"{filename}: line {n} is not a JSON object")
            rows.append((n, obj))
    elif filename.lower().endswith(".csv"):
        import io

        reader = csv.DictReader(io.StringIO(text))
        fields = [f.strip().lower() for f in reader.fieldnames or []]
        if "question" not in fields and not set(fields) >= SIMPLEQA_COLUMNS:
            raise RagkitError(
                f"{filename}: no 'question' column (found: {', '.join(fields) or 'nothing'}); a question set "
                "has question[, gold_answer, relevant_sources, evidence], or SimpleQA's problem, answer"
            )
        for n, row in enumerate(reader, 2):
            rows.append((n, {(k or "").strip().lower(): v for k, v in row.items()}))
    else:
        raise RagkitError(f"{filename}: question sets are .csv or .jsonl files")
    out: list[LabelledQuestion] = []
    seen: set[str] = set()
    for n, row in rows:
        if "question" not in row and set(row) >= SIMPLEQA_COLUMNS:  # SimpleQA as published
            row = {**row, "question": row["problem"], "gold_answer": row["answer"]}
        q = str(row.get("question") or "").strip()
        if not q:
            raise RagkitError(f"{filename}: line {n} has no question")
        qid = str(row.get("id") or f"q{len(out) + 1:04d}")
        if qid in seen:
            raise RagkitError(f"{filename}: line {n} repeats the id {qid!r}")
        seen.add(qid)
        answers = _split_list(row.get("gold_answer", row.get("gold_answers")))
        sources = _split_list(row.get("relevant_sources"))
        quotes = _split_quotes(row.get("evidence"))
        spans = _evidence_spans(row.get("evidence_spans"), filename, n)
        if spans:
            quotes = ()  # the exact passages win over their quotes (kept in the file for reading)
        absent = not (answers or sources or quotes or spans)  # nothing to find: "I don't know" is right
        follows = _follows(row.get("follows"), [x.qid for x in out], filename, n)
        out.append(
            LabelledQuestion(
                qid, q, answers, tuple((s, 1) for s in sources), spans, absent=absent, quotes=quotes,
                follows=follows,
            )
        )  # fmt: skip
    if not out:
        raise RagkitError(f"{filename}: no questions found")
    return out


def _follows(value: object, earlier: list[str], filename: str, line: int) -> str:
    """The id of the earlier question a row's ``follows`` names (its id, or its 1-based row number)."""
    ref = str(value if value is not None else "").strip()
    if not ref:
        return ""
    if ref in earlier:
        return ref
    if ref.isdigit() and 0 < int(ref) <= len(earlier):
        return earlier[int(ref) - 1]
    raise RagkitError(
        f"{filename}: line {line}: follows {ref!r} names no earlier question (give the id or the row number "
        "of a question above it)"
    )


def _evidence_spans(value: object, filename: str, line: int) -> tuple[Any, ...]:
    """``evidence_spans`` of a JSONL row — ``[{"source": file, "spans": [[page, start, end], …]}, …]``,
    the passages a generated or exported question rests on — as evidence units."""
    if not value:
        return ()
    from ragkit.evaluation.datasets.evidence import merge_passages

    try:
        passages = []
        for item in value:  # type: ignore[attr-defined]
            spans = [(int(p), int(a), int(b)) for p, a, b in item["spans"]]
            if any(a < 0 or b <= a for _, a, b in spans):
                raise ValueError("a span must have 0 <= start < end")
            passages.append((str(item["source"]), spans))
    except (TypeError, KeyError, ValueError) as e:
        raise RagkitError(
            f"{filename}: line {line}: evidence_spans must be a list of "
            f'{{"source": file, "spans": [[page, start, end], …]}} ({e})'
        ) from None
    return tuple(merge_passages(passages))


def load_question_file(path: str | os.PathLike[str]) -> list[LabelledQuestion]:
    """:func:`parse_question_file` on a file on disk."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise RagkitError(f"{p.name}: cannot read the question set ({e})") from None
    return parse_question_file(text, p.name)


def squad_questions(ds: SquadDataset, held_out: frozenset[str] = frozenset()) -> list[LabelledQuestion]:
    """SQuAD questions as labelled questions: the gold paragraph is the relevant source; a question whose
    paragraph is held out of the index has no evidence (no answers, nothing relevant)."""
    out = []
    for q in ds.questions:
        if q.paragraph_id in held_out:
            out.append(LabelledQuestion(q.qid, q.question, absent=True))
        else:
            out.append(LabelledQuestion(q.qid, q.question, q.answers, ((q.paragraph_id, 1),)))
    return out


def held_out_paragraphs(ds: SquadDataset, fraction: float) -> frozenset[str]:
    """Every ``round(1/fraction)``-th paragraph (deterministic, spread over all articles), or none."""
    if fraction <= 0:
        return frozenset()
    if fraction >= 1:
        raise RagkitError(f"holdout fraction must be below 1, got {fraction}")
    step = max(1, round(1 / fraction))
    return frozenset(pid for i, pid in enumerate(ds.paragraphs) if i % step == step - 1)
