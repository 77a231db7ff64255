"""Turning results into rows and highlighted text for display (pure; the pages only lay them out)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ragkit.compare import HitComparison
from ragkit.ingest import IngestReport
from ragkit.store import IndexStore
from ragkit.types import STAGES, Chunk, Hit


def hit_rows(hits: Sequence[Hit], comparison: HitComparison | None = None, side: str = "a") -> list[dict]:
    """One row per hit: rank, source, page, every stage score and rank, movement, and (when comparing)
    whether the chunk is shared and how far it moved between A and B."""
    rows = []
    for h in hits:
        row: dict[str, Any] = {"rank": h.rank, "source": h.chunk.source, "page": h.chunk.page}
        for s in STAGES:
            row[f"{s} score"] = round(h.scores[s], 4) if s in h.scores else None
            row[f"{s} rank"] = h.ranks.get(s)
        row["cosine"] = round(h.cosine, 4) if h.cosine is not None else None
        row["movement"] = h.movement()
        if comparison is not None:
            shift = comparison.shift(h.chunk_id)
            row["shared"] = shift is not None
            if shift is not None:
                # positive: the chunk ranks higher in this list than in the other one
                row["shift"] = -shift if side == "a" else shift
        row["text"] = " ".join(h.chunk.text.split())[:300]
        row["chunk_id"] = h.chunk_id
        rows.append(row)
    return rows


def report_rows(report: IngestReport) -> list[dict]:
    return [
        {
            "file": f.file,
            "status": f.status,
            "action": f.action,
            "pages": f.pages,
            "chunks": f.chunks,
            "tables": f.tables,
            "image-only pages": ", ".join(map(str, f.empty_pages)),
            "warnings": "; ".join(f.warnings),
            "error": f.error or "",
        }
        for f in report.files
    ]


def highlighted_page_html(store: IndexStore, chunk: Chunk, context: int = 600) -> str:
    """HTML of the chunk's first page around the chunk, with the chunk's own text in ``<mark>``."""
    doc = store.documents.get(chunk.doc_id)
    if doc is None or not chunk.spans:
        return f"<mark>{html.escape(chunk.text)}</mark>"
    span = chunk.spans[0]
    page = doc.pages[span.page - 1].text
    start = max(0, span.start - context)
    end = min(len(page), span.end + context)
    before = ("…" if start > 0 else "") + html.escape(page[start : span.start])
    after = html.escape(page[span.end : end]) + ("…" if end < len(page) else "")
    marked = html.escape(page[span.start : span.end])
    body = f"{before}<mark>{marked}</mark>{after}".replace("\n", "<br>")
    return f"<div style='font-size:0.9em;line-height:1.45'>{body}</div>"


def chunk_rows(store: IndexStore, source: str | None = None) -> list[dict]:
    """The chunk browser's rows: index, pages, heading path, length and the text."""
    return [
        {
            "source": c.source,
            "chunk": c.index,
            "pages": ", ".join(map(str, c.pages)),
            "heading": c.heading,
            "chars": len(c.text),
            "text": c.text,
        }
        for c in store.chunks
        if source is None or c.source == source
    ]
