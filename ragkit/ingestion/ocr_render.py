"""A page (or part of one) rendered in grey for Tesseract, enlarged smoothly where it is a coarse scan.

MuPDF draws a PDF's image enlarged in blocks: a 72-dpi screenshot rendered at 300 dpi gives Tesseract
staircase letters, and it reads "poliaes" for "policies". Where one image covers most of what is rendered
and holds fewer pixels per inch than asked for, the page is rendered at the image's own resolution and
that pixmap enlarged with MuPDF's smooth scaler, the way MuPDF already draws an image file.
"""

from __future__ import annotations

from typing import Any

from ragkit.ingestion.limits import Limits

#: an image covering this share of the rendered area is the scan that sets its resolution
COVERS = 0.5
#: a scan this much coarser than the rendering asked for is enlarged smoothly (a 200-dpi fax at 300 dpi
#: is drawn as before: its blocks are two pixels at most, and scans of that kind were read as measured)
SMOOTH_BELOW = 0.6
#: the coarsest rendering the smooth path starts from (a 20-dpi thumbnail is not read at 20 dpi)
FLOOR_DPI = 50


def scan_dpi(page: Any, area: Any) -> float | None:
    """The resolution (pixels per inch of page) of the image that covers most of ``area`` on ``page``,
    when one covers at least :data:`COVERS` of it; None on a page drawn otherwise."""
    import pymupdf

    best: tuple[float, float] | None = None
    for info in page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & area
        share = box.get_area() / max(area.get_area(), 1e-9) if not box.is_empty else 0.0
        rect = pymupdf.Rect(info["bbox"])
        if share < COVERS or rect.width <= 0 or rect.height <= 0 or not info.get("width"):
            continue
        dpi = min(info["width"] * 72 / rect.width, info["height"] * 72 / rect.height)
        if best is None or share > best[0]:
            best = (share, dpi)
    return best[1] if best else None


def grey(page: Any, dpi: float, limits: Limits | None, clip: Any = None, turn: int = 0) -> Any:
    """``page`` (or its ``clip``) rendered in grey at ``dpi`` — lower when it would pass the pixel cap (a
    7,200-point poster is 900 megapixels at 300 dpi) — turned by ``turn`` degrees: a PyMuPDF pixmap. A
    low-resolution scan is rendered at its own resolution and enlarged smoothly to ``dpi``."""
    import pymupdf

    area = clip if clip is not None else page.rect
    dpi = (limits or Limits.from_env()).render_dpi(area.width, area.height, dpi)
    # an image's box is where the page lies unturned; a clip, where it is shown
    unturned = area * page.derotation_matrix if page.rotation else area
    # an image file is drawn smoothly already (:func:`ragkit.ingestion.pdf.parse_image`)
    native = scan_dpi(page, unturned) if page.parent.is_pdf and dpi > FLOOR_DPI else None
    if native is None or native >= dpi * SMOOTH_BELOW:
        matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
        return page.get_pixmap(matrix=matrix, clip=clip, colorspace=pymupdf.csGRAY)
    low = max(native, FLOOR_DPI)
    small = page.get_pixmap(
        matrix=pymupdf.Matrix(low / 72, low / 72).prerotate(turn), clip=clip, colorspace=pymupdf.csGRAY
    )
    big = pymupdf.Pixmap(small, round(small.width * dpi / low), round(small.height * dpi / low), None)
    big.set_dpi(round(dpi), round(dpi))
    return big


def grey_png(page: Any, dpi: float, limits: Limits | None, clip: Any = None, turn: int = 0) -> bytes:
    """:func:`grey` as PNG bytes, the form Tesseract is given."""
    return grey(page, dpi, limits, clip, turn).tobytes("png")
