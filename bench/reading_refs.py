"""How much of a public reference reading ragkit's reading holds: five corpora other projects publish with
their expected text, used this round to find reading defects outside the held-out set (issue 39).

- docling's test documents (``tests/data/{html,pdf,docx}/sources`` with ``groundtruth/*.md``): each
  reference line (a sentence, or a table row as its cells) is looked for in ragkit's stored reading. The
  three that are in the held-out corpus are skipped (until round 6 they were read here: see BENCHMARKS).
- scrapinghub's article-extraction-benchmark (181 saved news and blog pages, ``html/*.html.gz``, with
  the article body in ``ground-truth.json``): each body sentence of four words or more.
- mozilla/readability's test pages (``test/test-pages/*/source.html`` with readability's own reading in
  ``expected.html``): each sentence of four words or more, each table row as its cells. The four pages
  that are in the held-out corpus are skipped.
- trafilatura's evaluation set (``tests/evaldata.json`` over ``tests/eval`` and ``tests/cache``: 990
  pages, mostly German, each with snippets its reading must hold and boilerplate it must not): each
  snippet to hold is a unit; the boilerplate snippets read are counted apart. The two held-out pages are
  skipped.
- the ICDAR 2013 table competition's PDFs (``icdar2013-dataset`` in tabula-java's test resources: EU and
  US government reports, each table's cells in ``*-str.xml``): each table row, found when its cells
  stand in order on one line (dot leaders aside).
- camelot's test expectations and tabula-java's expected CSVs (``_refs_tables.py``): each table row of
  two cells or more, found as an ICDAR row is.

PDFs are read with the parser ``--pdf-parser`` names (layout, the default, or plain).

A unit is found when its letters and digits stand in the reading in order (spacing, punctuation and
Markdown aside) or, for a row, when every cell does. The references are other programs' readings, not
the page: docling writes LaTeX for equations and "SM590000" for a bullet glyph, the benchmark's bodies
include embedded tweets, so 100 % is not the aim; the misses are a list to read, and a change is
judged on the units it gains and loses.

    git clone https://github.com/docling-project/docling           # e1cb2b2 was read
    git clone https://github.com/scrapinghub/article-extraction-benchmark   # 4a3bc97
    git clone https://github.com/mozilla/readability                         # ab4027a
    git clone https://github.com/adbar/trafilatura                           # e90b0ef
    git clone https://github.com/tabulapdf/tabula-java                       # 2cdf3b4
    #   the PDFs and *-str.xml of src/test/resources/technology/tabula/icdar2013-dataset/*/ in one folder
    .venv/bin/python bench/reading_refs.py --docling docling --aeb article-extraction-benchmark \
        --readability readability --trafilatura trafilatura --icdar icdar2013 \
        --camelot camelot --tabula tabula-java
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, write_result  # noqa: E402


def squash(text: str) -> str:
    """Letters and digits only, lower-cased; a reference's link targets and citation marks dropped."""
    text = re.sub(r"\[\[ ?\d+ ?\]\]\([^)]*\)|\]\([^)]*\)|\[", "", text)
    return re.sub(r"\W+", "", text).lower()


def reference_units(md: str) -> list[list[str]]:
    """A reference Markdown's units: each sentence of three words or more, each table row as its cells."""
    out: list[list[str]] = []
    for line in md.splitlines():
        s = line.strip()
        if not s or s.startswith("<!--") or set(s) <= set("|-: "):
            continue
        if s.startswith("|"):
            cells: list[str] = []
            for c in s.strip("|").split("|"):
                c = re.sub(r"\*\*|~~|\*|<!-- image -->|`", "", c).strip()
                if c and (not cells or cells[-1] != c):  # a spanned cell written once
                    cells.append(c)
            if cells:
                out.append(cells)
            continue
        s = re.sub(r"^(#+|[-*]|\d+\.)\s+", "", s)
        out += [[x] for x in re.split(r"(?<=[.!?])\s+(?=[A-Z])", s) if len(x.split()) >= 3]
    return out


def _found(unit: list[str], flat: str) -> bool:
    return all(squash(c) in flat for c in unit)


#: docling's test documents that are in the held-out corpus (bench/heldout): never read here
HELD_OUT_DOCLING = {"redp5110_sampled.pdf", "docx_rich_tables_01.docx", "textbox.docx"}


def docling(root: Path) -> dict:
    from ragkit.ingestion.parse import parse_bytes

    data = root / "tests" / "data"
    per_file, rows = {}, []
    for kind, suffix in (("html", ".html"), ("docx", ".docx"), ("pdf", ".pdf")):
        for src in sorted((data / kind / "sources").glob(f"*{suffix}")):
            name = src.stem + ".md" if kind == "pdf" else src.name + ".md"
            ref = data / kind / "groundtruth" / name
            if not ref.exists() or src.name in HELD_OUT_DOCLING:
                continue
            text = parse_bytes(src.name, src.read_bytes(), max_mb=200).text
            flat, units = squash(text), reference_units(ref.read_text(encoding="utf-8"))
            missed = [" | ".join(u) for u in units if not _found(u, flat)]
            per_file[f"{kind}/{src.name}"] = {"units": len(units), "found": len(units) - len(missed)}
            rows += [{"file": src.name, "missed": m} for m in missed]
    return {"per_file": per_file, "rows": rows}


def article_benchmark(root: Path) -> dict:
    from ragkit.ingestion.html import html_to_document

    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    per_page, rows = {}, []
    for key, item in sorted(truth.items()):
        path = root / "html" / f"{key}.html.gz"
        if not path.exists():
            continue
        text = html_to_document(f"{key}.html", gzip.decompress(path.read_bytes()), url=item.get("url")).text
        flat = squash(text)
        body = [s for para in item["articleBody"].split("\n") for s in re.split(r"(?<=[.!?])\s+", para)]
        units = [s for s in body if len(s.split()) >= 4]
        missed = [s for s in units if not _found([s], flat)]
        per_page[item.get("url", key)] = {"units": len(units), "found": len(units) - len(missed)}
        rows += [{"page": item.get("url", key), "missed": m} for m in missed]
    return {"per_file": per_page, "rows": rows}


#: readability's test pages that are in the held-out corpus (bench/heldout): never read here
HELD_OUT_PAGES = {"google-sre-book-1", "wikipedia", "nytimes-1", "dropbox-blog"}
_BLOCKS = "p|li|h1|h2|h3|h4|h5|h6|pre|blockquote|dd|dt|figcaption|caption|td|th"


def expected_units(html: str) -> list[list[str]]:
    """readability's expected article: each sentence of four words or more of a block that holds no
    other block, and each table row as its cells."""
    import lxml.html

    root = lxml.html.fromstring(html)
    out: list[list[str]] = []
    for tr in root.iter("tr"):
        cells = [" ".join(c.text_content().split()) for c in tr if c.tag in ("td", "th")]
        if sum(bool(c) for c in cells) >= 2:
            out.append([c for c in cells if c])
    for el in root.iter(*_BLOCKS.split("|")):
        if el.tag in ("td", "th") or any(d.tag in _BLOCKS.split("|") for d in el.iterdescendants()):
            continue
        text = " ".join(el.text_content().split())
        out += [[x] for x in re.split(r"(?<=[.!?])\s+", text) if len(x.split()) >= 4]
    return out


def readability(root: Path) -> dict:
    from ragkit.ingestion.html import html_to_document

    per_page, rows = {}, []
    for page in sorted((root / "test" / "test-pages").iterdir()):
        if page.name in HELD_OUT_PAGES or not (page / "expected.html").exists():
            continue
        text = html_to_document(f"{page.name}.html", (page / "source.html").read_bytes()).text
        flat = squash(text)
        units = expected_units((page / "expected.html").read_text(encoding="utf-8"))
        missed = [" | ".join(u) for u in units if not _found(u, flat)]
        per_page[page.name] = {"units": len(units), "found": len(units) - len(missed)}
        rows += [{"page": page.name, "missed": m} for m in missed]
    return {"per_file": per_page, "rows": rows}


#: trafilatura's evaluation pages that are in the held-out corpus: never read here
HELD_OUT_FILES = {"nature.com.telescope.html", "lemire.me.json.html"}


def trafilatura_eval(root: Path) -> dict:
    """trafilatura's evaluation set (``tests/evaldata.json``: per page, snippets its reading must hold and
    snippets of boilerplate it must not): each "with" snippet is a unit; "without" snippets read are
    counted apart, as the boilerplate kept."""
    from ragkit.ingestion.html import html_to_document

    truth = json.loads((root / "tests" / "evaldata.json").read_text(encoding="utf-8"))
    per_page, rows, kept = {}, [], 0
    for url, item in sorted(truth.items()):
        if item["file"] in HELD_OUT_FILES:
            continue
        path = next(p for p in (root / "tests" / d / item["file"] for d in ("eval", "cache")) if p.exists())
        try:
            flat = squash(html_to_document(item["file"], path.read_bytes(), url=url).text)
        except Exception as e:  # a page with no main text: every snippet missed
            flat = f"error {type(e).__name__}"
        units = [s for s in item.get("with", []) if squash(s)]
        missed = [s for s in units if not _found([s], flat)]
        kept += sum(bool(squash(s)) and squash(s) in flat for s in item.get("without", []))
        per_page[item["file"]] = {"units": len(units), "found": len(units) - len(missed)}
        rows += [{"page": item["file"], "missed": m} for m in missed]
    return {"per_file": per_page, "rows": rows, "boilerplate_kept": kept}


#: a reference cell's dot leader ("All ages . . . ."): the page's eye-guide, which ragkit drops
_LEADER = re.compile(r"\s*(?:\.\s*){2,}$")


def icdar_rows(xml: Path) -> list[list[str]]:
    """An ICDAR 2013 ground truth's (``*-str.xml``) table rows: the cells of each row, left to right."""
    import xml.etree.ElementTree as ET

    rows: list[list[str]] = []
    for region in ET.parse(xml).getroot().iter("region"):
        by_row: dict[int, list[tuple[int, str]]] = {}
        for cell in region.iter("cell"):
            text = _LEADER.sub("", (cell.findtext("content") or "").strip())
            if text:
                by_row.setdefault(int(cell.get("start-row")), []).append((int(cell.get("start-col")), text))
        rows += [[t for _, t in sorted(by_row[r])] for r in sorted(by_row)]
    return rows


def icdar(root: Path, parser: str = "layout") -> dict:
    """The ICDAR 2013 table competition's PDFs (EU and US government reports; the ``-str.xml`` ground
    truth of each table's cells): a row is found when its cells stand in order on one line of the default
    reading, as the fidelity benchmark finds a quoted table row."""
    from _refs_tables import read_pdf
    from fidelity import found

    per_file, rows = {}, []
    for xml in sorted(root.glob("*-str.xml")):
        pdf = xml.with_name(xml.name.replace("-str.xml", ".pdf"))
        if not pdf.exists():
            continue
        text = read_pdf(pdf, parser).text
        units = icdar_rows(xml)
        missed = [" | ".join(u) for u in units if not found({"quote": " | ".join(u), "cells": u}, text)]
        per_file[pdf.name] = {"units": len(units), "found": len(units) - len(missed)}
        rows += [{"file": pdf.name, "missed": m} for m in missed]
    return {"per_file": per_file, "rows": rows}


def _total(part: dict) -> dict:
    units = sum(v["units"] for v in part["per_file"].values())
    found = sum(v["found"] for v in part["per_file"].values())
    missed_files = sum(v["found"] < v["units"] for v in part["per_file"].values())
    share = round(found / units, 4) if units else None
    out = {"files": len(part["per_file"]), "units": units, "found": found, "share": share,
           "files_with_a_miss": missed_files}  # fmt: skip
    if "boilerplate_kept" in part:
        out["boilerplate_snippets_kept"] = part["boilerplate_kept"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docling", type=Path, help="a clone of docling-project/docling")
    ap.add_argument("--aeb", type=Path, help="a clone of scrapinghub/article-extraction-benchmark")
    ap.add_argument("--readability", type=Path, help="a clone of mozilla/readability")
    ap.add_argument("--trafilatura", type=Path, help="a clone of adbar/trafilatura")
    ap.add_argument("--icdar", type=Path, help="ICDAR 2013's competition PDFs with their -str.xml")
    ap.add_argument("--camelot", type=Path, help="a clone of camelot-dev/camelot")
    ap.add_argument("--tabula", type=Path, help="a clone of tabulapdf/tabula-java")
    ap.add_argument("--pdf-parser", default="layout", choices=("layout", "plain"), help="the PDF parser")
    ap.add_argument("--name", default="reading_refs", help="results name")
    args = ap.parse_args()
    parts = {}
    if args.docling:
        parts["docling_test_documents"] = docling(args.docling)
    if args.aeb:
        parts["article_extraction_benchmark"] = article_benchmark(args.aeb)
    if args.readability:
        parts["readability_test_pages"] = readability(args.readability)
    if args.trafilatura:
        parts["trafilatura_evaluation"] = trafilatura_eval(args.trafilatura)
    if args.icdar:
        parts["icdar_2013_tables"] = icdar(args.icdar, args.pdf_parser)
    if args.camelot:
        from _refs_tables import camelot

        parts["camelot_test_tables"] = camelot(args.camelot, args.pdf_parser)
    if args.tabula:
        from _refs_tables import tabula

        parts["tabula_test_tables"] = tabula(args.tabula, args.pdf_parser)
    raw = RESULTS / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    with open(raw / f"{args.name}.jsonl", "w", encoding="utf-8") as f:
        for part, res in parts.items():
            for row in res["rows"]:
                f.write(json.dumps({"corpus": part, **row}, ensure_ascii=False) + "\n")
    totals = {part: _total(res) for part, res in parts.items()}
    write_result(args.name, totals)
    for part, t in totals.items():
        print(f"{part:32s} {t['found']}/{t['units']} units found ({100 * (t['share'] or 0):.1f} %), "
              f"{t['files_with_a_miss']} of {t['files']} files with a miss")  # fmt: skip


if __name__ == "__main__":
    main()
