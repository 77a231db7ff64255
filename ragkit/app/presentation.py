"""Turning results into rows and highlighted text for display (pure; the pages only lay them out).

Text that comes from documents (and answers, which quote them) is rendered so that nothing in it is
fetched by the viewer's browser: Markdown images become plain text, raw HTML is escaped, and only
``http(s)`` links stay links (a link is followed only when clicked).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.app.compare import HitComparison
from ragkit.core.types import RANKING_STAGES, Chunk, Hit
from ragkit.index.reports import IngestReport
from ragkit.index.store import IndexStore
from ragkit.ingestion.reading import page_ranges


def hit_rows(hits: Sequence[Hit], comparison: HitComparison | None = None, side: str = "a") -> list[dict]:
    """One row per hit: rank, source, page, every stage score and rank, movement, and (when comparing)
    whether the chunk is shared and how far it moved between A and B."""
    rows = []
    for h in hits:
        row: dict[str, Any] = {
            "rank": h.rank,
            "source": plain_name(h.chunk.source),
            "page": h.chunk.page,
            "text": " ".join(h.chunk.text.split())[:300],  # early: readable without scrolling sideways
        }
        for s in RANKING_STAGES:
            row[f"{s} score"] = round(h.scores[s], 4) if s in h.scores else None
            row[f"{s} rank"] = h.ranks.get(s)
        row["cosine"] = round(h.cosine, 4) if h.cosine is not None else None
        row["movement"] = h.movement()
        for k in ("kind", "url", "tags", "score"):
            if k in h.chunk.metadata:
                v = h.chunk.metadata[k]
                row[k] = ", ".join(map(str, v)) if isinstance(v, list) else v
        if comparison is not None:
            shift = comparison.shift(h.chunk_id)
            row["shared"] = shift is not None
            if shift is not None:
                # positive: the chunk ranks higher in this list than in the other one
                row["shift"] = -shift if side == "a" else shift
        row["chunk_id"] = h.chunk_id
        rows.append(row)
    return rows


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 page``, ``3 pages``: a count with its noun in the right number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def split_notes(warnings: Sequence[str]) -> tuple[list[str], list[str]]:
    """A file's parse messages as (notes, warnings): that OCR read a page is information, not a problem."""
    from ragkit.ingestion.ocr import OCR_NOTE

    notes = [w for w in warnings if w.startswith(OCR_NOTE)]
    return notes, [w for w in warnings if not w.startswith(OCR_NOTE)]


def metadata_line(meta: Mapping[str, Any]) -> str:
    """What a page's head said about it, shown as metadata (never part of the text): "page metadata:
    published 2023-01-01 (HTML head, <meta property="article:published_time">) · author A. Writer"."""
    parts = []
    if meta.get("published"):
        parts.append(f"published {meta['published']} ({meta.get('published_from', 'page metadata')})")
    parts += [
        f"{label} {meta[key]}"
        for key, label in (("author", "author"), ("site_name", "site"))
        if meta.get(key)
    ]
    return ("page metadata: " + " · ".join(parts)) if parts else ""


def report_rows(report: IngestReport) -> list[dict]:
    return [
        {
            "file": plain_name(f.file),
            "status": f.status,
            "action": f.action,
            "pages": f.pages,
            "chunks": f.chunks,
            "tables": f.tables,
            "image-only pages": page_ranges(f.empty_pages),
            "notes": "; ".join(split_notes(f.warnings)[0]),
            "warnings": "; ".join(split_notes(f.warnings)[1]),
            "error": f.error or "",
        }
        for f in report.files
    ]


def find_document(documents: Any, chunk: Chunk) -> Any:
    """The parsed document a chunk comes from: ``documents`` is an index store, a collection, a mapping
    (by id or file name) or a list of documents."""
    docs = getattr(documents, "documents", documents)
    if callable(docs):  # a Collection: documents() lists them
        docs = docs()
    if isinstance(docs, Mapping):
        found = docs.get(chunk.doc_id) or docs.get(chunk.source)
        if found is not None:
            return found
        docs = list(docs.values())
    doc = next((d for d in docs or () if d.source == chunk.source), None)
    if doc is not None and hasattr(documents, "readings") and not reads(doc, chunk):
        # a chunk of a config that reads the PDF with another parser: its spans are of that reading
        doc = next((d for d in documents.readings(doc) if reads(d, chunk)), doc)
    return doc


def reads(doc: Any, chunk: Chunk) -> bool:
    """Whether ``doc``'s page text at the chunk's first span is the chunk's own text (the same reading)."""
    s = chunk.spans[0] if chunk.spans else None
    if s is None or not 0 < s.page <= len(doc.pages):
        return False
    piece = " ".join(doc.pages[s.page - 1].text[s.start : s.end].split())
    return bool(piece) and piece in " ".join(chunk.text.split())


def highlighted_page_html(documents: Any, chunk: Chunk, context: int = 600) -> str:
    """HTML of the chunk's page around the chunk, with the chunk's own text in ``<mark>`` (every span of
    it on that page: a split table's repeated header as well as the rows)."""
    doc = find_document(documents, chunk)
    if doc is None or not chunk.spans:
        return f"<mark>{html.escape(chunk.text)}</mark>".replace("\n", "<br>")
    by_page: dict[int, int] = {}
    for sp in chunk.spans:
        by_page[sp.page] = by_page.get(sp.page, 0) + sp.end - sp.start
    page_no = max(by_page, key=lambda p: (by_page[p], -p))  # the page holding most of the chunk
    spans = sorted((s.start, s.end) for s in chunk.spans if s.page == page_no)
    page = doc.pages[page_no - 1].text
    # each span with some context; spans far apart (a table's header and the rows below) are shown as
    # separate excerpts joined by "…" instead of everything in between
    ctx = context if len(spans) == 1 else context // 3
    windows: list[list[int]] = []
    for s, e in spans:
        lo, hi = max(0, s - ctx), min(len(page), e + ctx)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    parts = []
    for w_lo, w_hi in windows:
        pos = w_lo
        piece = ["…" if w_lo > 0 else ""]
        for s, e in spans:
            if s >= w_hi or e <= w_lo:
                continue
            piece.append(html.escape(page[pos:s]))
            piece.append(f"<mark>{html.escape(page[s:e])}</mark>")
            pos = e
        piece.append(html.escape(page[pos:w_hi]) + ("…" if w_hi < len(page) else ""))
        parts.append("".join(piece))
    # blank runs (between a table and a paragraph, around picture text) are one paragraph gap, not a tall
    # empty box
    body = re.sub(r"(?:[ \t]*\n){3,}", "\n\n", "<br>".join(parts)).replace("\n", "<br>")
    return f"<div style='font-size:0.9em;line-height:1.45'>{body}</div>"


def chunk_rows(store: IndexStore, source: str | None = None) -> list[dict]:
    """The chunk browser's rows: index, pages, heading path, length and the text."""
    return [
        {
            "source": plain_name(c.source),
            "chunk": c.index,
            "pages": ", ".join(map(str, c.pages)),
            "heading": c.heading,
            "chars": len(c.text),
            **{
                k: (", ".join(map(str, c.metadata[k])) if isinstance(c.metadata[k], list) else c.metadata[k])
                for k in ("kind", "tags", "score", "url")
                if k in c.metadata
            },
            "text": c.text,
        }
        for c in store.chunks
        if source is None or c.source == source
    ]


# ------------------------------------------------------------------ safe rendering

_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\n]*)\)")
_IMAGE_REF = re.compile(r"!\[")
_LINK = re.compile(r"(?<!\\)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'][^\n]*?[\"'])?\s*\)")
_REF_DEF = re.compile(r"^( {0,3})\[([^\]\n]+)\]:", re.MULTILINE)
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*)>")
_SAFE_SCHEME = re.compile(r"^https?://", re.IGNORECASE)


def safe_markdown(text: str) -> str:
    """``text`` as Markdown that loads nothing remote: images become ``[image: alt]`` text, links keep
    only ``http(s)`` targets (others become their text), reference definitions are neutralised, and
    ``<``/``>``/``&`` are escaped so no raw HTML can render even where HTML is allowed."""
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]", text)
    text = _IMAGE_REF.sub(r"!\\[", text)  # reference-style images: "![x][ref]" shown literally

    def link(m: re.Match[str]) -> str:
        target = m.group(2)
        return m.group(0) if _SAFE_SCHEME.match(target) else m.group(1)

    text = _LINK.sub(link, text)
    text = _REF_DEF.sub(lambda m: f"{m.group(1)}\\[{m.group(2)}]:", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _AUTOLINK.sub(lambda m: m.group(0), text)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def display_name(name: str) -> str:
    """A file name as literal Markdown text on one line: control characters shown as ``␊``-style
    symbols, Markdown syntax escaped (a file named ``**x**.txt`` or with a newline breaks no listing)."""
    shown = "".join(chr(0x2400 + ord(c)) if ord(c) < 32 else c for c in name)
    return _MD_SPECIAL.sub(r"\\\1", shown)


def plain_name(name: str) -> str:
    """A file name on one line for plain-text places (tables, CSV): control characters made visible."""
    return "".join(chr(0x2400 + ord(c)) if ord(c) < 32 else c for c in name)


CITATION_CSS = (
    "<style>.rk-cite{margin:0.15rem 0}.rk-cite>.rk-body{display:none;border-left:3px solid #f0b429;"
    "padding:0.4rem 0.7rem;margin:0.3rem 0 0.6rem 0;background:rgba(240,180,41,0.08)}"
    ".rk-cite:target>.rk-body{display:block}.rk-cite>a{text-decoration:none}"
    ".rk-cite:target>a{font-weight:600}a.rk-ref{text-decoration:none;font-weight:600}"
    "a.rk-bad{color:#c0392b;text-decoration:underline wavy #c0392b}</style>"
)


def cite_anchor(key: str, n: int) -> str:
    return f"cite-{re.sub(r'[^A-Za-z0-9_-]', '-', key)}-{n}"


def answer_html(
    text: str,
    n_sources: int,
    key: str,
    style: str = "numbered",
    cited: Sequence[int] = (),
    unsupported: Sequence[Sequence[int]] = (),
) -> tuple[str, dict[int, int]]:
    """The answer as safe Markdown whose citations are renumbered in the order cited and are links that
    open their passage (``[2]`` -> ``#cite-<key>-2``); returns it and the old -> new number map.

    Other prompt styles cite by "Context 2" or Markdown links: their numbers stay as the model wrote them
    (``cited``) and only ``[n]`` markers become links.

    ``unsupported[k]`` lists the source numbers of the k-th ``[n]`` marker that do not support their
    sentence (``citations_check.unsupported_markers``): those links are marked (class ``rk-bad``)."""
    from ragkit.pipeline.citations import code_regions, renumber

    if style == "numbered":
        shown, mapping = renumber(text, n_sources)
    else:
        shown, mapping = text, {n: n for n in cited}
    safe = safe_markdown(shown)
    valid = set(mapping.values())
    bad = [{mapping.get(n, n) for n in marker} for marker in unsupported]
    seen = [0]

    def link(m: re.Match[str]) -> str:
        k = seen[0]
        seen[0] += 1
        nums = [int(x) for x in re.findall(r"\d+", m.group(0))]
        if not nums or any(n not in valid for n in nums):
            return m.group(0)
        flagged = bad[k] if k < len(bad) else set()
        return "".join(
            f'<a class="rk-ref rk-bad" href="#{cite_anchor(key, n)}" title="source [{n}] does not support '
            f'this sentence (citation check)">[{n}]</a>'
            if n in flagged
            else f'<a class="rk-ref" href="#{cite_anchor(key, n)}">[{n}]</a>'
            for n in nums
        )

    code = code_regions(safe)
    out, pos = [], 0
    for m in re.finditer(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]", safe):
        if any(a <= m.start() < b for a, b in code):
            continue  # "[1]" in code is code: never a link (it would print as raw HTML there)
        out += [safe[pos : m.start()], link(m)]
        pos = m.end()
    return "".join([*out, safe[pos:]]), mapping


def renumbered_refs(line: str, mapping: dict[int, int]) -> str:
    """A line naming sources by their original ``[n]`` with the numbers the reader sees (see
    :func:`answer_html`)."""
    return re.sub(r"\[(\d+)\]", lambda m: f"[{mapping.get(int(m.group(1)), int(m.group(1)))}]", line)


def citation_block_html(key: str, n: int, label: str, passage_html: str, url: str | None = None) -> str:
    """One cited source: its label is a link that opens the passage below it (CSS ``:target``, no
    script), which is also where the answer's ``[n]`` points; a web source also links to its page
    (``http(s)`` only, opened in a new tab)."""
    anchor = cite_anchor(key, n)
    link = ""
    if url and _SAFE_SCHEME.match(url):
        link = (
            f' · <a class="rk-url" href="{html.escape(url, quote=True)}" target="_blank" '
            f'rel="noopener noreferrer nofollow">{html.escape(url)}</a>'
        )
    return (
        f'<div class="rk-cite" id="{anchor}"><a href="#{anchor}">{html.escape(label)}</a>{link}'
        f'<div class="rk-body">{passage_html}</div></div>'
    )


def problem_line(p: dict[str, Any]) -> str:
    """One set-aside row of a question file in a sentence: the question, why, and the nearest passage
    with how it differs (what the CLI prints and the Evaluate page lists)."""
    head = f"question {p['qid']} ({p['question'][:60]!r}): {p['why']}"
    near = p.get("nearest")
    if p.get("quote") is None:
        return head
    head += f" — quote {p['quote'][:80]!r}"
    if not near:
        return head + "; no passage of the collection shares a third of its words"
    where = f"{near['source']} p{near['page']}"
    return (
        head
        + f"; nearest ({where}, {near['shared']:.0%} of its words): {near['text'][:120]!r} — {near['why']}"
    )
