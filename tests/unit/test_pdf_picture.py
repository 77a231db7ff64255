"""Text set side by side inside a picture reads one column after the other (the geometry of a paper's
two sub-captions under a figure's panels); a chart's ticks and a line across the gap keep their order."""

from __future__ import annotations

from ragkit.ingestion.pdf_picture import picture_lines, picture_spans, picture_text

SIZE = 7.9


def _line(*spans: tuple[float, float, str], top: float) -> dict:
    return {
        "bbox": (spans[0][0], top, spans[-1][1], top + 7),
        "spans": [{"bbox": (x0, top, x1, top + 7), "text": t, "size": SIZE} for x0, x1, t in spans],
    }


#: pdfplumber issue 982's Figure 1: "(a) …" at 307-431, "(b) …" from 443; the first line runs from the
#: left caption's words straight into the right's label ("unit.(b)"), a word's space before "A"
_L, _R = 320, 443  # where each caption's lines start
SUBCAPTIONS = [
    _line((307, 316, "(a)"), (_L, 440, "Example of an artificial neuron unit.(b)"),
          (_R, 552, "A visualization of a simple feed-"), top=139),
    _line((_L, 431, "xi are the input signals and wi are"), (_R, 552, "forward neural network. The 5 in-"),
          top=148),
    _line((_L, 427, "weights which have to get learned."), (_R, 551, "put nodes are red, the 2 bias nodes"),
          top=157),
    _line((_L, 430, "Each input signal gets multiplied"), (_R, 551, "are gray, the 3 hidden units are"),
          top=166),
    _line((_L, 428, "with its weight, everything gets"), (_R, 551, "green and the single output node"),
          top=175),
    _line((_L, 425, "summed up and the activation func-"), (_R, 467, "is blue."), top=184),
    _line((_L, 377, "tion ϕ is applied."), top=193),
]  # fmt: skip


def test_two_sub_captions_side_by_side_read_one_after_the_other():
    """Read across, each sentence was cut into pieces of the other: "(b) A visualization of a simple feed-
    xi are the input signals and wi are forward neural network."."""
    text, spans = picture_spans(picture_text(SUBCAPTIONS))
    assert spans == [(0, len(text.rstrip()))]  # all of it picture text, recorded as such
    assert "A visualization of a simple feed- forward neural network. The 5 in- put nodes are red" in text
    assert "xi are the input signals and wi are weights which have to get learned." in text
    assert text.index("tion ϕ is applied.") < text.index("A visualization")


def test_a_charts_ticks_and_a_line_across_the_gap_keep_their_order():
    """Ticks in step leave gaps at one place, but no lines of words beside them; a title running across
    the gap between two columns of words keeps every line where the engine read it."""
    ticks = [_line((50, 60, "0"), (120, 130, "10"), (190, 200, "20"), top=t) for t in (10, 20, 30, 40)]
    assert picture_lines(ticks) == ["0 10 20"] * 4
    across = [
        *SUBCAPTIONS[1:4],
        _line((320, 552, "a title running across both columns of the figure"), top=200),
    ]
    across[1:1] = [_line((320, 552, "a line of words that runs across the gap"), top=152)]
    assert picture_lines(across) == [" ".join(s["text"] for s in line["spans"]) for line in across]
