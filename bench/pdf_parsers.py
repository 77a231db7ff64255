"""PDF parsers against docling's reference Markdown: text agreement, tables found, seconds per page.

For every PDF in ``../shared/evaldata/pdfs/``, each parser (``plain``, ``layout``; OCR ``auto``) reads it
three times (the median time is reported, per page). Where docling's reference exists
(``bench/reference_md/``), text agreement is the token-level F1 of the bag of word tokens after
lower-casing and dropping Markdown syntax (``#``, ``*``, ``|``, ``-``, backticks, HTML tags). The scanned
page's OCR is also scored by character error rate against docling's Tesseract reference, and one page is
OCR'd with ``ocr=always`` to time OCR itself.

    .venv/bin/python bench/pdf_parsers.py --json bench/results/pdf_parsers.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench._common import machine  # noqa: E402

PDFS = HERE.parent.parent / "shared" / "evaldata" / "pdfs"
REFERENCE = HERE / "reference_md"
_TAGS = re.compile(r"<[^>]+>")
_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(markdown: str) -> Counter:
    """Word tokens of a Markdown text, syntax and HTML tags left out."""
    return Counter(_TOKEN.findall(_TAGS.sub(" ", markdown).lower().replace("_", " ")))


def token_f1(got: str, want: str) -> float:
    a, b = tokens(got), tokens(want)
    common = sum((a & b).values())
    if not common:
        return 0.0
    p, r = common / sum(a.values()), common / sum(b.values())
    return 2 * p * r / (p + r)


def main() -> None:
    from ragkit.evaluation.metrics.answers import char_error_rate as cer
    from ragkit.ingestion.parse import load_document
    from ragkit.ingestion.parsing import ParseSettings

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    load_document(PDFS / "docling_multi_page.pdf")  # imports and the layout models loaded once, untimed
    rows = []
    for pdf in sorted(PDFS.glob("*.pdf")):
        ref = REFERENCE / f"{pdf.stem}.md"
        for parser in ("plain", "layout"):
            times, doc = [], None
            for _ in range(args.repeat):
                t = time.perf_counter()
                doc = load_document(pdf, settings=ParseSettings(parser))
                times.append(time.perf_counter() - t)
            assert doc is not None
            text = "\n\n".join(p.text for p in doc.pages)
            row = {
                "pdf": pdf.name, "parser": parser, "pages": len(doc.pages),
                "s_per_page": round(statistics.median(times) / len(doc.pages), 3),
                "tables": sum(p.tables for p in doc.pages),
                "ocr_pages": next((w.split(";")[0].removeprefix("OCR (Tesseract) on pages ")
                                   for w in doc.warnings if w.startswith("OCR")), ""),
                "f1": round(token_f1(text, ref.read_text()), 3) if ref.exists() else None,
            }  # fmt: skip
            if pdf.stem.startswith("scanned") and ref.exists():
                row["cer"] = round(cer(text, ref.read_text()), 4)
            rows.append(row)
            print(json.dumps(row), flush=True)
    t = time.perf_counter()
    load_document(PDFS / "docling_multi_page.pdf", settings=ParseSettings("layout", ocr="always"))
    ocr_s = (time.perf_counter() - t) / 5
    print(machine())
    print("| PDF | pages | parser | token F1 vs docling | tables | OCR'd pages | s / page |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        f1 = "—" if r["f1"] is None else f"{r['f1']:.3f}" + (f" (CER {r['cer']:.1%})" if "cer" in r else "")
        ocr = r["ocr_pages"] or "—"
        print(f"| {r['pdf']} | {r['pages']} | {r['parser']} | {f1} | {r['tables']} | {ocr} | "
              f"{r['s_per_page']:.3f} |")  # fmt: skip
    print(f"OCR of every page (layout, ocr=always) on docling_multi_page.pdf: {ocr_s:.2f} s per page")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows, "ocr_s_per_page": ocr_s},
                                              indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
