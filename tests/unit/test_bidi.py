"""Right-to-left table cells put back in reading order (docling's Persian test PDF ``right_to_left_03``:
pdfplumber read "کالای داخلی" as "یلخاد یلااک", letters in the order they stand on the page)."""

from __future__ import annotations

from ragkit.ingestion.bidi import logical_order, visual_glyphs


def test_a_visual_right_to_left_line_reads_in_order_with_its_numbers_and_latin_words_kept():
    # as pdfplumber returned the cells: each glyph left to right across the page
    assert (
        logical_order("یلخاد یلاک - یلصا رازاب رد شريذپ همانديما")
        == "اميدنامه پذيرش در بازار اصلی - کالی داخلی"
    )
    assert (
        logical_order("نت 47.500 اي هنايلاس ديلوت زا %50 لقادح") == "حداقل %50 از توليد ساليانه يا 47.500 تن"
    )
    assert logical_order("ليوحت لباق هلومحم نيرخآ 5%") == "5% آخرين محموله قابل تحويل"
    assert logical_order("دش هداد (SARS U04.9) هب") == "به (SARS U04.9) داده شد"
    two = logical_order("هشمش و لاشمش\nهتسويپ دروم")
    assert two == "شمشال و شمشه\nمورد پيوسته"  # each line on its own, top to bottom


def test_left_to_right_text_is_left_alone():
    for text in ("Usage setting: ALLOWED", "47.500 t", "Total 12.5% (n=4)", "Café crème", ""):
        assert logical_order(text) == text


def test_a_ligature_standing_for_two_letters_survives_the_turn():
    """The lam-alef ligature is one glyph whose text is two letters in reading order: turned with the
    line, it would read "کاالی"."""
    chars = [{"text": t} for t in ("ی", "لا", "ا", "ک")]
    assert visual_glyphs(chars) == 1 and visual_glyphs(chars) == 0  # once only
    assert logical_order("".join(c["text"] for c in chars)) == "کالای"
