"""Question–answer collections (the shape of a Stack Overflow export): CSV or JSONL with ``question`` and
``answer``, and optional ``tags``, ``score``, ``url``; bodies may be HTML (``<p>``, ``<pre><code>``…).

Each pair is one page of a ``qa`` document, ``Q: …`` then ``A: …`` in Markdown, and is chunked into its own
units whatever chunker the config names (a pair is the natural unit): a **question** chunk (it knows its
answer chunk), an **answer** chunk, and one **code** chunk per code block of the answer (code in the
question is not a chunk of its own; blocks shorter than ``MIN_CODE_CHARS`` are skipped). Every chunk carries
``kind``, ``tags``, ``score`` and ``url`` as metadata, so they are shown and can filter a search
(``--where kind=code``). When a question chunk is retrieved, the pipeline hands the LLM — and cites — the
answer it maps to (:func:`resolve_question_hits`).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Chunk, Document, Hit, Page, Span

MIN_CODE_CHARS = 40
_FENCE_BLOCK = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)


def looks_like_qa(name: str, data: bytes) -> bool:
    """A CSV/JSONL file is a Q&A collection when it has ``question`` and ``answer`` fields."""
    head = data[:20000].decode("utf-8-sig", "replace")
    if name.lower().endswith(".csv"):
        first = head.splitlines()[0].lower() if head.strip() else ""
        cols = {c.strip().strip('"') for c in first.split(",")}
        return {"question", "answer"} <= cols
    line = next((x for x in head.splitlines() if x.strip()), "")
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    return isinstance(obj, dict) and {"question", "answer"} <= set(obj)


def qa_document(name: str, data: bytes) -> Document:
    """A Q&A collection file as a ``qa`` document: one page per pair, pair metadata in ``meta["pairs"]``."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DocumentError(name, "a question-answer file must be UTF-8") from None
    rows = _rows(name, text)
    pages, pairs = [], []
    for i, row in enumerate(rows, 1):
        q = to_markdown(str(row.get("question") or ""))
        a = to_markdown(str(row.get("answer") or ""))
        if not q.strip() or not a.strip():
            raise DocumentError(name, f"pair {i} has an empty question or answer")
        pages.append(Page(i, f"Q: {q.strip()}\n\nA: {a.strip()}"))
        tags = row.get("tags") or []
        if isinstance(tags, str):
            tags = [t for t in re.split(r"[;,|\s<>]+", tags) if t]
        score = row.get("score")
        try:
            score = int(score) if score not in (None, "") else None
        except (TypeError, ValueError):
            score = None
        pairs.append({"tags": [str(t) for t in tags], "score": score, "url": str(row.get("url") or "")})
    if not pages:
        raise DocumentError(name, "no question-answer pairs found")
    sha = sha256_bytes(data)
    return Document(sha[:16], name, sha, tuple(pages), "qa", meta={"pairs": pairs})


def _rows(name: str, text: str) -> list[dict[str, Any]]:
    if name.lower().endswith(".jsonl"):
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise DocumentError(name, f"line {n} is not valid JSON ({e})") from None
                if not isinstance(obj, dict):
                    raise DocumentError(name, f"line {n} is not a JSON object")
                rows.append(obj)
        return rows
    reader = csv.DictReader(io.StringIO(text))
    fields = {(f or "").strip().lower() for f in reader.fieldnames or []}
    if not {"question", "answer"} <= fields:
        raise DocumentError(
            name,
            "a question-answer CSV needs 'question' and 'answer' columns "
            f"(found: {', '.join(sorted(fields))})",
        )
    return [{(k or "").strip().lower(): v for k, v in row.items()} for row in reader]


def to_markdown(body: str) -> str:
    """An answer body as Markdown: HTML (``<p>``, ``<pre><code>``, ``<code>``, lists, links) converted,
    plain or Markdown text kept as it is."""
    if "<" not in body or not re.search(
        r"</?(p|pre|code|ul|ol|li|br|a|div|h\d|blockquote|em|strong)\b", body, re.I
    ):
        return body
    lxml_html = require("lxml.html", "reading HTML answers in a Q&A file")
    try:
        root = lxml_html.fragment_fromstring(body, create_parent="div")
    except Exception:
        return re.sub(r"<[^>]+>", "", body)
    out: list[str] = []
    _emit(root, out)
    text = "".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _emit(el: Any, out: list[str]) -> None:
    import html as htmlmod

    tag = el.tag if isinstance(el.tag, str) else ""
    if tag == "pre":
        code = el.text_content()
        out.append(f"\n\n```\n{code.rstrip()}\n```\n\n")
        if el.tail:
            out.append(htmlmod.unescape(el.tail))
        return
    if tag == "code":
        out.append(f"`{el.text_content()}`")
        if el.tail:
            out.append(el.tail)
        return
    if tag in ("p", "div", "blockquote") or re.fullmatch(r"h\d", tag):
        out.append("\n\n" + ("#" * int(tag[1]) + " " if re.fullmatch(r"h\d", tag) else ""))
    if tag == "li":
        out.append("\n- ")
    if tag == "br":
        out.append("\n")
    if el.text:
        out.append(el.text)
    for child in el:
        _emit(child, out)
    if tag in ("p", "div", "blockquote", "ul", "ol") or re.fullmatch(r"h\d", tag):
        out.append("\n\n")
    if el.tail:
        out.append(el.tail)


def qa_chunks(document: Document, key: str) -> list[Chunk]:
    """Question, answer and code chunks of every pair (see the module docstring); ids ``<doc>-<key>-<n>``."""
    pairs = document.meta.get("pairs") or [{}] * len(document.pages)
    chunks: list[Chunk] = []

    def add(page: Page, start: int, end: int, meta: dict[str, Any]) -> Chunk:
        while start < end and page.text[start].isspace():
            start += 1
        while end > start and page.text[end - 1].isspace():
            end -= 1
        c = Chunk(
            f"{document.doc_id}-{key}-{len(chunks):05d}",
            document.doc_id,
            document.source,
            len(chunks),
            page.text[start:end],
            (Span(page.number, start, end),),
            (),
            meta,
        )
        chunks.append(c)
        return c

    for page, pair in zip(document.pages, pairs, strict=False):
        text = page.text
        a_at = text.find("\n\nA: ")
        base = {"tags": pair.get("tags", []), "score": pair.get("score"), "url": pair.get("url", "")}
        base = {k: v for k, v in base.items() if v not in (None, "", [])}
        answer_index = len(chunks) + 1
        add(
            page,
            3,
            a_at,
            {**base, "kind": "question", "answer_id": f"{document.doc_id}-{key}-{answer_index:05d}"},
        )
        add(page, a_at + 5, len(text), {**base, "kind": "answer"})
        for m in _FENCE_BLOCK.finditer(text, a_at + 5):
            if len(m.group(0)) - 8 >= MIN_CODE_CHARS:
                add(page, m.start(), m.end(), {**base, "kind": "code"})
    return chunks


def resolve_question_hits(hits: Sequence[Hit], store: Any) -> tuple[list[Hit], list[dict[str, str]]]:
    """Hits with every question chunk replaced by the answer chunk it maps to (what the LLM should read
    and cite), duplicates dropped; and the record of each swap for the trace."""
    by_id = None
    out: list[Hit] = []
    seen: set[str] = set()
    swaps: list[dict[str, str]] = []
    for h in hits:
        chunk = h.chunk
        if chunk.metadata.get("kind") == "question" and chunk.metadata.get("answer_id"):
            if by_id is None:
                by_id = {c.chunk_id: c for c in store.chunks}
            answer = by_id.get(chunk.metadata["answer_id"])
            if answer is not None:
                swaps.append({"question": chunk.chunk_id, "answer": answer.chunk_id})
                h = Hit(answer, h.rank, h.score, h.stage, dict(h.scores), dict(h.ranks), h.cosine)
        if h.chunk_id in seen:
            continue
        seen.add(h.chunk_id)
        out.append(h)
    return out, swaps


def matches(chunk: Chunk, where: dict[str, str]) -> bool:
    """Whether a chunk's metadata satisfies ``where`` (``kind=code``, ``tags=python``: a list matches when
    it holds the value; ``score>=3`` style is not supported: equality only)."""
    for k, v in where.items():
        value = chunk.metadata.get(k)
        if isinstance(value, list):
            if v not in [str(x) for x in value]:
                return False
        elif str(value) != v:
            return False
    return True
