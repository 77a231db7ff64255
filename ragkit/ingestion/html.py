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
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Document, Page
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
    table inside it, or a cell of prose."""
    rows = table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr")
    cells = [c for r in rows for c in r if c.tag in ("td", "th")]
    columns = max((sum(1 for c in r if c.tag in ("td", "th")) for r in rows), default=0)
    nested = bool(table.xpath(".//table"))
    wordy = any(len(" ".join(c.itertext()).split()) > LAYOUT_CELL_WORDS for c in cells)
    return len(rows) < 2 or columns < 2 or nested or wordy


def unwrap_layout_tables(tree: Any) -> int:
    """Turn every layout table of ``tree`` into plain blocks (its text read as paragraphs, not as one
    giant table row); returns how many. Data tables are left alone."""
    n = 0
    for table in list(tree.iter("table")):
        if _layout_table(table):
            for el in [table, *table.xpath(".//*[self::tbody or self::thead or self::tfoot or self::tr]")]:
                el.tag = "div"
            for cell in table.xpath("./div//td | ./div//th | ./td | ./th"):
                if cell.getparent() is not None and not cell.xpath("ancestor::table"):
                    cell.tag = "div"
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
            el.tag = "p"
            n += 1
    return n


#: class words of a container that holds an article's text (a body split by ads repeats the class)
_BODY_CLASS = re.compile(r"body|content|article|story|entry|post|text", re.I)
#: what may stand between two parts of one story: no heading, no paragraph, this many words at most
_STORY_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "table", "blockquote", "pre"}
_FURNITURE_WORDS = 12
#: a container is prose when it holds two paragraphs of at least this many words
_PROSE_WORDS = 20
#: class words of a heading set as a styled block ("pf_subheadline"), not as <h2>…<h6>
_SUBHEAD_CLASS = re.compile(r"sub-?head|cross-?head|inter-?title|section-?title", re.I)
#: class words of an article's standfirst (the lede under its headline), often set in a <span>
_LEDE_CLASS = re.compile(r"lede|leader|standfirst|\bdek\b|\bdeck\b", re.I)
_BLOCKS = "p div section article table ul ol dl blockquote pre h1 h2 h3 h4 h5 h6 figure".split()


def join_split_bodies(tree: Any) -> int:
    """An article body split by ads into several containers of one class, joined into the first: the
    extractor reads one container, and the story stopped at the first ad (two thirds of a Wired story
    lost). Only containers of prose whose class names a body, and only across what holds no text of
    the story (no heading or paragraph, a few words: "Advertisement"); containers between the page's
    own section headings are its sections, in order, and stay apart. Returns how many were joined."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for el in tree.xpath("//body//*[self::div or self::section or self::article][@class]"):
        if _BODY_CLASS.search(el.get("class", "")):
            groups.setdefault((el.tag, " ".join(el.get("class", "").split())), []).append(el)
    order = {el: k for k, el in enumerate(tree.iter())}
    n = 0
    for parts in groups.values():
        prose = [el for el in parts if _prose(el)]
        ends = {el: order[el] + sum(1 for _ in el.iterdescendants()) for el in prose}
        target = prev = prose[0] if prose else None
        for el in prose[1:]:
            nested = prev in el.iterancestors() or el in prev.iterancestors()
            if nested or not _only_furniture(tree, order, ends[prev], el):
                target = prev = el
                continue
            for child in list(el):
                target.append(child)
            el.drop_tree()
            prev, n = el, n + 1
    return n


def _only_furniture(tree: Any, order: dict[Any, int], end: int, b: Any) -> bool:
    """Whether what stands between the element at position ``end`` (a container's last descendant, in
    the page as loaded) and container ``b`` holds no heading, no paragraph and at most a few words."""
    between = [el for el in tree.iter() if end < order.get(el, -1) < order[b]]
    if any(isinstance(el.tag, str) and el.tag in _STORY_TAGS for el in between):
        return False
    return sum(len((el.text or "").split()) for el in between) <= _FURNITURE_WORDS


def _prose(el: Any) -> bool:
    """Two paragraphs of prose or more."""
    return sum(len(p.text_content().split()) >= _PROSE_WORDS for p in el.iter("p")) >= 2


def styled_blocks(tree: Any) -> int:
    """Subheadings and standfirsts set as classed blocks of text, as a heading and a paragraph ("<div
    class='pf_subheadline'>Who pays the cost of a tariff?</div>", "<span class='article-leader'>Welcome
    to the new …</span>"): the extractor drops a block that is no paragraph and no heading."""
    n = 0
    for el in tree.xpath("//body//*[self::div or self::span or self::p][@class]"):
        words, cls = el.text_content().split(), el.get("class", "")
        if not words or el.xpath("|".join(f".//{t}" for t in _BLOCKS)):
            continue
        if _SUBHEAD_CLASS.search(cls) and len(words) <= 20:
            el.tag, n = "h3", n + 1
        elif _LEDE_CLASS.search(cls) and el.tag != "p" and len(words) <= 120:
            el.tag, n = "p", n + 1
    return n


#: inline elements: loose text runs through them
_INLINE = set("a abbr b bdi cite code em font i kbd mark q s small span strong sub sup time u".split())
#: a loose run of text this long (words) is a paragraph the page shows
_LOOSE_WORDS = 8


def wrap_loose_text(tree: Any) -> int:
    """Text set loose in a container between blocks or line breaks ("<section>We bring you the best
    deals …<p></p><h2>…</h2><a><img></a>The price of …<br>") as paragraphs: the extractor reads
    paragraphs and drops the rest. A run is the text and inline elements between two blocks; a box of
    text alone is left as it is."""
    etree = require("lxml.etree", "reading HTML")
    n = 0
    for box in tree.xpath("//body//*[self::div or self::section or self::article or self::main]"):
        runs: list[list[Any]] = [[]]
        lead = box.text or ""
        for child in box:
            if isinstance(child.tag, str) and child.tag in _INLINE:
                runs[-1].append(child)
            else:
                runs.append([child])  # a block or a break ends the run; its tail starts the next
        if len(runs) == 1:
            continue  # text and inline elements only: the extractor reads such a box as a paragraph
        for k, run in enumerate(runs):
            head = lead if k == 0 else (run[0].tail or "")
            inline = run if k == 0 else run[1:]
            text = head + "".join(etree.tostring(el, method="text", encoding=str) for el in inline)
            linked = sum(len(a.text_content()) for el in inline for a in el.iter("a"))
            if len(text.split()) < _LOOSE_WORDS or 2 * linked > len(text):
                continue  # short, or mostly link (a wrapped link is dropped as navigation; loose, kept)
            p = etree.Element("p")
            p.text = head
            if k == 0:
                box.text = None
                box.insert(0, p)
            else:
                run[0].tail = None
                run[0].addnext(p)
            for el in inline:
                p.append(el)  # moves it, with its tail
            n += 1
    return n


_HIDDEN_CLASS = {"hidden", "sr-only", "visually-hidden", "screen-reader-text", "invisible"}


def _hidden(el: Any) -> bool:
    """Whether the page keeps ``el`` itself out of sight: display:none, the hidden attribute, or a
    hiding class with no breakpoint that shows it again ("hidden md:block" shows on a wide screen)."""
    style = (el.get("style") or "").replace(" ", "").lower()
    if "display:none" in style or "visibility:hidden" in style or el.get("hidden") is not None:
        return True
    classes = (el.get("class") or "").lower().split()
    return bool(_HIDDEN_CLASS & set(classes)) and not any(":" in c for c in classes)


def drop_hidden(tree: Any) -> int:
    """Remove what the page does not show (structured data in a hidden span: an image URL, "jdadmin",
    a timestamp; an ad-blocker notice): the extractor reads it as text. Returns how many."""
    gone = [el for el in tree.xpath("//body//*[@style or @hidden or @class]") if _hidden(el)]
    for el in gone:
        if el.getparent() is not None:
            el.drop_tree()  # its tail, text that follows it, stays
    return len(gone)


def title_block(tree: Any) -> list[str]:
    """The page's headline (its first ``<h1>`` outside navigation) as a Markdown heading, and the byline
    that follows it, as the page shows them (read before the extractor, which often leaves both out)."""
    out: list[str] = []
    h1 = next(iter(tree.xpath("//body//h1[not(ancestor::nav) and not(ancestor::footer)]")), None)
    if h1 is None:
        return out
    title = " ".join(" ".join(h1.itertext()).split())
    if title:
        out.append(f"# {title}")
    for el in h1.xpath("following::*[@class or @id][position() <= 40]"):
        tag = f"{el.get('class', '')} {el.get('id', '')}".lower()
        text = " ".join(" ".join(el.itertext()).split())
        if _BYLINE.search(tag) and text and len(text.split()) <= BYLINE_WORDS:
            out.append(text)
            break
    return out


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


def keep_captions(tree: Any) -> int:
    """A figure's caption as a paragraph (the extractor drops figures, and their captions with them). Its
    links become plain text and the picture goes (no image is read): a caption that is all link ("Wood
    ducks.") or sits beside a linked picture is otherwise taken for navigation."""
    n = 0
    for cap in tree.xpath("//figcaption[not(ancestor::nav) and not(ancestor::footer)]"):
        figure = next(iter(cap.xpath("ancestor::figure[1]")), None)
        if figure is not None:
            figure.tag = "div"
            for pic in figure.xpath(".//img | .//picture | .//svg | .//video | .//a[not(normalize-space())]"):
                if pic.getparent() is not None:
                    pic.drop_tree()  # the picture (not read) and its link; a table or text in it stays
        cap.tag = "p"
        for link in cap.xpath(".//a"):
            link.drop_tag()
        for el in [cap, *cap.iterdescendants()]:  # the extractor drops whatever is classed a caption
            for attr in ("class", "id"):
                if "caption" in (el.get(attr) or "").lower():
                    el.attrib.pop(attr)
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
    unwrap_layout_tables(tree)
    join_split_bodies(tree)
    styled_blocks(tree)
    wrap_loose_text(tree)
    heading = title_block(tree)
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
    lines = (line.rstrip() for line in _unescape(text.replace("\r\n", "\n")).splitlines())
    text = "\n".join(lines).strip() + "\n"
    # the article's headline and byline, when the extractor took the body without them
    missing = [
        h for h in heading if " ".join(h.lstrip("# ").split()).lower() not in " ".join(text.split()).lower()
    ]
    if missing:
        text = "\n\n".join([*missing, text])
    return Document(
        sha256_bytes(data)[:16],
        name,
        sha256_bytes(data),
        (Page(1, text, count_markdown_tables(text)),),
        "html",
        tuple(warnings),
        meta=info,
    )
