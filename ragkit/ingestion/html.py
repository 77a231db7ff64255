"""HTML -> Markdown with trafilatura: the main content only (navigation, footers, cookie banners and ads
dropped), headings, lists, data tables and code kept. The text is what the page shows and nothing else:
tables used for layout (an essay set in a one-cell table) are read as the text they hold, the Markdown
escapes the extractor adds are undone, and what the page's head says about it (title, date, author, site)
is the document's metadata, never part of its text."""

from __future__ import annotations

import json
import re
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.folding import fold
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Document, Page
from ragkit.ingestion.html_blocks import CAPTION_CLASS, CAPTION_WORDS, STANDFIRST, page_blocks, restore_blocks
from ragkit.ingestion.html_repair import (
    drop_heading_anchors,
    drop_hidden,
    flatten_cells,
    indents_dropped,
    join_split_bodies,
    shown_in_print,
    styled_blocks,
    unquote_tables,
    wrap_loose_text,
)
from ragkit.ingestion.tables import count_markdown_tables

#: a cell with more words than this is prose, not a value: its table lays the page out
LAYOUT_CELL_WORDS = 60
#: head <meta> names that state when the page was published (property, name or itemprop)
DATE_META = ("article:published_time", "datepublished", "date", "dc.date", "dc.date.issued",
             "dcterms.created", "dcterms.date", "dcterms.issued", "publish-date", "publication_date",
             "citation_publication_date", "citation_date", "parsely-pub-date", "sailthru.date")  # fmt: skip
AUTHOR_META = ("author", "article:author", "dc.creator", "citation_author", "parsely-author")
SITE_META = ("og:site_name", "application-name")
#: Markdown escapes the extractor writes ("\\[1\\]", "read\\_bytes"); a table row keeps its "\\|"
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>~|])")
_ROW_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>~])")


def _layout_table(table: Any) -> bool:
    """A table that lays the page out rather than holding data: fewer than two rows or two columns, a
    table inside it, or a cell of prose holding half the table's words (a list of films with a long
    synopsis in one row is data)."""
    rows = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    cells = [c for r in rows for c in r if c.tag in ("td", "th")]
    columns = max((sum(1 for c in r if c.tag in ("td", "th")) for r in rows), default=0)
    nested = bool(table.xpath(".//table"))
    words = [len(" ".join(c.itertext()).split()) for c in cells]
    wordy = any(w > LAYOUT_CELL_WORDS and 2 * w >= sum(words) for w in words)
    return len(rows) < 2 or columns < 2 or nested or wordy


_BLOCK_CHILD = " | ".join(
    f".//{t}" for t in "p div ul ol dl table blockquote pre h1 h2 h3 h4 h5 h6 section article br".split()
)


def unwrap_layout_tables(tree: Any) -> int:
    """Turn every layout table of ``tree`` into plain blocks (its text read as paragraphs, not as one
    giant table row); returns how many. Data tables are left alone, a data table set inside a layout
    table included (its rows were made blocks with the layout's, and the table was lost)."""
    n = 0
    for table in list(tree.iter("table")):
        if not _layout_table(table):
            continue
        own = [el for el in table.iter("tbody", "thead", "tfoot", "tr", "td", "th")
               if next(el.iterancestors("table"), None) is table]  # fmt: skip
        for el in own:
            # a cell of text alone is a paragraph: the extractor drops a bare <div> of text
            text_alone = el.tag in ("td", "th") and not el.xpath(_BLOCK_CHILD)
            el.tag = "p" if text_alone else "div"
        table.tag = "div"
        n += 1
    return n


_BYLINE = re.compile(
    r"byline|dateline|author|posted|pubdate|publish|timestamp|entry-meta|post-meta|article-meta"
)
#: words above which a "byline" is a block of navigation or a biography, not the line under a title
BYLINE_WORDS = 30


def keep_bylines(tree: Any) -> int:
    """Make the page's byline and dateline ordinary paragraphs ("Posted on 12 September 2024 by …"): the
    extractor drops them as boilerplate, but they are text the page shows and questions ask about
    ("When was it published?"). Only short ones outside navigation, headers and footers."""
    n = 0
    done: list[Any] = []
    for el in tree.xpath("//body//*[@class or @id][not(ancestor::nav) and not(ancestor::footer)]"):
        tag = f"{el.get('class', '')} {el.get('id', '')}".lower()
        text = " ".join(" ".join(el.itertext()).split())
        if any(el in d.iterdescendants() for d in done):
            continue  # inside a byline already kept: its text is there
        if _BYLINE.search(tag) and text and len(text.split()) <= BYLINE_WORDS and el.tag != "a":
            done.append(el)
            for attr in ("class", "id", "itemprop", "rel"):
                el.attrib.pop(attr, None)
            if not el.xpath("ancestor::p"):  # a dateline opening a paragraph stays inline: a <p> would cut it
                el.tag = "p"
            n += 1
    return n


def title_block(tree: Any) -> list[str]:
    """The page's headline as a Markdown heading (of its ``<h1>`` outside navigation, the one the page's
    title names most of, or the first: a site's logo is often an ``<h1>`` too, "V8"), and the byline
    that follows it, as the page shows them (read before the extractor, which often leaves both out)."""
    out: list[str] = []
    ones = tree.xpath("//body//h1[not(ancestor::nav) and not(ancestor::footer)]")
    titles = [
        fold(t) for t in tree.xpath("//head/title//text() | //head/meta[@property='og:title']/@content")
    ]
    folded = {h: fold(" ".join(h.itertext())) for h in ones}
    named = [h for h in ones if folded[h] and any(folded[h] in t for t in titles)]
    # the longest the title names (the first of equals), else the first
    h1 = max(named, key=lambda h: len(folded[h])) if named else next(iter(ones), None)
    if h1 is None:
        return out
    title = " ".join(" ".join(h1.itertext()).split())
    if dateline := _dateline(h1):
        out.append(dateline)
    if title:
        out.append(f"# {title}")
    dek = _dek(h1)
    if dek:
        out.append(dek)
    for el in h1.xpath("following::*[@class or @id][position() <= 40]"):
        tag = f"{el.get('class', '')} {el.get('id', '')}".lower()
        text = _shown(el)
        dated = el.tag in ("p", "div", "span") and el.xpath("./time")  # "Published <time>…</time>"
        if (_BYLINE.search(tag) or dated) and text and len(text.split()) <= BYLINE_WORDS:
            out.append(text)
            break
    return out


def _shown(el: Any) -> str:
    """An inline block's text as the page shows it: its pieces as they meet ("Passel" and a link "24
    comments" set against it read "Passel24 comments"), a line break as a space."""
    pieces = el.xpath(".//text() | .//br")
    return " ".join("".join(p if isinstance(p, str) else " " for p in pieces).split())


def _sibling(el: Any, preceding: bool) -> Any:
    """The element just before (or after) ``el`` among its siblings, comments and processing instructions
    passed over; None when there is none."""
    return next((x for x in el.itersiblings(preceding=preceding) if isinstance(x.tag, str)), None)


#: a date as a page prints it: "November 20, 2014", "20 Nov 2014", "2014-11-20"
_DATE = re.compile(
    r"\b(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2},? \d{4}"
    r"|\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{4}|\d{4}-\d{2}-\d{2})\b"
)


def _dateline(h1: Any) -> str:
    """The date the page sets just above its headline ("November 20, 2014" over Pew's title), as shown:
    the extractor drops it as boilerplate; "" when the block before the headline is no short date."""
    el = _sibling(h1, preceding=True)
    if el is None or el.tag not in ("p", "div", "span", "time"):
        return ""
    text = _shown(el)
    return text if len(text.split()) <= 6 and _DATE.search(text) else ""


def _dek(h1: Any) -> str:
    """The headline's subtitle set just under it: the next block, when the page marks it as the article's
    description or standfirst (``itemprop="description"``, a "dek" class) or it is a subheading in the
    headline's own ``<header>`` ("Turning your rented space into a smart home can be tricky; we have some
    advice." under Ars Technica's headline); "" when there is none."""
    el = _sibling(h1, preceding=False)
    if el is None or el.tag not in ("h2", "h3", "p", "div"):
        return ""
    text = " ".join(" ".join(el.itertext()).split())
    marked = el.get("itemprop") in ("description", "alternativeHeadline") or STANDFIRST.search(
        el.get("class", "")
    )
    under = el.tag in ("h2", "h3") and h1.getparent() is not None and h1.getparent().tag == "header"
    return text if (marked or under) and 0 < len(text.split()) <= CAPTION_WORDS else ""


_CROSSED = ("s", "del", "strike")


def plain_inline(tree: Any) -> int:
    """Superscripts, subscripts and emphasis around a lone symbol as the plain text the page shows ("[1]",
    "x2", "^"), underlines as plain text, a disclosure's summary as a paragraph: the extractor would write
    ``<sup>`` and ``<u>`` tags, ``**^**`` and ``~~~~``, markup the page does not show. Returns how many."""
    n = 0
    for el in tree.xpath(
        "//sup | //sub | //u | //ins | //b | //strong | //i | //em | //s | //del | //strike"
    ):
        text = "".join(el.itertext())
        crossed = el.tag in _CROSSED and any(a.tag in _CROSSED for a in el.iterancestors())
        if el.tag in ("sup", "sub", "u", "ins") or crossed or (text.strip() and not re.search(r"\w", text)):
            el.tag = "span"  # underline has no Markdown: the extractor would write <u>; ~~ in ~~ is ~~~~
            n += 1
    for el in tree.xpath("//details/summary"):
        el.tag = "p"  # a disclosure's label is text the page shows; the extractor drops it
        n += 1
    return n


def _classed_captions(tree: Any) -> list[Any]:
    """Blocks classed as a caption (a wiki's ``thumbcaption``, a blog's ``wp-caption-text``) outside
    navigation and paragraphs (a caption set inside a sentence's paragraph would split it), the innermost
    where one holds another, of a caption's length."""
    found = [
        el
        for el in tree.xpath("//body//*[self::div or self::span or self::p][@class]")
        if any(CAPTION_CLASS.match(c) for c in el.get("class", "").split())
        and not el.xpath("ancestor::nav or ancestor::footer or ancestor::figcaption or ancestor::p")
    ]
    inner = [el for el in found if not any(o is not el and el in o.iterancestors() for o in found)]
    return [el for el in inner if 0 < len(" ".join(el.itertext()).split()) <= CAPTION_WORDS]


def keep_captions(tree: Any) -> int:
    """A figure's caption as a paragraph (the extractor drops figures, and their captions with them). Its
    links become plain text and the picture goes (no image is read): a caption that is all link ("Wood
    ducks.") or sits beside a linked picture is otherwise taken for navigation. A block classed as a
    caption is read the same way, its parent standing for the figure."""
    n = 0
    figcaptions = tree.xpath("//figcaption[not(ancestor::nav) and not(ancestor::footer)]")
    for cap in figcaptions + _classed_captions(tree):
        figure = next(iter(cap.xpath("ancestor::figure[1]")), None)
        if figure is None and cap.tag != "figcaption":
            figure = cap.getparent()
        if figure is not None:
            if figure.tag == "figure":
                figure.tag = "div"
            for pic in figure.xpath(".//img | .//picture | .//svg | .//video | .//a[not(normalize-space())]"):
                if pic.getparent() is not None:
                    pic.drop_tree()  # the picture (not read) and its link; a table or text in it stays
        cap.tag = "p"
        for empty in cap.xpath(".//*[not(normalize-space())]"):  # a "magnify" icon: a block in a <p>
            if empty.getparent() is not None:
                empty.drop_tree()
        for link in cap.xpath(".//a"):
            link.drop_tag()
        # the extractor drops whatever is classed a caption, and the block round it ("has-caption")
        for el in [cap, *cap.iterdescendants(), *cap.iterancestors()]:
            if "caption" in (el.get("id") or "").lower():
                el.attrib.pop("id")
            if "caption" in (el.get("class") or "").lower():
                el.set(
                    "class", " ".join(c for c in el.get("class", "").split() if "caption" not in c.lower())
                )
        n += 1
    return n


def _head_meta(tree: Any, names: tuple[str, ...]) -> tuple[str, str] | None:
    """The first head ``<meta>`` among ``names`` (matched on property, name or itemprop): (value, tag)."""
    for node in tree.xpath("//meta[@content]"):
        for attr in ("property", "name", "itemprop"):
            key = (node.get(attr) or "").strip().lower()
            if key in names and node.get("content", "").strip():
                return node.get("content").strip(), f'<meta {attr}="{node.get(attr)}">'
    return None


def _json_ld_date(tree: Any) -> tuple[str, str] | None:
    for script in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict) and isinstance(item.get("datePublished"), str):
                return item["datePublished"], "JSON-LD datePublished"
    return None


def page_metadata(tree: Any) -> dict[str, str]:
    """What the page's head states about it: ``published`` (ISO date) with ``published_from`` (the tag it
    came from), ``author``, ``site_name``. A date is kept only when the head states one: never guessed
    from the URL, a copyright line or the text."""
    import datetime as dt

    info: dict[str, str] = {}
    found = _head_meta(tree, DATE_META) or _json_ld_date(tree)
    if found:
        try:
            day = dt.date.fromisoformat(found[0].strip()[:10])
        except ValueError:
            day = None
        if day is not None:
            info["published"], info["published_from"] = day.isoformat(), f"HTML head, {found[1]}"
    for key, names in (("author", AUTHOR_META), ("site_name", SITE_META)):
        if (value := _head_meta(tree, names)) is not None:
            info[key] = " ".join(value[0].split())[:200]
    return info


def _unescape(text: str) -> str:
    """The extractor's Markdown escapes undone outside table rows (a row's ``\\|`` separates nothing)."""
    return "\n".join(
        (_ROW_ESCAPE if line.lstrip().startswith("|") else _ESCAPE).sub(r"\1", line)
        for line in text.split("\n")
    )


def html_to_document(name: str, data: bytes, url: str | None = None) -> Document:
    """The main content of an HTML page as a one-page Markdown document (``name`` is its file name or URL)."""
    trafilatura = require("trafilatura", "reading HTML")
    load_html = require("trafilatura.utils", "reading HTML").load_html

    tree = load_html(data)  # decoded by its declared or detected charset ("—", not "â")
    if tree is None:
        raise DocumentError(name, "not a readable HTML page (no document could be parsed)")
    drop_hidden(tree)
    shown_in_print(tree)
    drop_heading_anchors(tree)
    unwrap_layout_tables(tree)
    unquote_tables(tree)
    flatten_cells(tree)
    join_split_bodies(tree)
    styled_blocks(tree)
    wrap_loose_text(tree)
    heading = title_block(tree)
    blocks = page_blocks(tree)
    keep_bylines(tree)
    keep_captions(tree)
    plain_inline(tree)
    text = trafilatura.extract(
        tree,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_images=False,
        include_comments=False,
        favor_recall=True,
        url=url,
    )
    warnings: list[str] = []
    if not text or not text.strip():
        # a page with no article-like block (a bare <pre>, a list of links): keep its text as a whole
        _, baseline_text, _ = trafilatura.baseline(data)
        text = baseline_text or ""
        if text.strip():
            warnings.append("no main content block found: the page's whole text was kept")
    if not text or not text.strip():
        raise DocumentError(
            name, "no main text found in the page (empty after removing navigation and boilerplate)"
        )
    meta = trafilatura.extract_metadata(tree, default_url=url)  # its title (site name cut); not its date
    title = (meta.title if meta is not None else None) or tree.findtext(".//title") or ""
    info: dict[str, Any] = {"title": " ".join(title.split())}
    info.update(page_metadata(tree))
    if url:
        info["url"] = url
    # trafilatura ends table rows with a space: strip line ends, so tables are plain Markdown
    lines = (line.rstrip() for line in indents_dropped(_unescape(text.replace("\r\n", "\n"))).splitlines())
    text = "\n".join(lines).strip()
    # the article's headline and byline, when the extractor took the body without them; then the
    # headings, captions and standfirst it dropped, each before the text that follows it on the page
    missing = [
        h for h in heading if " ".join(h.lstrip("# ").split()).lower() not in " ".join(text.split()).lower()
    ]
    text = restore_blocks("\n\n".join([*missing, text]), blocks) + "\n"
    return Document(
        sha256_bytes(data)[:16],
        name,
        sha256_bytes(data),
        (Page(1, text, count_markdown_tables(text)),),
        "html",
        tuple(warnings),
        meta=info,
    )
