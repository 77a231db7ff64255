"""What a web page shows that the extractor (trafilatura) would drop or misread, put right on the
parsed tree before extraction: a story split by ads into parts, subheadings and standfirsts set as
classed blocks, text set loose between blocks; and what the page hides, taken out so it is not read as
text. Each function changes the tree in place and returns how many elements it changed."""

from __future__ import annotations

import re
from typing import Any

from ragkit.core.optional import require

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
    elements = list(tree.iter())  # the page as loaded, in document order
    order = {el: k for k, el in enumerate(elements)}
    n = 0
    for parts in groups.values():
        prose = [el for el in parts if _prose(el)]
        ends = {el: order[el] + sum(1 for _ in el.iterdescendants()) for el in prose}
        target = prev = prose[0] if prose else None
        for el in prose[1:]:
            nested = prev in el.iterancestors() or el in prev.iterancestors()
            if nested or not _only_furniture(elements[ends[prev] + 1 : order[el]]):
                target = prev = el
                continue
            if (el.text or "").strip():  # the part's own text before its first element goes too
                lead = el.makeelement("p", {})
                lead.text, el.text = el.text, None
                target.append(lead)
            for child in list(el):
                target.append(child)
            el.drop_tree()
            prev, n = el, n + 1
    return n


def _only_furniture(between: list[Any]) -> bool:
    """Whether the elements standing between two containers (in the page as loaded) hold no heading, no
    paragraph and at most a few words."""
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


_HIDDEN_CLASS = {"hidden", "is-hidden", "sr-only", "visually-hidden", "screen-reader-text", "invisible",
                 "off-screen", "offscreen"}  # fmt: skip


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
    a timestamp; an ad-blocker notice): the extractor reads it as text. Scripts, styles and templates in
    the body go too (a byline's e-mail obfuscation script was read as its text); JSON-LD stays, it is
    the page's metadata. Returns how many."""
    gone = [el for el in tree.xpath("//body//*[@style or @hidden or @class]") if _hidden(el)]
    gone += tree.xpath('//body//script[not(@type="application/ld+json")] | //body//style | //body//template')
    for el in gone:
        if el.getparent() is not None:
            el.drop_tree()  # its tail, text that follows it, stays
    return len(gone)


def drop_heading_anchors(tree: Any) -> int:
    """Remove a heading's permalink anchor: a link to the heading itself that reads as one symbol ("¶",
    "#", "§", "🔗") or nothing (Sphinx, MkDocs, a static site's "#"). The page shows it on hover, to
    copy the link; read, it ends every heading ("Conclusion¶"). Returns how many."""
    gone = [
        a
        for a in tree.xpath("//body//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
                            "//a[starts-with(normalize-space(@href), '#')]")
        if len(shown := "".join(a.itertext()).strip()) <= 1 and not re.search(r"\w", shown)
    ]  # fmt: skip
    for a in gone:
        a.drop_tree()  # its tail stays
    return len(gone)


#: classes that hide an element only in print: the screen shows it
_PRINT_ONLY_HIDDEN = {"noprint", "hide-print"}
#: where an inline span is part of the text around it
_TEXT_PARENTS = ("p", "td", "th", "li", "dd", "dt")


def shown_in_print(tree: Any) -> int:
    """Keep an inline span the page hides only when printed, inside a paragraph or a table cell (an
    infobox's "; 48 years ago", a birth date's "(age 67)"): the screen shows it as part of the text, and
    the extractor drops print-hidden elements. Not a bracketed note ("[update]") nor a block (a portal
    bar, a "Mobile view" link). Returns how many."""
    n = 0
    for el in tree.xpath("//body//span[@class]"):
        classes = (el.get("class") or "").split()
        parent = el.getparent()
        text = "".join(el.itertext()).strip()
        if not _PRINT_ONLY_HIDDEN & {c.lower() for c in classes} or parent is None:
            continue
        if parent.tag not in _TEXT_PARENTS or not text or text.startswith("["):
            continue
        el.set("class", " ".join(c for c in classes if c.lower() not in _PRINT_ONLY_HIDDEN))
        n += 1
    return n


#: a list item's marker alone on its line, its text on the next ("2." | "   ^ English is …")
_BARE_MARKER = re.compile(r"^(\d+[.)]|[-*+])[ \t]*$")


def indents_dropped(markdown: str) -> str:
    """The extractor's Markdown without the page's indentation: a line's leading white space, which a
    pretty-printed page's source puts there and the page does not show ("which" + a line break + 18
    spaces + "is"), goes (outside code fences); a list item's marker left alone on its line is joined to
    its text. Done on the reading, not on the page's tree: the extractor weighs the tree's white space
    in finding the main text (collapsed there, a shop page lost its description)."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        if fenced or not line[:1].isspace():
            out.append(line)
        elif out and _BARE_MARKER.match(out[-1]) and line.strip():
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line.lstrip())
    return "\n".join(out)


#: what breaks a line inside a table cell: its text is read with a space there
CELL_BLOCKS = frozenset({"div", "p", "ul", "ol", "li", "dl", "dt", "dd", "br", "blockquote", "h1", "h2", "h3",
                         "h4", "h5", "h6", "section", "hr"})  # fmt: skip


#: elements whose content is no text the page shows
NO_TEXT = frozenset({"script", "style", "noscript", "template"})


def shown_text(el: Any, breaks: frozenset[str] = CELL_BLOCKS) -> str:
    """The text an element shows, a space where one of ``breaks`` (a block or line break) starts or ends
    (never glued words), inline elements run on ("Elizabeth II</a>, Queen"); no script or comment text."""
    parts: list[str] = [el.text or ""]
    for child in el:
        if not isinstance(child.tag, str):  # a comment or processing instruction
            parts.append(child.tail or "")
            continue
        gap = " " if child.tag in breaks else ""
        if child.tag not in NO_TEXT:
            parts += [gap, shown_text(child, breaks), gap]
        parts.append(child.tail or "")
    return "".join(parts)


def flatten_cells(tree: Any) -> int:
    """A data table's cell that holds blocks (a list of languages, a label in a ``<div>``) as its text on
    one line: the extractor leaves such cells empty (an infobox's "Official languages" row read with no
    value). Cells of inline text keep their formatting; links in cells become their text. Returns how many
    cells were flattened."""
    n = 0
    for link in tree.xpath("//table//td//a | //table//th//a"):
        link.drop_tag()  # a column of links (a list of releases) is no navigation: the extractor dropped it
    for cell in tree.xpath("//table//td | //table//th"):
        if not any(isinstance(d.tag, str) and d.tag in CELL_BLOCKS for d in cell.iterdescendants()):
            continue
        text = " ".join(shown_text(cell).split())
        for child in list(cell):
            cell.remove(child)
        cell.text = text
        n += 1
    return n


def unquote_tables(tree: Any) -> int:
    """A blockquote that holds a table (a page indenting its table) as a plain block: the extractor reads
    a quotation as one paragraph, and the table's rows ran together into one line of cells."""
    quotes = tree.xpath("//blockquote[.//table]")
    for q in quotes:
        q.tag = "div"
    return len(quotes)
