"""Word documents -> Markdown, read from the document's XML in the order Word shows it: heading styles
become ``#`` headings, numbered paragraphs and headings keep the numbers Word draws ("1.2", "b)"),
bulleted ones become ``-`` items, equations linear text, tables Markdown tables (a merged
cell written once), and the text python-docx's paragraph view leaves out — text boxes, content controls
(forms), footnotes and endnotes — kept. Deleted revisions, page headers and footers are not text."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Document, Page
from ragkit.ingestion.docx_math import is_math, math_text
from ragkit.ingestion.docx_numbering import Numbering
from ragkit.ingestion.limits import Budget, Limits, check_zip_expansion
from ragkit.ingestion.tables import count_markdown_tables, table_to_markdown

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
#: run content skipped: deleted text, field codes, and the VML copy of a text box Word also stores
_SKIP = {f"{W}del", f"{W}delText", f"{W}instrText", f"{MC}Fallback", f"{W}footnoteReference",
         f"{W}endnoteReference", f"{W}txbxContent"}  # fmt: skip


def _xml(z: zipfile.ZipFile, part: str) -> Any:
    """A part of the package parsed without entities or network (None when the part is missing)."""
    etree = require("lxml.etree", "reading .docx files")
    try:
        raw = z.read(part)
    except KeyError:
        return None
    return etree.fromstring(raw, etree.XMLParser(resolve_entities=False, no_network=True))


def _styles(root: Any) -> dict[str, str]:
    """Style id -> style name (``Heading1`` -> ``heading 1``), from ``word/styles.xml`` (or None)."""
    if root is None:
        return {}
    out = {}
    for s in root.iter(f"{W}style"):
        name = s.find(f"{W}name")
        out[s.get(f"{W}styleId", "")] = (name.get(f"{W}val", "") if name is not None else "").lower()
    return out


def _run_text(el: Any) -> str:
    """The visible text under ``el``: text, tabs and breaks, without deleted or field-code text."""
    out: list[str] = []
    for node in el:
        tag = node.tag
        if tag in _SKIP:
            continue
        if tag == f"{W}t":
            out.append(node.text or "")
        elif tag in (f"{W}tab", f"{W}ptab"):
            out.append(" ")
        elif tag in (f"{W}br", f"{W}cr"):
            out.append("\n")
        elif tag == f"{W}noBreakHyphen":
            out.append("-")
        elif tag == f"{W}sym":
            out.append(chr(int(node.get(f"{W}char", "20"), 16)) if node.get(f"{W}char") else "")
        elif tag == f"{W}tbl" or tag == f"{W}p":
            continue  # read as blocks of their own
        elif is_math(node):
            out.append(f" {math_text(node)} ")  # two equations in one paragraph stay apart
        else:
            out.append(_run_text(node))
    return "".join(out)


#: block-level wrappers whose content is read in place (content controls, custom XML, insertions)
_CONTAINERS = {f"{W}sdt", f"{W}sdtContent", f"{W}customXml", f"{W}smartTag", f"{MC}AlternateContent",
               f"{MC}Choice", f"{W}ins"}  # fmt: skip


def _anchored_in(box: Any, p: Any) -> bool:
    """Whether a text box belongs to paragraph ``p`` itself (not to a box inside it, nor to the VML copy
    of a box that Word stores for old readers)."""
    return next(box.iterancestors(f"{W}p")) is p and not any(
        a.tag == f"{MC}Fallback" for a in box.iterancestors()
    )


class _Reader:
    """Walks ``word/document.xml`` (and the notes) collecting Markdown blocks in reading order."""

    def __init__(self, styles: dict[str, str], numbering: Numbering | None = None) -> None:
        self.styles = styles
        self.numbering = numbering or Numbering(None, None)
        self.parts: list[str] = []

    def paragraph(self, p: Any) -> None:
        text = " ".join(_run_text(p).split())
        boxes = [b for b in p.iter(f"{W}txbxContent") if _anchored_in(b, p)]
        ppr = p.find(f"{W}pPr")
        style_el = ppr.find(f"{W}pStyle") if ppr is not None else None
        style_id = style_el.get(f"{W}val", "") if style_el is not None else ""
        style = self.styles.get(style_id, "")
        num_pr = ppr.find(f"{W}numPr") if ppr is not None else None
        number = self.numbering.label(num_pr, style_id)  # counted even for an empty item, as Word does
        if text:
            if style.startswith("heading") or style == "title":
                level = int(m.group(0)) if (m := re.search(r"\d", style)) else 1
                text = "#" * min(level, 6) + " " + (f"{number} " if number else "") + text
            elif number:
                text = f"{number} {text}"
            elif num_pr is not None or "list" in style:
                text = "- " + text
            self.parts.append(text)
        for box in boxes:  # a text box's paragraphs after the paragraph that anchors it
            self.blocks(box)

    def table(self, tbl: Any) -> None:
        rows: list[list[str | None]] = []
        for tr in tbl.findall(f"{W}tr"):
            row: list[str | None] = []
            for tc in tr.findall(f"{W}tc"):
                pr = tc.find(f"{W}tcPr")
                span = pr.find(f"{W}gridSpan") if pr is not None else None
                merged = pr.find(f"{W}vMerge") if pr is not None else None
                continued = merged is not None and merged.get(f"{W}val", "continue") == "continue"
                inner = _Reader(self.styles, self.numbering)
                inner.blocks(tc)
                text = "" if continued else " ".join(" ".join(inner.parts).split())
                row.append(text)
                row += [""] * (int(span.get(f"{W}val", "1")) - 1 if span is not None else 0)
            rows.append(row)
        md = table_to_markdown(rows)
        if md:
            self.parts.append(md)
        else:  # one column or one row: its text as paragraphs
            self.parts += [c for r in rows for c in r if c]

    def blocks(self, parent: Any) -> None:
        for el in parent:
            if el.tag == f"{W}p":
                self.paragraph(el)
            elif el.tag == f"{W}tbl":
                self.table(el)
            elif el.tag in _CONTAINERS:
                self.blocks(el)


def _notes(
    z: zipfile.ZipFile, styles: dict[str, str], part: str, tag: str, numbering: Numbering
) -> list[str]:
    """The footnotes (or endnotes) as paragraphs, each opened by its number."""
    root = _xml(z, part)
    if root is None:
        return []
    out = []
    for note in root.iter(f"{W}{tag}"):
        if note.get(f"{W}type") in ("separator", "continuationSeparator", "continuationNotice"):
            continue
        reader = _Reader(styles, numbering)
        reader.blocks(note)
        if text := " ".join(" ".join(reader.parts).split()):
            out.append(f"{note.get(f'{W}id', '')} {text}".strip())
    return out


def docx_to_document(name: str, data: bytes) -> Document:
    """A Word document as one Markdown page: headings, list items, tables, text boxes and form fields in
    document order, then its footnotes and endnotes."""
    etree = require("lxml.etree", "reading .docx files")
    limits = Limits.from_env()
    check_zip_expansion(name, data, limits)  # before anything is inflated
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            root = _xml(z, "word/document.xml")
            if root is None:
                raise KeyError("word/document.xml")
            body = root.find(f"{W}body")
            styles_xml = _xml(z, "word/styles.xml")
            styles = _styles(styles_xml)
            numbering = Numbering(_xml(z, "word/numbering.xml"), styles_xml)
            reader = _Reader(styles, numbering)
            if body is not None:
                reader.blocks(body)
            notes = _notes(z, styles, "word/footnotes.xml", "footnote", numbering)
            notes += _notes(z, styles, "word/endnotes.xml", "endnote", numbering)
            title = _core_title(z)
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError, ValueError) as e:
        raise DocumentError(
            name, f"not a readable .docx file — corrupt or not Word ({type(e).__name__})"
        ) from None
    text = "\n\n".join(reader.parts + notes)
    Budget(name, limits).add_text(len(text))
    warnings = [] if text.strip() else ["the document holds no text: nothing to index"]
    page = Page(1, text, count_markdown_tables(text))
    return Document(
        sha256_bytes(data)[:16], name, sha256_bytes(data), (page,), "docx", tuple(warnings),
        meta={"title": title} if title else {},
    )  # fmt: skip


def _core_title(z: zipfile.ZipFile) -> str:
    """The title in the document's properties (``docProps/core.xml``), if any."""
    root = _xml(z, "docProps/core.xml")
    if root is None:
        return ""
    el = root.find("{http://purl.org/dc/elements/1.1/}title")
    return " ".join((el.text or "").split()) if el is not None else ""
