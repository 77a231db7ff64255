"""A content-quality filter for web pages: keep the prose, drop the page's furniture (pure).

The published web-search pipeline ran a paragraph quality classifier (DeBERTa; no weights here) and found
that it *hurt* answers (66.6 % vs 72.6 % on SimpleQA): it removed UI text ("SEARCH", "BOOK NOW", "GET A
FREE QUOTE") and useful content with it. Its described behaviour is what the default scorer does:

- fenced code blocks, Markdown tables and headings are kept whole;
- a line with fewer than ``min_words`` words (about 12 in the paper) is dropped;
- call-to-action and navigation lines ("Sign up", "Home | About | Contact", a line of links only) and
  trading boilerplate (cookies, copyright, "all rights reserved", newsletters) are dropped at any length.

The scorer is pluggable (:class:`Scorer`: a line -> keep or not, with a reason), so a classifier can replace
the heuristics where its weights exist. Off by default; the config field ``content_filter`` switches it
on for web pages fetched to answer a question and for HTML documents of a collection (then part of the
index's key, like the PDF parser), so A/B, Evaluate and the sweep compare with and without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ragkit.core.options import Option
from ragkit.core.types import Document

FILTERS = ("off", "heuristic")
#: how many dropped lines a report quotes
EXAMPLES = 5

OPTIONS = (
    Option("content_filter", "choice", "off", choices=FILTERS, field="content_filter", added_later=True,
           advanced=True, label="Web content filter",
           help="heuristic: drop short UI lines, navigation, calls to action and boilerplate from web pages "
           "(code blocks, tables and headings kept), as the published web pipeline's quality filter, "
           "which hurt its answers; off: keep every line"),
    Option("content_filter_min_words", "int", 12, 1, 200, field="content_filter_min_words", added_later=True,
           advanced=True, requires="content_filter", label="Filter: minimum words per line",
           help="lines with fewer words are dropped (code, tables and headings excepted)"),
)  # fmt: skip

_CTA = re.compile(
    r"^\W*(sign ?up|sign ?in|log ?in|log ?out|subscribe|book now|buy now|shop now|order now|learn more|"
    r"read more|get a free quote|get started|contact us|download now|try (it )?(for )?free|add to cart|"
    r"search|menu|share|tweet|follow us|skip to (main )?content|back to top|next|previous|home)\b",
    re.IGNORECASE,
)
_BOILERPLATE = re.compile(
    r"(cookie|©|\(c\) ?\d{4}|all rights reserved|privacy policy|terms of (use|service)|newsletter|"
    r"unsubscribe|accept all|powered by)",
    re.IGNORECASE,
)
_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
_WORD = re.compile(r"\w+", re.UNICODE)

#: a scorer: a line -> (keep, why it was dropped)
Scorer = Callable[[str], tuple[bool, str]]


def heuristic_scorer(min_words: int = 12) -> Scorer:
    """The published filter's described rules as a scorer (see the module docstring)."""

    def score(line: str) -> tuple[bool, str]:
        text = line.strip()
        bare = _LINK.sub(lambda m: m.group(0)[1 : m.group(0).index("]")], text)
        if _BOILERPLATE.search(text):
            return False, "boilerplate"
        if (
            text.count(" | ") >= 2
            or text.count(" · ") >= 2
            or (_LINK.search(text) and not _LINK.sub("", text).strip(" |·-•*"))
        ):
            return False, "navigation"
        words = len(_WORD.findall(bare))
        if _CTA.match(bare) and words < 2 * min_words:
            return False, "call to action"
        if words < min_words:
            return False, "short line"
        return True, ""

    return score


@dataclass
class FilterReport:
    """What a filter removed from a text: characters, lines by reason, and a few examples."""

    kept_chars: int = 0
    removed_chars: int = 0
    removed_lines: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def add(self, other: FilterReport) -> None:
        self.kept_chars += other.kept_chars
        self.removed_chars += other.removed_chars
        for k, v in other.removed_lines.items():
            self.removed_lines[k] = self.removed_lines.get(k, 0) + v
        self.examples += other.examples[: max(0, EXAMPLES - len(self.examples))]

    @property
    def removed_share(self) -> float:
        total = self.kept_chars + self.removed_chars
        return self.removed_chars / total if total else 0.0

    def to_dict(self) -> dict:
        return {"kept_chars": self.kept_chars, "removed_chars": self.removed_chars,
                "removed_share": round(self.removed_share, 4), "removed_lines": dict(self.removed_lines),
                "examples": list(self.examples)}  # fmt: skip


def filter_text(text: str, scorer: Scorer) -> tuple[str, FilterReport]:
    """``text`` with the lines the scorer rejects removed; code fences, tables and headings kept whole."""
    report = FilterReport()
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            out.append(line)
            continue
        if in_code or not stripped or stripped.startswith(("|", "#")) or line.startswith(("    ", "\t")):
            out.append(line)
            continue
        keep, why = scorer(line)
        if keep:
            out.append(line)
            continue
        report.removed_chars += len(line) + 1
        report.removed_lines[why] = report.removed_lines.get(why, 0) + 1
        if len(report.examples) < EXAMPLES:
            report.examples.append(stripped[:120])
    kept = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    report.kept_chars = len(kept)
    return kept, report


def make_scorer(name: str, min_words: int = 12) -> Scorer | None:
    """The scorer named by the config (None: the filter is off)."""
    if name == "off":
        return None
    if name == "heuristic":
        return heuristic_scorer(min_words)
    raise ValueError(f"unknown content filter {name!r}; choose from {', '.join(FILTERS)}")


def filter_document(doc: Document, scorer: Scorer) -> tuple[Document, FilterReport]:
    """The document with every page filtered (page numbers kept), and what was removed."""
    total = FilterReport()
    pages = []
    for page in doc.pages:
        text, report = filter_text(page.text, scorer)
        total.add(report)
        pages.append(replace(page, text=text))
    meta = {**doc.meta, "content_filter": f"removed {total.removed_chars} of "
            f"{total.removed_chars + total.kept_chars} characters",
            "content_filter_examples": list(total.examples)}  # fmt: skip
    return replace(doc, pages=tuple(pages), meta=meta), total


def filter_documents(docs: list[Document], scorer: Scorer) -> tuple[list[Document], FilterReport]:
    """Every document filtered, and what was removed from them all."""
    total = FilterReport()
    out = []
    for doc in docs:
        filtered, report = filter_document(doc, scorer)
        total.add(report)
        out.append(filtered)
    return out, total
