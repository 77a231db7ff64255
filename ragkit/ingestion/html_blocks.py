"""What the page shows that the extractor dropped, put back where it stood: section headings, picture
captions, notes set apart (a wiki's hatnote), an article's standfirst and its closing note (its own
footer's "Posted by …"), and paragraphs of prose dropped from between text it kept (a trial registry's
summary; a shorter one only right after the text the page sets before it). When trafilatura finds no
article container it recovers the page's paragraphs, tables and lists but not one heading (a blog post
read with none of its nine headings); a caption or standfirst set between a headline and the body is
outside the container it reads. Each such block is read from the tree before extraction with the text
that follows it, and a block the reading lacks goes back in front of the first line that opens with that
text. A block none of whose following text the reading holds (a sidebar's "Related posts") stays out. An
article's closing note has no text after it in the article, so it goes after the line that ends with the
text before it."""

from __future__ import annotations

import re
from bisect import bisect_left
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
#: a paragraph of prose the extractor dropped from between text it kept (a trial registry's "Brief
#: Summary" set in bare <div>s): a block of text with no block inside it, at least this many words, ending
#: as a sentence ends, at most this share of its words in links, outside tables, lists, forms and the
#: page's furniture
PROSE_WORDS = 25
PROSE_LINKED = 0.3
#: a shorter paragraph (this many words or more) is put back only where the reading holds the page's
#: text just before it (past a label of :data:`LABEL_WORDS` the extractor dropped with it, "Study
#: Population") right before the place it goes: inside the article, not a teaser or a box at its edge
SHORT_PROSE_WORDS = 12
LABEL_WORDS = 5
#: a paragraph in a box whose class or id says it is the page's furniture (a teaser of another article, a
#: consent notice standing in for an embed, an advertising disclaimer) is not put back
_FURNITURE = re.compile(
    r"teaser|consent|privacy|cookie|disclaimer|placeholder|promo|related|newsletter|advert|sponsor|social"
    r"|share|comment|popup|modal|subscribe",
    re.I,
)
#: a paragraph's place is also found by one of the next ``PROSE_RUNS`` runs outside links: alone, one of at
#: least ``PROSE_KEY`` characters (folded, no spaces), then with the runs after it
PROSE_RUNS = 16
PROSE_KEY = 20
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
_INNER = " or ".join(
    f"self::{t}"
    for t in ("p", "div", "table", "ul", "ol", "dl", "li", "section", "article", "blockquote", "pre", "form",
              "h1", "h2", "h3", "h4", "h5", "h6")
)  # fmt: skip
_PROSE = (
    f"//body//*[self::p or self::div][{_OUTSIDE}][not(ancestor::table) and not(ancestor::li)"
    f" and not(ancestor::form) and not(ancestor::figcaption)][not(descendant::*[{_INNER}])]"
)


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
    #: a paragraph of prose (:data:`PROSE_WORDS`): put back only between text the reading holds, and not
    #: when the reading holds its opening or its end (the extractor kept part of it)
    prose: bool = False
    #: for a short paragraph (:data:`SHORT_PROSE_WORDS`): the page's text just before it, folded without
    #: spaces, as it stands and past a short label; the reading must hold one right before its place
    held_before: tuple[str, ...] = ()

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
    out: list[tuple[int, Block]] = []
    for el, end in sorted(ends.items(), key=lambda item: wanted[item[0]]):
        if el in closing:
            out += [(end, b) for b in _closing_note(runs, linked, opens[el], end)]
            continue
        text = " ".join(shown_text(el, _BREAKS).split())
        heading = el.tag in ("h1", "h2", "h3", "h4", "h5", "h6")
        if not text or len(text.split()) > (HEADING_WORDS if heading else CAPTION_WORDS):
            continue
        level = int(el.tag[1]) if heading else TITLE_LEVEL if el in titles else 0
        out.append((end, Block(level, text, _after(runs, inside, linked, end, heading))))
    # in page order (the runs are the same whichever blocks are marked): two blocks put back before the
    # same line go in the order the page shows them
    return [b for _, b in sorted(out + _prose(tree), key=lambda item: item[0])]


def _lineage(el: Any) -> list[Any]:
    """``el`` and the elements it stands in, up to the page's body."""
    return [el, *(a for a in el.iterancestors() if a.tag not in ("body", "html"))]


def _after(
    runs: list[str], inside: list[bool], linked: list[bool], end: int, heading: bool
) -> tuple[str, ...]:
    """Keys of the text after a block ending at run ``end``: right after it, after the blocks that follow
    it, and after a few short runs past those (not past links, for a heading)."""
    past = next((k for k in range(end, len(runs)) if not inside[k]), len(runs))
    starts = [end, past]
    for k in range(past, min(past + SKIP_RUNS, len(runs))):
        if (heading and linked[k]) or len(" ".join(runs[past : k + 1]).split()) > SKIP_WORDS:
            break
        starts.append(k + 1)
    # a heading over links heads a list of them ("More on this", "Related articles"), not a section
    starts = [k for k in starts if not (heading and k < len(runs) and linked[k])]
    return tuple(_key(runs, start) for start in dict.fromkeys(starts))


def _prose(tree: Any) -> list[tuple[int, Block]]:
    """The page's paragraphs of prose (:data:`_PROSE`), each with the text after it as a heading's (the
    next paragraph first, so one the reading holds keeps its place after it) and the run it ends at."""
    found = [
        el
        for el in tree.xpath(_PROSE)
        if not any(_FURNITURE.search(f"{a.get('class', '')} {a.get('id', '')}") for a in _lineage(el))
        and not el.xpath("ancestor-or-self::*[@role='note' or @role='dialog' or @aria-hidden='true']")
    ]
    wanted = {el: k for k, el in enumerate(found)}
    runs, inside, linked, ends, starts = _runs(tree, wanted)
    out = []
    for el, end in sorted(ends.items(), key=lambda item: wanted[item[0]]):
        text = " ".join(shown_text(el, _BREAKS).split())
        words = len(text.split())
        linked_words = sum(len(" ".join(a.text_content().split()).split()) for a in el.xpath(".//a"))
        if words < SHORT_PROSE_WORDS or not _SENTENCE_END.search(text) or linked_words > PROSE_LINKED * words:
            continue
        held: tuple[str, ...] = ()
        if words < PROSE_WORDS:
            start = starts[el]
            held = (_text_before(runs, start),)
            if start > 0 and len(runs[start - 1].split()) <= LABEL_WORDS:
                held += (_text_before(runs, start - 1),)
        # then each of the next runs alone: the labels around a paragraph the extractor dropped are often
        # dropped with it ("Condition or disease" over a table whose cell it kept)
        later = [k for k in range(end, min(end + PROSE_RUNS, len(runs))) if not linked[k]]
        alone = tuple(a for k in later if len(a := fold(runs[k]).replace(" ", "")) >= PROSE_KEY)
        keys = _after(runs, inside, linked, end, True) + alone + tuple(_key(runs, k) for k in later)
        # each key once, in order: ``_after``'s first key is the next run's, which ``later`` repeats
        out.append((end, Block(0, text, tuple(dict.fromkeys(keys)), prose=True, held_before=held)))
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
    return [Block(0, text, (), _text_before(runs, start))]


def _text_before(runs: list[str], start: int) -> str:
    """The page's text before run ``start``, folded without spaces, its last ``ANCHOR_CHARS``."""
    before, k = "", start
    while k > 0 and len(before) < ANCHOR_CHARS:
        k -= 1
        before = fold(runs[k]).replace(" ", "") + before
    return before[-ANCHOR_CHARS:]


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
        if b.prose and (mine in lines or mine[:ANCHOR_CHARS] in flat or mine[-ANCHOR_CHARS:] in flat):
            continue  # held in part, or put back already (a note the page repeats as a paragraph)
        # the first place a following text opens a line at (a short paragraph's: where the reading holds
        # its page neighbour before it right before)
        at = next((s for key in b.after if len(key) >= ANCHOR_MIN
                   if (s := _line_opening(text, flat, offsets, key)) is not None
                   and _held_before(flat, offsets, s, b.held_before)),
                  None)  # fmt: skip
        if b.prose and (at is None or not fold(text[:at])):
            continue  # not after text the reading holds: before the article, or at the page's end
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


def _held_before(flat: str, index: list[int], at: int, held: tuple[str, ...]) -> bool:
    """Whether the reading (``flat``, with each character's offset in ``index``) ends right before offset
    ``at`` with one of ``held`` (none asked: yes)."""
    if not held:
        return True
    end = bisect_left(index, at)  # the reading's characters before ``at``, compared in place
    return any(len(k) >= ANCHOR_MIN and flat.endswith(k, 0, end) for k in held)


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
