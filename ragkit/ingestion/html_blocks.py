"""What the page shows that the extractor dropped, put back where it stood: section headings, picture
captions, notes set apart (a wiki's hatnote), an article's standfirst and its closing note (its own
footer's "Posted by …"). When trafilatura finds no article container it recovers the page's paragraphs,
tables and lists but not one heading (a blog post read with none of its nine headings); a caption or
standfirst set between a headline and the body is outside the container it reads. Each such block is
read from the tree before extraction with the text that follows it, and a block the reading lacks goes
back in front of the first line that opens with that text. A block none of whose following text the
reading holds (a sidebar's "Related posts") stays out. An article's closing note has no text after it in
the article, so it goes after the line that ends with the text before it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ragkit.core.folding import fold, fold_with_index
from ragkit.core.optional import require
from ragkit.ingestion.html_repair import CELL_BLOCKS, NO_TEXT, shown_text

#: words above which an <h1>…<h6> is a paragraph set large, not a heading; a caption or standfirst longer
#: than ``CAPTION_WORDS`` is more than one
HEADING_WORDS = 25
CAPTION_WORDS = 80
#: folded characters of the text after a block that must open a line of the reading for the block to go
#: before it; fewer than ``ANCHOR_MIN`` (a block at the page's end) place it nowhere
ANCHOR_CHARS = 40
ANCHOR_MIN = 12
#: what may stand between a block and the text it goes before, besides other blocks: a few runs of text
#: ("Seascape: a series", "About this content"), so many words at most; not links before a heading (a
#: sidebar's heading over its menu is no section of the page)
SKIP_RUNS = 4
SKIP_WORDS = 20
#: not in navigation, footers, asides or the page's banner (a site's logo set as an <h1>)
_OUTSIDE = (
    "not(ancestor::nav) and not(ancestor::footer) and not(ancestor::aside)"
    " and not(ancestor::header[not(ancestor::article) and not(ancestor::main)])"
)
_HEADINGS = "|".join(f"//body//h{n}[{_OUTSIDE}]" for n in range(1, 7))
#: a class that marks a picture's caption ("thumbcaption", "wp-caption-text", "media-caption__text"), not
#: its wrapper ("dnd-caption-wrapper", "has-caption")
CAPTION_CLASS = re.compile(r"^(?!has-)(?:[\w-]*[-_])?(?:thumb)?caption(?:[-_]+text)?$", re.I)
STANDFIRST = re.compile(r"standfirst|\bdek\b|\bdeck\b|sub-?title", re.I)
#: a note set apart from the running text (``role="note"``: a wiki's hatnote, "This is a dynamic list and
#: may never …"), which extractors drop for its "navigation-…" class; only one of a paragraph's length
_NOTE = f"//body//*[@role='note'][{_OUTSIDE}][not(.//table) and not(.//ul) and not(.//ol)]"
#: an article's closing note: a paragraph in a footer of the <article> itself (the page's footer is not)
_CLOSING = "//body//article//footer//p[not(ancestor::nav) and not(ancestor::aside)]"
#: what stands between a note's trailing links ("Order Reprints | Today's Paper")
_SEPARATOR = re.compile(r"[\s|·•/,]*")
#: a closing note shorter than this many words is a label ("Share", "Tags"), not a note
CLOSING_WORDS = 3


@dataclass(frozen=True)
class Block:
    #: 1–6 for a heading, 0 for a paragraph (a caption, a standfirst)
    level: int
    text: str
    #: the text after the block, folded: what follows it on the page, and what follows the blocks that
    #: follow it (a standfirst is followed by its byline and a caption, which the reading may lack too)
    after: tuple[str, ...]
    #: the text before the block, folded without spaces: where an article's closing note goes (after
    #: the line that ends with it); empty for the other blocks
    before: str = ""

    @property
    def line(self) -> str:
        return f"{'#' * self.level} {self.text}" if self.level else self.text


def page_blocks(tree: Any) -> list[Block]:
    """The page's headings, captions and standfirst paragraphs outside navigation, footers, asides and
    its banner, in document order, each with the text that follows it; read before extraction (the
    extractor changes the tree) and before captions are made paragraphs."""
    closing, titles = _closing(tree), _table_titles(tree)
    wanted = {el: k for k, el in enumerate(_candidates(tree, titles) + closing)}
    runs, inside, linked, ends, opens = _runs(tree, wanted)
    out = []
    for el, end in sorted(ends.items(), key=lambda item: wanted[item[0]]):
        if el in closing:
            out += _closing_note(runs, linked, opens[el], end)
            continue
        text = " ".join(shown_text(el, _BREAKS).split())
        heading = el.tag in ("h1", "h2", "h3", "h4", "h5", "h6")
        if not text or len(text.split()) > (HEADING_WORDS if heading else CAPTION_WORDS):
            continue
        past = next((k for k in range(end, len(runs)) if not inside[k]), len(runs))
        starts = [end, past]
        for k in range(past, min(past + SKIP_RUNS, len(runs))):
            if (heading and linked[k]) or len(" ".join(runs[past : k + 1]).split()) > SKIP_WORDS:
                break
            starts.append(k + 1)
        # a heading over links heads a list of them ("More on this", "Related articles"), not a section
        starts = [k for k in starts if not (heading and k < len(runs) and linked[k])]
        after = tuple(_key(runs, start) for start in dict.fromkeys(starts))
        level = int(el.tag[1]) if heading else TITLE_LEVEL if el in titles else 0
        out.append(Block(level, text, after))
    return out


def _closing(tree: Any) -> list[Any]:
    """An article's closing notes: the paragraphs of a footer inside its ``<article>``."""
    return [el for el in tree.xpath(_CLOSING) if not el.xpath(".//p")]


def _closing_note(runs: list[str], linked: list[bool], start: int, end: int) -> list[Block]:
    """The closing note in runs ``start:end`` as a block placed after the text before it, its trailing
    links ("Order Reprints | Today's Paper") cut; none when that leaves a label or nothing."""
    while end > start and (linked[end - 1] or _SEPARATOR.fullmatch(runs[end - 1])):
        end -= 1
    text = " ".join("".join(runs[start:end]).split())
    if len(text.split()) < CLOSING_WORDS or text.endswith(":") or start == 0:
        return []  # a label, or one over the links cut ("In This Article:")
    before, k = "", start
    while k > 0 and len(before) < ANCHOR_CHARS:
        k -= 1
        before = fold(runs[k]).replace(" ", "") + before
    return [Block(0, text, (), before[-ANCHOR_CHARS:])]


#: what breaks a heading's or caption's line where it stands: a table cell too (a map's legend)
_BREAKS = CELL_BLOCKS | {"table", "tr", "td", "th"}


def _key(runs: list[str], start: int) -> str:
    """The text from run ``start`` on, folded without spaces (a drop cap "A" | "dam Schiff's" is one
    word; a run's edges do not say), ``ANCHOR_CHARS`` long at most."""
    key, k = "", start
    while k < min(len(runs), start + 40) and len(key) < ANCHOR_CHARS:
        key, k = key + fold(runs[k]).replace(" ", ""), k + 1
    return key[:ANCHOR_CHARS]


def _candidates(tree: Any, titles: list[Any]) -> list[Any]:
    """Headings, captions (``<figcaption>`` or classed so), the tables' ``titles``, notes (:data:`_NOTE`)
    and a standfirst's paragraphs (or the standfirst itself when it has none), in document order."""
    found = list(tree.xpath(_HEADINGS)) + tree.xpath(_NOTE)
    found += tree.xpath(f"//body//figcaption[{_OUTSIDE}]") + titles
    for el in tree.xpath(f"//body//*[@class][{_OUTSIDE}]"):
        classes = el.get("class", "").split()
        caption = el.tag in ("div", "span", "p") and any(CAPTION_CLASS.match(c) for c in classes)
        if caption and not el.xpath("ancestor::figcaption or ancestor::p"):
            found.append(el)
        elif STANDFIRST.search(el.get("class", "")) and not el.xpath("ancestor::p"):
            found += el.xpath(".//p") or [el]
    inner = set(found)
    return [el for el in tree.iter() if el in inner and not any(a in inner for a in el.iterancestors())]


#: the heading level a table's title is read at: the deepest, under the section that holds the table (it
#: heads the table's rows, so the reader reads it as their context, not as an answer of its own)
TITLE_LEVEL = 6
#: the block just before a table (line breaks aside), where a table's title stands
_TITLED = f"//body//table[{_OUTSIDE}]/preceding-sibling::*[not(self::br)][1]"


def _table_titles(tree: Any) -> list[Any]:
    """Tables' titles: a ``<caption>``, or a line in bold on its own just before the table."""
    return tree.xpath(f"//body//table/caption[{_OUTSIDE}]") + [
        el for el in tree.xpath(_TITLED) if _bold_title(el)
    ]


def _bold_title(el: Any) -> bool:
    """Whether ``el`` is a table's title set in bold on its own ("<center><b>Mechanical properties of
    grade SNB22-3</b></center>" over the table): a short block all of whose text is bold."""
    if el.tag in ("table", "script", "style", "ul", "ol") or el.xpath(".//table | .//a"):
        return False
    text = " ".join(shown_text(el, _BREAKS).split())
    bold = " ".join(" ".join(shown_text(b, _BREAKS).split()) for b in el.xpath(".//b | .//strong"))
    return (
        bool(text) and len(text.split()) <= HEADING_WORDS and bold.replace(" ", "") == text.replace(" ", "")
    )


def _runs(
    tree: Any, blocks: dict[Any, int]
) -> tuple[list[str], list[bool], list[bool], dict[Any, int], dict[Any, int]]:
    """The page's text runs in reading order (no script, style or comment), whether each is inside one
    of ``blocks`` and whether inside a link, and for each block the index of the first run after it and
    of its own first run: one walk of the tree, however many blocks it has."""
    etree = require("lxml.etree", "reading HTML")

    runs: list[str] = []
    inside: list[bool] = []
    linked: list[bool] = []
    ends: dict[Any, int] = {}
    starts: dict[Any, int] = {}
    hidden = depth = links = 0
    for event, el in etree.iterwalk(tree, events=("start", "end")):
        quiet = not isinstance(el.tag, str) or el.tag in NO_TEXT  # a comment is no text
        if event == "start":
            hidden += quiet
            depth += el in blocks
            links += el.tag == "a"
            if el in blocks:
                starts[el] = len(runs)
            if not hidden and el.text and el.text.strip():
                runs.append(el.text)
                inside.append(depth > 0)
                linked.append(links > 0)
            continue
        hidden -= quiet
        links -= el.tag == "a"
        if el in blocks:
            depth -= 1
            ends[el] = len(runs)
        if not hidden and el.tail and el.tail.strip():
            runs.append(el.tail)
            inside.append(depth > 0)
            linked.append(links > 0)
    return runs, inside, linked, ends, starts


def restore_blocks(text: str, blocks: list[Block]) -> str:
    """``text`` (the extractor's Markdown) with each block it lacks put back before the first line that
    opens with the block's following text (a heading as a Markdown heading). A heading is there when a
    line reads as it; a caption or standfirst when the text holds it anywhere."""
    folded, index = fold_with_index(text)
    dense = [k for k, c in enumerate(folded) if c != " "]  # the folded text's characters but spaces
    flat = "".join(folded[k] for k in dense)
    offsets = [index[k] for k in dense]  # where in ``text`` each character of ``flat`` stands
    lines = {fold(line).replace(" ", "") for line in text.splitlines()}
    inserts: dict[int, list[str]] = {}
    for b in blocks:
        # as its own text or as its line: a heading "### 5. Beware …" folds with its number, the same text
        # opening a line as a list item without; "Alternatives[edit]" is "Alternatives [ edit ]"
        mine = fold(b.text).replace(" ", "")
        if (mine in lines or fold(b.line).replace(" ", "") in lines) if b.level else (mine in flat):
            continue
        at = next((s for key in b.after if len(key) >= ANCHOR_MIN
                   if (s := _line_opening(text, flat, offsets, key)) is not None),
                  None)  # fmt: skip
        if at is not None:
            inserts.setdefault(at, []).append(b.line + "\n\n")
            lines.add(mine)
        elif len(b.before) >= ANCHOR_MIN and (end := _line_ending(text, flat, offsets, b.before)):
            inserts.setdefault(end, []).append("\n\n" + b.line)
            lines.add(mine)
    if not inserts:
        return text
    cuts = sorted(inserts)
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    return "".join(p + "".join(inserts.get(cut, [])) for p, cut in zip(pieces, [*cuts, None], strict=True))


def _line_opening(text: str, flat: str, index: list[int], key: str) -> int | None:
    """Where the first line of ``text`` that opens with ``key`` begins, or None: ``flat`` is ``text``
    folded without spaces, ``index`` the offset in ``text`` of each of its characters (Markdown marks
    before the key aside)."""
    at = flat.find(key)
    while at >= 0:
        start = text.rfind("\n", 0, index[at]) + 1
        if not fold(text[start : index[at]]):
            return start
        at = flat.find(key, at + 1)
    return None


def _line_ending(text: str, flat: str, index: list[int], key: str) -> int | None:
    """Where the last line of ``text`` that ends with ``key`` ends, or None (``flat`` and ``index`` as
    for :func:`_line_opening`): the last, as a closing note closes the article."""
    at = flat.rfind(key)
    while at >= 0:
        last = index[at + len(key) - 1]
        stop = text.find("\n", last)
        stop = len(text) if stop < 0 else stop
        if not fold(text[last + 1 : stop]):
            return stop
        at = flat.rfind(key, 0, at + len(key) - 1)
    return None
