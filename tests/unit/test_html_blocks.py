"""A page's section headings stay in its reading where the extractor found no article container: it
then recovers paragraphs and tables but no heading (a blog post with a status table lost all nine)."""

from __future__ import annotations

from ragkit.ingestion.html import html_to_document
from ragkit.ingestion.html_blocks import page_blocks, restore_blocks

SAYS = b"This week was the time to close and finish all the things that will go into the release. " * 3
ROWS = b"".join(b"<tr><td>Screen %d</td>" % i + b"<td>x</td>" * 8 + b"</tr>" for i in range(20))


def _post() -> bytes:
    return (
        b"<html><head><title>Friday Facts #282 - 0.17 in sight</title></head><body>"
        b"<div class='site-menu'><h4>Factorio</h4><a href='/'>Home</a> <a href='/blog'>Blog</a></div>"
        b"<div><h2>Friday Facts #282 - 0.17 in sight</h2><p>" + SAYS + b"</p>"
        b"<h2>The release plan <font size='2'>(kovarex)</font></h2><p>"
        + SAYS.replace(b"This", b"Next")
        + b"</p>"
        b"<h3>The GUI progress</h3><table><tr><th>Screen</th><th>UX</th><th>UI</th></tr>" + ROWS + b"</table>"
        b"<p>The table shows where each screen stands before the release.</p></div></body></html>"
    )


def test_headings_dropped_with_the_article_container_are_put_back_in_order():
    text = html_to_document("fff-282.html", _post()).text
    lines = text.splitlines()
    assert "## The release plan (kovarex)" in lines
    assert "### The GUI progress" in lines
    plan, gui = lines.index("## The release plan (kovarex)"), lines.index("### The GUI progress")
    assert plan < next(k for k, x in enumerate(lines) if x.startswith("Next week")) < gui
    assert gui < next(k for k, x in enumerate(lines) if x.startswith("| Screen"))
    assert text.index("Friday Facts #282 - 0.17 in sight") < text.index("This week")


def test_a_heading_whose_section_the_reading_does_not_hold_stays_out():
    """The site menu's heading goes before links the extractor drops: it has no place in the reading."""
    from trafilatura.utils import load_html

    headings = page_blocks(load_html(_post()))
    assert [h.text for h in headings][:2] == ["Factorio", "Friday Facts #282 - 0.17 in sight"]
    text = restore_blocks("This week was the time to close and finish.\n\nAnother paragraph.", headings[:1])
    assert "Factorio" not in text


def test_a_heading_the_reading_holds_is_not_added_twice():
    from trafilatura.utils import load_html

    headings = page_blocks(load_html(_post()))
    reading = "## The release plan (kovarex)\n\n" + SAYS.replace(b"This", b"Next").decode()
    assert restore_blocks(reading, headings).count("The release plan") == 1


def test_the_headline_is_the_h1_the_title_names_not_the_site_logo():
    page = (
        b"<html><head><title>Outside the web: standalone binaries \xc2\xb7 V8</title></head><body>"
        b"<header><h1><a href='/'>V8</a></h1></header><article><h1>Outside the web: standalone binaries</h1>"
        b"<p>" + SAYS + b"</p><p>" + SAYS + b"</p></article></body></html>"
    )
    text = html_to_document("v8.html", page).text
    assert text.startswith("# Outside the web: standalone binaries")
    assert "# V8" not in text


def test_a_dated_line_under_the_headline_is_its_byline():
    """ "Published <time>21 November 2019</time>" in a block classed only "meta" was dropped."""
    page = (
        b"<html><head><title>Outside the web</title></head><body><article><header><h1>Outside the web</h1>"
        b"<p class='meta'>Published <time datetime='2019-11-21'>21 November 2019</time> \xc2\xb7 Tagged with "
        b"<a href='/t/wasm'>WebAssembly</a></p></header><div class='body'><p>"
        + SAYS
        + b"</p><p>"
        + SAYS
        + b"</p></div></article></body></html>"
    )
    assert "Published 21 November 2019" in html_to_document("v8.html", page).text


def test_a_caption_inside_a_block_classed_has_caption_is_read():
    """The extractor drops whatever is classed a caption when it reads no pictures: the wrapper
    ("media-landscape has-caption") took the caption with it; the screen-reader label stays out."""
    page = (
        b"<html><body><div class='story-body'><p>" + SAYS + b"</p>"
        b"<div class='media-landscape full-width has-caption'><img src='k.jpg' alt='stall'>"
        b"<figcaption class='media-caption'><span class='off-screen'>Media caption</span>"
        b"<span class='media-caption__text'>Kenya is getting ready to welcome the US president</span>"
        b"</figcaption></div><p>" + SAYS + b"</p></div></body></html>"
    )
    text = html_to_document("bbc.html", page).text
    assert "Kenya is getting ready to welcome the US president" in text
    assert "Media caption" not in text


def test_a_standfirst_and_captions_between_the_headline_and_the_body_are_read_in_order():
    """A news page's front matter (picture caption, standfirst, byline) stands outside the container the
    extractor reads; it goes back between the headline and the body, in the page's order."""
    page = (
        b"<html><head><title>Whale strandings | Environment</title></head><body>"
        b"<div class='content__head'><h1>Whale strandings</h1>"
        b"<figcaption class='caption caption--main'>Whale expert Hori Parata. Photograph: A Malloch"
        b"</figcaption><div class='content__standfirst'>"
        b"<p>Whale whisperers worry that changes in the ocean are behind it</p>"
        b"<p>by Eleanor Ainge Roy (reporting)</p></div><h1 class='is-hidden'>Whale strandings</h1>"
        b"<div>Seascape: a series</div><div><a href='/about'>About this content</a></div></div>"
        b"<div class='content__article-body'><p>" + SAYS + b"</p><p>" + SAYS + b"</p></div></body></html>"
    )
    text = html_to_document("guardian.html", page).text
    order = [
        "# Whale strandings",
        "Whale expert Hori Parata. Photograph: A Malloch",
        "Whale whisperers worry that changes in the ocean are behind it",
        "by Eleanor Ainge Roy (reporting)",
        "This week was the time",
    ]
    at = [text.find(x) for x in order]
    assert -1 not in at and at == sorted(at)
    assert text.count("Whale strandings") == 1


def test_a_heading_the_extractor_kept_with_its_edit_link_is_not_read_twice():
    """Wikipedia's headings end in an "[edit]" link: the extractor kept "Alternatives[edit]", the tree
    read "Alternatives [ edit ]" (its parts joined with spaces), and the heading was put in again."""
    from trafilatura.utils import load_html

    page = (
        b"<html><body><div><h2>Alternatives<span class='mw-editsection'><span>[</span><a href='/e'>edit</a>"
        b"<span>]</span></span></h2><p>" + SAYS + b"</p></div></body></html>"
    )
    blocks = page_blocks(load_html(page))
    assert blocks[0].text == "Alternatives[edit]"
    reading = "## Alternatives[edit]\n\n" + SAYS.decode()
    assert restore_blocks(reading, blocks) == reading


def test_an_articles_closing_note_is_read_after_its_last_paragraph():
    """A byline or print note in the article's own footer ("Posted by …", "A version of this article
    appears in print on …") was dropped with the footer. It goes back after the article's last line, its
    trailing links cut; a label over links, and the page's own footer, stay out."""
    page = (
        b"<html><head><title>Standalone binaries</title></head><body><article><h1>Standalone binaries</h1>"
        b"<p>" + SAYS + b"</p><p>" + SAYS.replace(b"This", b"Last") + b"</p>"
        b"<footer><p>Posted by <a href='/a'>Alon Zakai</a> on <time>21 November 2019</time>. "
        b"<a href='/r'>Order Reprints</a> | <a href='/s'>Subscribe</a></p>"
        b"<p>In This Article: <a href='/x'>Wasm</a> <a href='/y'>WASI</a></p></footer></article>"
        b"<footer><p>Except as otherwise noted, the code samples are licensed under the BSD License.</p>"
        b"</footer></body></html>"
    )
    lines = [x for x in html_to_document("v8.html", page).text.splitlines() if x]
    assert lines[-1] == "Posted by Alon Zakai on 21 November 2019."
    assert lines[-2].startswith("Last week")
    text = "\n".join(lines)
    assert "In This Article" not in text and "BSD License" not in text and "Reprints" not in text


def test_a_tables_title_set_in_bold_just_before_it_is_read_before_the_table():
    """An old data sheet titles each table with a bold line in a <center> between the tables; the
    extractor dropped it, and "Hardness of grade SNB22-3" was lost with the table's subject. It heads
    the table (the deepest heading level), so the reader reads it as the rows' context."""
    row = b"<tr><td>Bars %d</td><td>%d</td><td>%d</td></tr>"
    rows = b"".join(row % (i, 890 + i, 1000 + i) for i in range(4))
    page = (
        b"<html><head><title>SNB22-3</title></head><body><h1>SNB22-3 steel</h1><p>" + SAYS + b"</p>"
        b"<center><br><br><font class='text1'><b> Hardness of grade SNB22-3 </b></font></center>"
        b"<table border='1'><tr><td>Assortment</td><td>Brinell HBW</td><td>Vickers HV</td></tr>"
        + rows
        + b"</table>"
        b"<p>" + SAYS.replace(b"This", b"Last") + b"</p></body></html>"
    )
    lines = [x for x in html_to_document("steel.html", page).text.splitlines() if x.strip()]
    title = lines.index("###### Hardness of grade SNB22-3")
    assert lines[title + 1].startswith("| Assortment | Brinell HBW |")


def test_a_note_set_apart_above_the_lead_is_read_before_it():
    """A wiki's hatnote (``role="note"``, classed "navigation-not-searchable") shows above the lead, and
    the extractor dropped it for its class: "This is a dynamic list and may never …" was not in the
    reading. A note holding a table or a list (a navigation box) stays out."""
    page = (
        b"<html><head><title>List of films featuring time loops</title></head><body><main>"
        b"<h1>List of films featuring time loops</h1><div class='mw-parser-output'>"
        b"<div role='note' class='hatnote navigation-not-searchable'>This is a <a href='/d'>dynamic list</a> "
        b"and may never be able to satisfy particular standards for completeness.</div>"
        b"<div role='note' class='navbox'><ul><li><a href='/a'>Time travel films</a></li></ul></div>"
        b"<p>" + SAYS + b"</p><p>" + SAYS.replace(b"This", b"Next") + b"</p></div></main></body></html>"
    )
    text = html_to_document("loops.html", page).text
    note = "This is a dynamic list and may never be able to satisfy particular standards for completeness."
    assert note in text.splitlines()
    assert text.index(note) < text.index("This week")
    assert "Time travel films" not in text


def test_a_numbered_heading_the_reading_holds_is_not_added_twice():
    """ "### 5. Beware the wall-mounted hairdryer" folds without its "5." only where it opens a line (a
    list item's number), so the heading seemed missing and was put in again under itself: on 8 of 315
    pages, every numbered heading twice."""
    from trafilatura.utils import load_html

    page = b"<html><body><div><h3>5. Beware the hairdryer</h3><p>" + SAYS + b"</p></div></body></html>"
    reading = "### 5. Beware the hairdryer\n\n" + SAYS.decode()
    assert restore_blocks(reading, page_blocks(load_html(page))) == reading
    as_item = "5. Beware the hairdryer\n\n" + SAYS.decode()  # the same text read as a list item
    assert restore_blocks(as_item, page_blocks(load_html(page))) == as_item


def test_the_headlines_subtitle_in_its_header_is_read_under_it():
    """Ars Technica sets its dek as an ``<h2 itemprop="description">`` under the headline, in the
    article's header: the extractor dropped both, and only the headline was put back. A section's first
    heading under a headline in the body is no subtitle."""
    page = (
        b"<html><head><title>The connected renter</title></head><body><article class='article-single'>"
        b"<header class='article-header'><h1>The connected renter</h1>"
        b"<h2 itemprop='description'>Turning your rented space into a smart home can be tricky.</h2>"
        b"<section class='post-meta'><a href='/author'>Valentina Palladino</a> - <time>Aug 10, 2016</time>"
        b"</section></header>"
        b"<div itemprop='articleBody'><p>" + SAYS + b"</p><p>" + SAYS.replace(b"This", b"Next") + b"</p>"
        b"</div></article></body></html>"
    )
    lines = [x for x in html_to_document("ars.html", page).text.splitlines() if x]
    assert lines[0] == "# The connected renter"
    assert lines[1].lstrip("# ") == "Turning your rented space into a smart home can be tricky."
    body = b"<html><body><main><h1>Guide</h1><h2>Install</h2><p>" + SAYS + b"</p></main></body></html>"
    text = html_to_document("guide.html", body).text
    assert text.count("Install") == 1
