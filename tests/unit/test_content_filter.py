"""The web content filter: UI lines, navigation and boilerplate out; code, tables, headings and prose in."""

import pytest

from ragkit.core.types import Document, Page
from ragkit.ingestion.content_filter import filter_document, filter_text, heuristic_scorer, make_scorer
from ragkit.ingestion.parsing import ParseSettings
from ragkit.pipeline.config import PipelineConfig

PAGE = """# Installing the parser

SEARCH
BOOK NOW
GET A FREE QUOTE
[Home](/) | [Docs](/docs) | [Blog](/blog)
We use cookies to improve your experience on this site and to show you relevant advertising content.
The parser reads the layout of every page and returns Markdown with headings, lists and tables in order.

```
pip install parser
parser read paper.pdf
```

| option | default |
|---|---|
| ocr | auto |

Thanks!
© 2024 Example Corp. All rights reserved.
"""


def test_the_filter_drops_ui_lines_and_keeps_code_tables_headings_and_prose():
    kept, report = filter_text(PAGE, heuristic_scorer(12))
    for gone in ("SEARCH", "BOOK NOW", "GET A FREE QUOTE", "[Home]", "cookies", "Thanks!", "All rights"):
        assert gone not in kept
    for stays in (
        "# Installing the parser",
        "pip install parser",
        "parser read paper.pdf",
        "| ocr | auto |",
        "returns Markdown with headings, lists and tables in order.",
    ):
        assert stays in kept
    assert report.removed_lines == {"call to action": 3, "navigation": 1, "boilerplate": 2, "short line": 1}
    assert report.examples[:2] == ["SEARCH", "BOOK NOW"]
    assert report.kept_chars == len(kept) and 0 < report.removed_share < 1


def test_the_minimum_words_rule_follows_its_setting():
    line = "Install the package with pip and run it on a PDF."  # 11 words
    assert filter_text(line, heuristic_scorer(12))[0] == ""
    assert filter_text(line, heuristic_scorer(5))[0] == line


def test_a_document_keeps_its_pages_and_says_what_was_removed():
    doc = Document("d1", "https://example.org/a", "sha", (Page(1, PAGE), Page(2, "BOOK NOW")), "html")
    out, report = filter_document(doc, heuristic_scorer(12))
    assert [p.number for p in out.pages] == [1, 2] and out.pages[1].text == ""
    assert out.meta["content_filter"].startswith(f"removed {report.removed_chars} of ")


def test_off_by_default_and_part_of_the_index_key_when_on():
    assert PipelineConfig().content_filter == "off" and make_scorer("off") is None
    on = ParseSettings.of(PipelineConfig(content_filter="heuristic", content_filter_min_words=8))
    assert not on.is_default and on.key() == ParseSettings().key()  # PDFs are not parsed again
    assert on.index_key() == "layout-auto-eng-cf_heuristic8"
    with pytest.raises(ValueError, match="unknown content filter"):
        make_scorer("deberta")
