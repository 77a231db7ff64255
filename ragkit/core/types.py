"""Value objects shared across ragkit: pages, documents, chunks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Page:
    """One page of a document; ``number`` is 1-based, ``text`` includes its tables as Markdown."""

    number: int
    text: str
    tables: int = 0  # how many tables were found on this page (their Markdown is inside ``text``)
    #: (start, end) of text the page wrote inside pictures (a chart's labels, a diagram's words)
    pictures: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Document:
    """A parsed file: its pages, name, content hash and what the parser noticed on the way."""

    doc_id: str
    source: str
    sha256: str
    pages: tuple[Page, ...]
    kind: str  # "pdf", "txt", "md", "html", "docx", "qa" or "image" (a scan, read by OCR)
    warnings: tuple[str, ...] = ()
    encoding: str | None = None
    #: where it came from and what it is: ``url``, ``title`` (web pages), ``pairs`` (Q&A: per page, the
    #: pair's ``tags``, ``score``, ``url``); copied onto every chunk's metadata
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    PAGE_SEPARATOR = "\n\n"

    @property
    def text(self) -> str:
        """The pages joined by a blank line; chunkers work on this string."""
        return self.PAGE_SEPARATOR.join(p.text for p in self.pages)

    @property
    def n_chars(self) -> int:
        return sum(len(p.text) for p in self.pages)

    @property
    def n_tables(self) -> int:
        return sum(p.tables for p in self.pages)

    @property
    def empty_pages(self) -> list[int]:
        """Page numbers with no extractable text (usually scanned images)."""
        return [p.number for p in self.pages if not p.text.strip()]

    def page_starts(self) -> list[int]:
        """Offset of each page's first character inside :attr:`text`."""
        starts, pos = [], 0
        for p in self.pages:
            starts.append(pos)
            pos += len(p.text) + len(self.PAGE_SEPARATOR)
        return starts

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pages"] = [{k: v for k, v in asdict(p).items() if k != "pictures" or v} for p in self.pages]
        d["warnings"] = list(self.warnings)
        if not self.meta:
            d.pop("meta")  # documents written before metadata existed read the same
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Document:
        return cls(
            doc_id=d["doc_id"],
            source=d["source"],
            sha256=d["sha256"],
            pages=tuple(
                Page(**{**p, "pictures": tuple(tuple(s) for s in p.get("pictures", ()))}) for p in d["pages"]
            ),
            kind=d["kind"],
            warnings=tuple(d.get("warnings", ())),
            encoding=d.get("encoding"),
            meta=dict(d.get("meta") or {}),
        )


@dataclass(frozen=True)
class Span:
    """Where part of a chunk sits: ``text[start:end]`` of page ``page`` (1-based)."""

    page: int
    start: int
    end: int


@dataclass(frozen=True)
class Chunk:
    """A retrievable passage with enough provenance to cite and highlight it."""

    chunk_id: str
    doc_id: str
    source: str
    index: int
    text: str
    spans: tuple[Span, ...]
    heading_path: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def pages(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(s.page for s in self.spans))

    @property
    def page(self) -> int:
        """First page the chunk touches (what a citation shows)."""
        return self.spans[0].page if self.spans else 1

    @property
    def heading(self) -> str:
        return " > ".join(self.heading_path)

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "source": self.source,
            "index": self.index,
            "text": self.text,
            "spans": [[s.page, s.start, s.end] for s in self.spans],
            "heading_path": list(self.heading_path),
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Chunk:
        return cls(
            chunk_id=d["chunk_id"],
            doc_id=d["doc_id"],
            source=d["source"],
            index=d["index"],
            text=d["text"],
            spans=tuple(Span(*s) for s in d["spans"]),
            heading_path=tuple(d.get("heading_path", ())),
            metadata=d.get("metadata", {}),
        )


#: the rankings a hit can go through, in order (a Hit keeps its score and rank in each); not to be
#: confused with the pipeline's optional stages (ragkit.pipeline.stages) or a progress stage
RANKING_STAGES = ("dense", "bm25", "rrf", "rerank")


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk with its provenance: score and rank at every stage it went through.

    ``scores``/``ranks`` are keyed by stage (``dense`` cosine, ``bm25``, ``rrf``, ``rerank``);
    ``rank`` and ``score`` are the final ones. ``cosine`` is the query-chunk cosine similarity,
    filled in by every retriever (whatever ranked the hit) so confidence has a calibrated signal.
    """

    chunk: Chunk
    rank: int
    score: float
    stage: str
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)
    cosine: float | None = None

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "score": self.score,
            "stage": self.stage,
            "chunk_id": self.chunk.chunk_id,
            "doc_id": self.chunk.doc_id,
            "source": self.chunk.source,
            "page": self.chunk.page,
            "pages": list(self.chunk.pages),
            "heading": self.chunk.heading,
            "text": self.chunk.text,
            "spans": [[sp.page, sp.start, sp.end] for sp in self.chunk.spans],
            "heading_path": list(self.chunk.heading_path),
            "index": self.chunk.index,
            "scores": dict(self.scores),
            "ranks": dict(self.ranks),
            "cosine": self.cosine,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Hit:
        """A hit back from :meth:`to_dict` (a saved chat or comparison); old records without spans get a
        span-less chunk (shown, not highlighted)."""
        chunk = Chunk(
            d["chunk_id"],
            d.get("doc_id", ""),
            d["source"],
            int(d.get("index", 0)),
            d["text"],
            tuple(Span(*s) for s in d.get("spans", ())),
            tuple(d.get("heading_path", ())),
        )
        return cls(
            chunk,
            int(d["rank"]),
            float(d["score"]),
            d.get("stage", ""),
            {k: float(v) for k, v in d.get("scores", {}).items()},
            {k: int(v) for k, v in d.get("ranks", {}).items()},
            d.get("cosine"),
        )

    def movement(self) -> str:
        """How the chunk moved through the stages, e.g. ``"bm25 #7 -> rrf #2 -> rerank #1"``."""
        return " -> ".join(f"{s} #{self.ranks[s]}" for s in RANKING_STAGES if s in self.ranks)


@dataclass(frozen=True)
class Message:
    """One conversation turn: ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str
    pages: tuple[str, ...] = ()  # an assistant turn's web pages (URLs): a follow-up searches them again

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}
