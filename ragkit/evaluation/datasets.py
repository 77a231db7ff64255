"""Loaders for labelled datasets: BEIR (corpus, queries, qrels)."""

from __future__ import annotations

import csv
import gzip
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import RagkitError
from ragkit.hashing import sha256_bytes
from ragkit.types import Document, Page


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
        for pid, (_title, context) in self.paragraphs.items():
            if pid in exclude:
                continue
            docs.append(Document(pid, pid, sha256_bytes(context.encode("utf-8")), (Page(1, context),), "txt"))
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
