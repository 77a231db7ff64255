"""Layout-aware PDF parsing and OCR: a borderless table kept whole and found, a scanned page read by
Tesseract (character error rate against docling's Tesseract reference), text layers kept, the parser as a
choice the collection parses once per setting."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from ragkit.core.types import Document
from ragkit.evaluation.metrics.answers import char_error_rate as cer
from ragkit.ingestion.chunkers import MarkdownChunker
from ragkit.ingestion.ocr import parse_tsv
from ragkit.ingestion.parse import load_document
from ragkit.ingestion.parsing import ParseSettings
from ragkit.retrievers.bm25 import BM25Retriever
from tests.conftest import PDFS
from tests.unit.test_bm25 import ChunkStore

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "bench" / "reference_md"
ROWS = [("Firing", "Cone", "Hours", "Peak temperature"), ("Bisque", "04", "9", "1,060 C"),
        ("Glaze one", "6", "11", "1,222 C"), ("Glaze two", "10", "13", "1,305 C"),
        ("Raku", "06", "2", "1,000 C")]  # fmt: skip


def borderless_table_pdf(path: Path) -> Path:
    """A page with prose around a table drawn as positioned text only: no ruling lines at all."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Kiln firing log", fontsize=16)
    page.insert_text(
        (72, 102), "The table below lists each firing of the stoneware kiln this spring.", fontsize=10
    )
    y = 132
    for r in ROWS:
        for x, cell in zip((72, 200, 280, 360), r, strict=True):
            page.insert_text((x, y), cell, fontsize=10, fontname="hebo" if r is ROWS[0] else "helv")
        y += 18
    page.insert_text((72, y + 20), "Every firing was logged by the studio technician.", fontsize=10)
    page.insert_text((72, y + 40), "Glazes were mixed the week before each firing from the studio's recipes.",
                     fontsize=10)  # fmt: skip
    doc.save(path)
    return path


def test_a_borderless_table_is_one_chunk_with_its_header_and_a_cell_question_finds_it(tmp_path):
    doc = load_document(borderless_table_pdf(tmp_path / "kiln.pdf"))
    assert doc.pages[0].tables == 1 and doc.meta["parser"] == "layout-auto-eng"
    chunks = MarkdownChunker(min_chars=0, max_chars=300).split(doc)
    (table,) = [c for c in chunks if "|---" in c.text]
    assert "Peak temperature" in table.text and "Raku" in table.text  # header and every row, together
    assert all(" | ".join(r[:1]) in table.text.replace("|", " | ") for r in ROWS)
    page = doc.pages[0].text
    assert all(page[s.start : s.end] in page for s in table.spans)  # spans index the page text
    bm25 = BM25Retriever(ChunkStore(chunks))
    assert bm25.search("How many hours did the Raku firing take?", 1)[0].chunk_id == table.chunk_id
    plain = load_document(tmp_path / "kiln.pdf", settings=ParseSettings("plain"))
    assert plain.pages[0].tables == 0  # no ruling lines: the plain reader sees loose text


def test_a_scanned_page_is_read_by_ocr_and_a_text_layer_is_kept(tmp_path):
    scan = load_document(PDFS / "scanned_image_only_ocr_test.pdf")
    want = (REFERENCE / "scanned_image_only_ocr_test.md").read_text()
    assert cer(scan.pages[0].text, want) <= 0.05, scan.pages[0].text
    (note,) = [w for w in scan.warnings if w.startswith("OCR (Tesseract) on page 1;")]
    assert float(note.rsplit(": ", 1)[1]) > 50  # the mean word confidence is reported
    never = load_document(PDFS / "scanned_image_only_ocr_test.pdf", settings=ParseSettings(ocr="never"))
    assert (
        not never.pages[0].text.strip()
        and "page 1 has no extractable text — scanned image?" in never.warnings
    )
    prose = load_document(PDFS / "docling_multi_page.pdf")  # a real text layer: never OCR'd in auto
    assert not any("OCR" in w for w in prose.warnings) and "typewriter" in prose.pages[0].text.lower()


def test_without_tesseract_the_warning_names_the_install_command(monkeypatch):
    import ragkit.ingestion.ocr as ocr

    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    doc = load_document(PDFS / "scanned_image_only_ocr_test.pdf")
    assert any("apt-get install -y tesseract-ocr tesseract-ocr-eng" in w for w in doc.warnings)
    assert any("scanned image?" in w for w in doc.warnings)
    assert load_document(PDFS / "docling_multi_page.pdf").pages[0].text  # everything else works


def test_tesseract_tsv_becomes_lines_paragraphs_and_a_confidence():
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = ["5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tKiln", "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tlog",
            "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tcone", "4\t1\t2\t1\t1\t0\t0\t0\t1\t1\t-1\t",
            "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t60\tten"]  # fmt: skip
    page = parse_tsv(head + "\n".join(rows))
    assert page.text == "Kiln log\ncone\n\nten" and page.confidence == 75.0 and page.words == 4


def test_a_collection_parses_each_pdf_once_per_parser_and_indexes_them_apart(
    tmp_path, fake_embedder, monkeypatch
):
    from ragkit.index.collections import Collection
    from ragkit.ingestion.chunkers import SlidingChunker

    c = Collection.create("lab", tmp_path)
    pdf = borderless_table_pdf(tmp_path / "kiln.pdf")
    assert not c.add_files([("kiln.pdf", pdf.read_bytes())]).failed
    (layout,) = c.documents(ParseSettings())
    (plain,) = c.documents(ParseSettings("plain"))
    assert layout.pages[0].tables == 1 and plain.pages[0].tables == 0
    assert plain.source == layout.source == "kiln.pdf" and plain.doc_id == layout.doc_id
    import ragkit.index.collections as collections

    monkeypatch.setattr(collections.ParseSession, "parse", lambda *a, **k: pytest.fail("parsed twice"))
    again = Collection("lab", tmp_path)
    assert again.documents(ParseSettings("plain"))[0].pages[0].text == plain.pages[0].text  # from the cache
    chunker = SlidingChunker(size=200, overlap=20)
    paths = {c.index_path(chunker, fake_embedder, ParseSettings(p)) for p in ("layout", "plain")}
    assert len(paths) == 2
    store, _ = again.index(chunker, fake_embedder, settings=ParseSettings("plain"))
    assert "|---" not in " ".join(ch.text for ch in store.chunks)
    assert isinstance(store.documents[next(iter(store.documents))], Document)


def test_spacing_accents_of_tex_pdfs_are_joined_onto_their_letters():
    from ragkit.ingestion.pdf import join_accents

    got = join_accents("Saier and F\u00a8arber, caf\u00b4e, na\u00a8\u0131ve")
    assert got == "Saier and Färber, café, naïve"
    assert join_accents("a lone \u00a8 mark") == "a lone \u00a8 mark"
    # a ring raised as a degree sign (a datasheet's "20-45◦C", TeX's "25∘C"); no ring elsewhere
    assert join_accents("20-45\u25e6C, +45 \u25e6C, 25\u2218C") == "20-45°C, +45 °C, 25°C"
    assert join_accents("f \u2218 g, 5\u25e6Ca") == "f \u2218 g, 5\u25e6Ca"
    # a datasheet's ring as a unit of its own (a Unit column's cell, "in ◦F"); TeX's ring operator is not
    assert join_accents("| 0 - +45 | \u25e6C |\n\u25e6C\nin \u25e6F") == "| 0 - +45 | °C |\n°C\nin °F"
    assert join_accents("G \u2218C, \u25e6Cl") == "G \u2218C, \u25e6Cl"
    doc = load_document(PDFS / "acl2020_s2orc_2020.acl-main.447.pdf", settings=ParseSettings("plain"))
    assert "Saier and Färber (2019)" in " ".join(p.text for p in doc.pages)


def test_a_typewritten_page_is_prose_not_code_and_code_on_a_normal_page_keeps_its_marks(tmp_path):
    """A court transcript set in Courier throughout: the layout engine marks monospaced text as code; on a
    page that is mostly monospaced the marks go (the quoted answer reads "Tuesday, January 13, 2009",
    not "`10 Tuesday, …`"). A page of prose with one line of code keeps its code mark."""
    transcript = load_document(PDFS / "transcript_scotus_p1.pdf").pages[0].text
    assert "`" not in transcript and "Tuesday, January 13, 2009" in transcript
    assert "on behalf of the Petitioner" in transcript
    typed = pymupdf.open()  # typewritten without line numbers (an RFC, a typed letter)
    sheet = typed.new_page()
    for i, line in enumerate(
        ["Dear Ms. Hale,", "the kiln was fired on Tuesday at noon.", "Yours, A. Potter"]
    ):
        sheet.insert_text((72, 72 + 24 * i), line, fontsize=11, fontname="cour")
    typed.save(tmp_path / "letter.pdf")
    letter = load_document(tmp_path / "letter.pdf").pages[0].text
    assert "the kiln was fired on Tuesday at noon." in letter and "`" not in letter
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text(
        (72, 72), "Install the package and run the firing schedule from a terminal.", fontsize=11
    )
    page.insert_text((72, 96), "The schedule reads the cone and the hours from the kiln log.", fontsize=11)
    page.insert_text((72, 120), "kiln --fire", fontsize=11, fontname="cour")
    path = tmp_path / "mixed.pdf"
    doc.save(path)
    text = load_document(path).pages[0].text
    assert "`kiln --fire`" in text or "```" in text  # still code: most of the page is prose


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_transcripts_margin_line_numbers_are_not_text_and_its_sentences_run_on(parser):
    """The Supreme Court transcript numbers its lines 1–25 down the left margin: neither parser keeps the
    numbers ("oral 13 argument" was indexed) and a sentence wrapped over rows reads as one."""
    settings = ParseSettings(pdf_parser=parser)
    text = load_document(PDFS / "transcript_scotus_p1.pdf", settings=settings).pages[0].text
    assert "came on for oral argument before the Supreme Court of the United States at 1:01 p.m." in text
    assert "Deputy Attorney General, Los Angeles, Cal.; on behalf of the Petitioner." in text
    assert "\n\nTuesday, January 13, 2009\n\n" in text  # its own paragraph, without its row number
    assert not any(f"{n} " in text.split("\n")[0][:3] for n in range(1, 26))
    assert " 12 " not in text and " 13 " not in text and "\n25" not in text


def pleading(tmp_path, rows: list[str], first: int = 1, x_numbers: float = 40) -> Path:
    """A page with numbered rows (numbers right-aligned at ``x_numbers`` + 14, text from x 90)."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i, row in enumerate(rows):
        y = 80 + 24 * i
        number = str(first + i)
        page.insert_text((x_numbers + 14 - 6 * len(number), y), number, fontsize=11, fontname="cour")
        if row:
            page.insert_text((90 + 6.6 * (len(row) - len(row.lstrip())), y), row.lstrip(), fontsize=11,
                             fontname="cour")  # fmt: skip
    path = tmp_path / f"pleading-{first}-{x_numbers}.pdf"
    doc.save(path)
    return path


TRANSCRIPT = [
    "Q. Where was the kiln on the night",
    "of the fire?",
    "A. In the shed behind the studio.",
    "",
    "    THE COURT: Counsel, please go",
    "on.",
    "MR. HALE: Thank you. The witness",
    "saw the glaze before the firing",
    "began.",
    "Q. And the cone?",
    "A. Cone six.",
    "",
]


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_numbered_rows_become_paragraphs_by_speaker_and_other_pages_are_untouched(tmp_path, parser):
    settings = ParseSettings(pdf_parser=parser)
    text = load_document(pleading(tmp_path, TRANSCRIPT), settings=settings).pages[0].text
    paras = [p for p in text.split("\n\n") if p.strip()]
    assert paras[:2] == [
        "Q. Where was the kiln on the night of the fire?",
        "A. In the shed behind the studio.",
    ]
    assert "MR. HALE: Thank you. The witness saw the glaze before the firing began." in paras
    assert "THE COURT: Counsel, please go on." in paras
    assert not any(ch.isdigit() for ch in text.replace("Cone six", ""))
    # numbers that do not start at 1, or too few rows: a column of figures, not line numbers
    for path in (pleading(tmp_path, TRANSCRIPT, first=7), pleading(tmp_path, TRANSCRIPT[:8])):
        kept = load_document(path, settings=settings).pages[0].text
        assert "7" in kept or "1" in kept


def test_raised_and_lowered_text_reads_as_text_not_html():
    """The layout engine writes footnote marks and exponents as <sup>/<sub>: quotes and the page view
    showed "S2ORC,<sup>1</sup>", and BM25 indexed "sup" as a word of every footnoted sentence."""
    from ragkit.ingestion.pdf_layout import scripts
    from ragkit.retrievers.analyzer import Analyzer

    text = scripts("Lu Wang**<sup>_†∗_</sup> **Mark; S2ORC,<sup>1</sup> uses GROBID<sup>10</sup>; "
                   "10<sup>6</sup>, H<sub>2</sub>O, the 1<sup>st</sup> pipeline<sup>8</sup>.")  # fmt: skip
    assert text == "Lu Wang**†∗ **Mark; S2ORC,¹ uses GROBID¹⁰; 10⁶, H₂O, the 1st pipeline⁸."
    terms = Analyzer()(text)
    assert "grobid" in terms and "pipelin" in terms and "h2o" in terms and "sup" not in terms
    paper = load_document(PDFS / "acl2020_s2orc_2020.acl-main.447.pdf")
    assert not any("<sup>" in p.text or "<sub>" in p.text for p in paper.pages)
    assert "S2ORC,¹" in paper.pages[0].text


def test_a_paragraph_split_by_a_column_break_and_footnotes_reads_as_one():
    """The layout engine puts column 1's footnotes between the halves of a paragraph that goes on in
    column 2 ("inline (He" … "> 15https://…" … "et al., 2010)"), and can take a footnote for text: the
    footnotes go to the page's end and the halves join (a word hyphenated at the break is one word)."""
    from ragkit.ingestion.pdf_layout import LayoutPage, drop_running_margins

    parts = [
        ("text", (72, 600, 291, 700), "Used directly for both inline (He \n\n"),
        ("text", (84, 713, 277, 723), "9https://example.org/science- \n\n"),  # a footnote, taken for text
        ("footnote", (72, 727, 99, 733), "> parse \n\n"),
        ("text", (307, 66, 526, 196), "et al., 2010) recommendation. Tables are ta- \n\n"),
        ("text", (307, 200, 526, 300), "bles of results. \n\n"),
        ("section-header", (307, 310, 526, 320), "# **Results** \n\n"),
        ("text", (307, 330, 526, 400), "more text follows here. \n\n"),
    ]
    text, boxes, at = "", [], 0
    for _, bbox, seg in parts:
        boxes.append((at, at + len(seg), bbox))
        text, at = text + seg, at + len(seg)
    page = LayoutPage(text, (), tuple(boxes), tuple(c for c, _, _ in parts))
    out = drop_running_margins([page])[0]
    assert (
        "Used directly for both inline (He et al., 2010) recommendation. Tables are tables of results." in out
    )
    assert out.index("# **Results**") < out.index("more text follows here.")  # a heading still ends one
    assert out.endswith("⁹ https://example.org/science-\n\n> parse")  # its number a raised mark
    paper = load_document(PDFS / "acl2020_s2orc_2020.acl-main.447.pdf").pages
    assert "both inline (He et al., 2010; Duma and Klein" in paper[6].text
    assert "being recognized as inline citations in papers" in paper[2].text
    assert "use these tables for corpus-level results" in paper[7].text


def test_a_line_the_engine_read_into_its_table_over_a_ruled_one_stays():
    """The layout engine read a report's title line ("National Weekly Ag Energy Round-Up … Fri, Feb 24,
    2017") into the table box it found, which reached above the ruled table; the ruled table took the
    box's place and the title was lost. Lines of the box outside the ruled table stay, before it (above
    it) or after it; a line of another box is not read twice."""
    import pymupdf

    from ragkit.ingestion.pdf_layout import LayoutPage, ruled_tables
    from ragkit.ingestion.pdf_tables import Block

    doc = pymupdf.open()
    page = doc.new_page(width=600, height=400)
    page.insert_text((20, 30), "National Weekly Ag Energy Round-Up", fontsize=10)
    page.insert_text((400, 30), "Market News", fontsize=10)
    page.insert_text((24, 60), "Iowa 1.35", fontsize=9)
    page.insert_text((24, 300), "Prices in dollars per gallon", fontsize=9)
    engine = "|National Weekly Ag Energy Round-Up|Iowa 1.35|\n\n"
    heading = "# Market News\n\n"
    boxes = ((0, len(heading), (390, 18, 560, 34)), (len(heading), len(heading + engine), (16, 18, 380, 310)))
    pg = LayoutPage(heading + engine, (), boxes)
    table = Block(16, 45, 380, 280, "| Iowa | 1.35 |\n|---|---|")
    (edit,), used = ruled_tables(pg, [table], page)
    assert used == {len(heading)}
    title, rest = "National Weekly Ag Energy Round-Up\n\n", "\n\nPrices in dollars per gallon\n\n"
    assert edit[2] == title + table.text + rest


def test_a_drawings_labels_beside_and_inside_its_grid_read_as_a_table_are_kept():
    """A figure's zone grid ruled like a table (its numbered cells), with "Base Station" and a legend set
    inside and beside the grid: the labels were lost, because the page's prose says "the base station"
    elsewhere and a label inside the table's box was taken as the table's. Lines no cell reads stay
    after the table; the table's own words are not read twice."""
    import pymupdf

    from ragkit.ingestion.pdf_layout import LayoutPage, ruled_tables
    from ragkit.ingestion.pdf_tables import Block

    doc = pymupdf.open()
    page = doc.new_page(width=600, height=400)
    page.insert_text((20, 30), "Each zone head routes the data to the base station.", fontsize=10)
    for k, x in enumerate((74, 116, 156)):
        page.insert_text((x, 90), str(k), fontsize=8)
    page.insert_text((100, 130), "Base Station", fontsize=8)  # inside the grid, in no cell
    page.insert_text((250, 110), "Member Node", fontsize=8)  # beside it
    prose = "Each zone head routes the data to the base station.\n\n"
    picture = "0 1 2 Base Station Member Node\n\n"
    boxes = ((0, len(prose), (16, 18, 400, 34)), (len(prose), len(prose + picture), (60, 70, 300, 150)))
    pg = LayoutPage(prose + picture, (), boxes, ("text", "picture"))
    table = Block(64, 78, 232, 146, "| 0 | 1 | 2 |\n|---|---|---|")
    (edit,), _ = ruled_tables(pg, [table], page)
    assert edit[2] == table.text + "\n\nMember Node\n\nBase Station\n\n"


def test_lines_level_in_a_covered_box_are_read_as_one_line():
    """DiscoveryWorld's Table 5 (issue 39): the row under the ruled table, which the engine's table box
    covered, is its label and six figures each a line of its own; read one by one, the figures were
    dropped as a chart's tick labels and "Average (Unit Tests)" stood alone. Level lines are one line."""
    from ragkit.ingestion.pdf_layout import _level

    row = [(636.2, 642.5, 292.3, 304.5, "0.76"), (636.2, 642.4, 154.9, 215.0, "Average (Unit Tests)"),
           (636.2, 642.5, 316.4, 328.6, "0.60"), (650.0, 656.0, 154.9, 180.0, "Notes")]  # fmt: skip
    assert [t for *_, t in _level(row)] == ["Average (Unit Tests) 0.76 0.60", "Notes"]
