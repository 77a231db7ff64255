"""What an encyclopedia or news page shows that its reading must keep: a data table with a long cell, an
infobox's values set in lists, an older wiki's picture captions, a dateline opening the lede, and no
script text (defects found by comparing with mozilla/readability's expected readings)."""

from __future__ import annotations

from ragkit.ingestion.html import html_to_document

PROSE = b"".join(
    b"<p>Paragraph %d of the article says that the island was settled late and developed a distinct "
    b"biodiversity of animal, fungal and plant life over a long period of isolation.</p>" % i
    for i in range(6)
)


def _page(body: bytes) -> bytes:
    return b"<html><body><main><div class='mw-parser-output'>" + body + b"</div></main></body></html>"


def test_a_list_of_films_with_one_long_synopsis_stays_a_table():
    """A table is a layout table when one cell of prose holds most of its words, not when any synopsis
    runs long: the whole list of films was read as loose fragments."""
    rows = b"".join(
        b"<tr><td><i>Film %d</i></td><td>19%02d</td><td>Characters relive the same day over and over "
        b"again.</td></tr>" % (i, i)
        for i in range(12)
    )
    synopsis = b"A couple wakes up one morning. " * 14
    long = b"<tr><td><i>Le 15 Mai</i></td><td>1969</td><td>" + synopsis + b"</td></tr>"
    table = b"<table class='wikitable'><tr><th>Film</th><th>Year</th><th>Description</th></tr>" + long + rows
    text = html_to_document("films.html", _page(PROSE + table + b"</table>" + PROSE)).text
    assert "| *Film 3* | 1903 | Characters relive the same day over and over again. |" in text
    assert "| *Le 15 Mai* | 1969 | A couple wakes up one morning." in text


def test_an_infobox_value_set_as_a_list_is_read_in_its_row():
    """An infobox's cell holding a list (or a label in a ``<div>``) was left empty: "Official languages"
    read with no value, "Responsible government" with no label."""
    box = (
        b"<table class='infobox'><tr><th>Capital</th><td>Wellington</td></tr>"
        b"<tr><th>Official&#160;languages</th><td><div class='plainlist'><ul><li>English<sup>[n 2]</sup>"
        b"</li><li>M\xc4\x81ori</li><li>NZ Sign Language</li></ul></div></td></tr>"
        b"<tr><th><div style='font-weight:normal'>&#8226;&#160;<a href='/w'>Responsible government</a></div>"
        b"</th><td>7 May 1856</td></tr></table>"
    )
    text = html_to_document("nz.html", _page(box + PROSE)).text
    assert "| Official languages | English[n 2] Māori NZ Sign Language |" in text
    assert "| • Responsible government | 7 May 1856 |" in text


def test_a_wiki_thumbnail_caption_is_read_and_a_caption_inside_a_paragraph_does_not_cut_it():
    thumb = (
        b"<div class='thumb tleft'><div class='thumbinner'><a href='/wiki/File:Map.png' class='image'>"
        b"<img src='//u/map.png'></a><div class='thumbcaption'><div class='magnify'><a href='/wiki/File:"
        b"Map.png' title='Enlarge'></a></div>Detail from a 1657 map showing the western coastline.</div>"
        b"</div></div>"
    )
    inline = (
        b"<p><span class='storyimage'><img src='x.jpg'><span class='caption'>Nintendo/Apple</span></span>"
        b"Nintendo shocked the world by announcing a game you can play on your phone with one hand.</p>"
    )
    text = html_to_document("w.html", _page(PROSE + thumb + inline + PROSE)).text
    assert "Detail from a 1657 map showing the western coastline." in text
    assert "play on your phone with one hand." in text


def test_a_dateline_opening_the_lede_keeps_the_lede_and_a_bylines_script_is_not_read():
    lede = (
        b"<p> <span class='dateline'>CAIRO \xe2\x80\x94</span> Gunmen opened fire on visitors at the "
        b"national museum on Wednesday, killing at least 19 people, officials said.</p>"
    )
    byline = (
        b"<h1>The best films of the year</h1><div class='byline'>By Alissa Wilkinson <script>/* <![CDATA[ */"
        b" function enkoder(){var kode='x';}</script></div>"
    )
    text = html_to_document("news.html", _page(byline + lede + PROSE)).text
    assert "CAIRO — Gunmen opened fire on visitors" in " ".join(text.split())
    assert "By Alissa Wilkinson" in text
    assert "function" not in text and "CDATA" not in text


def test_text_set_in_a_layout_tables_cell_is_read():
    """A quotation laid out in a table (a large quote mark in one cell, the text in the other): the table
    is layout, and its cell of text alone was unwrapped to a bare ``<div>``, which the extractor dropped."""
    quote = b"Penny lives with her mom, Pam, in a little trailer by the river and tends to her chores. " * 5
    table = (
        b"<table><tr><td rowspan='2' style='font-size:5em'>&#8220;</td><td style='font-style:italic'>"
        + quote
        + b"</td></tr><tr><td>&#8212; Character description</td></tr></table>"
    )
    text = html_to_document("penny.html", _page(table + PROSE)).text
    assert "Penny lives with her mom, Pam, in a little trailer by the river" in text


RELEASES = (
    b"<table class='OddEven'><tr><th>Release</th><th>Date</th></tr><tr><td><a href='/r'>4.2.3</a></td>"
    b"<td>April 2014</td></tr><tr><td><a href='/s'>4.1.6</a></td><td>April 2014</td></tr></table>"
)


def test_a_data_table_inside_a_layout_table_or_a_blockquote_keeps_its_rows():
    """A page laid out in a table (LWN's columns) whose article indents a data table in a blockquote: the
    layout's unwrapping turned the inner table's rows into blocks too, and a quoted table ran together
    into one line of cells."""
    nested = b"<table><tr><td class='MidColumn'><div class='ArticleText'>" + PROSE
    nested += b"<blockquote>" + RELEASES + b"</blockquote>" + PROSE + b"</div></td><td>Menu</td></tr></table>"
    quoted = PROSE + b"<blockquote>" + RELEASES + b"</blockquote>" + PROSE
    for body in (nested, quoted):
        text = html_to_document("lwn.html", _page(body)).text
        assert "| 4.1.6 | April 2014 |" in text, text


def test_a_pretty_printed_pages_indentation_is_not_read_but_code_keeps_its_own():
    """A pretty-printed wiki's footnotes read "2." alone on a line, then 36 spaces and "^ English is …",
    and a paragraph went on after its bold words on a line indented by 18 spaces: white space of the
    page's source that the page does not show. A code block keeps its indentation."""
    page = (
        b"<html><head><title>New Zealand</title></head><body><article><h1>New Zealand</h1>"
        + PROSE
        + b"<p>This <b>list of films</b> in which\n                  the day is repeatedly resetting "
        b"is long enough to be read as the article's text.</p>"
        b"<ol><li>One note that is long enough to read as a note of the article.</li><li>\n"
        b"                                    <span>^</span> English is a <i>de facto</i> official language "
        b"due to its widespread use.</li></ol>"
        b"<pre><code>def f():\n    return 1\n</code></pre></article></body></html>"
    )
    text = html_to_document("nz.html", page).text
    assert "2. ^ English is a *de facto* official language due to its widespread use." in text.splitlines()
    assert not [x for x in text.splitlines() if x[:1].isspace() and "return 1" not in x]
    assert "    return 1" in text.splitlines()
    assert "in which\nthe day is repeatedly" in text or "in which the day is repeatedly" in text


def test_text_hidden_only_in_print_is_read_but_a_print_hidden_note_or_block_is_not():
    """An infobox's "; 48 years ago" (a span classed ``noprint``) is on the screen: the extractor
    dropped it as hidden. A bracketed maintenance note and a portal bar, print-hidden too, stay out."""
    box = (
        b"<table class='infobox'><tr><th>Founded</th><td>April&#160;4, 1975<span class='noprint'>; 48 "
        b"years ago</span> in Albuquerque</td></tr><tr><th>Born</th><td>1955 <span class='noprint "
        b"ForceAgeToShow'>(age 68)</span></td></tr></table>"
    )
    note = b"<p>Sales rose in 2022.<sup class='noprint Inline-Template'>[update]</sup> They fell after.</p>"
    bar = b"<div class='portal-bar noprint'><ul><li>Portals: Companies</li></ul></div>"
    text = html_to_document("co.html", _page(box + PROSE + note + bar)).text
    assert "| Founded | April 4, 1975; 48 years ago in Albuquerque |" in text
    assert "| Born | 1955 (age 68) |" in text
    assert "[update]" not in text and "Portals" not in text


def test_a_headings_permalink_anchor_is_not_read():
    """Sphinx ends each heading with a hover-only "¶" link to itself, a static site with "#": read,
    every heading ended with it ("Conclusion¶"). A heading's real link keeps its words."""
    body = (
        b"<h2>Conclusion<a class='headerlink' href='#conclusion' title='Permalink'>\xc2\xb6</a></h2>"
        + PROSE
        + b"<h3>Running in Wasm runtimes <a href='#running'>#</a></h3>"
        + PROSE
        + b"<h3>See <a href='#intro'>the introduction</a></h3>"
        + PROSE
    )
    text = html_to_document("docs.html", _page(body)).text
    assert "## Conclusion\n" in text and "¶" not in text
    assert "### Running in Wasm runtimes\n" in text
    assert "### See the introduction\n" in text
