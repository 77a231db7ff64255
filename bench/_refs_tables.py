"""Two table references for ``reading_refs.py`` beside ICDAR 2013: camelot's test expectations and
tabula-java's expected CSVs. Each row is its non-empty cells, left to right; a row of fewer than two is
not a row. A row is found when its cells stand in order on one line of the reading (the page's, where
the reference names the page), as the fidelity benchmark finds a quoted table row.

    git clone https://github.com/camelot-dev/camelot          # 2b80d0b was read
    git clone https://github.com/tabulapdf/tabula-java        # 2cdf3b4
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

#: camelot's expectations (``tests/data.py``) that describe a table as the page shows it, with the PDF
#: (under ``tests/files``) and page its test reads: (file, page, data name). Left out: the tests whose
#: options change the text (table_areas, table_regions, columns, split_text, flag_size, strip_text,
#: copy_text, shift_text other than the default, edge_tol, layout_kwargs), ICDAR's us-030 (``--icdar``
#: has it), the password test (health.pdf's table again), and the held-out files.
CAMELOT_TABLES = (
    ("clockwise_table_1.pdf", 1, "data_lattice_table_rotated"),  # test_lattice
    ("anticlockwise_table_1.pdf", 1, "data_lattice_table_rotated"),
    ("twotables_2.pdf", 1, "data_lattice_two_tables_1"),
    ("twotables_2.pdf", 1, "data_lattice_two_tables_2"),
    ("background_lines_1.pdf", 1, "data_lattice_process_background"),
    ("column_span_2.pdf", 1, "data_lattice_shift_text_left_top"),  # the default shift_text
    ("tabula/arabic.pdf", 1, "data_arabic"),
    ("health.pdf", 1, "data_stream"),  # test_stream, test_network
    ("clockwise_table_2.pdf", 1, "data_stream_table_rotated"),
    ("anticlockwise_table_2.pdf", 1, "data_stream_table_rotated"),
    ("stream_inner_outer_columns.pdf", 1, "data_stream_inner_outer_columns"),
    ("health.pdf", 1, "data_hybrid"),  # test_hybrid
    ("clockwise_table_2.pdf", 1, "data_hybrid_table_rotated"),
    ("anticlockwise_table_2.pdf", 1, "data_hybrid_table_rotated"),
    ("vertical_header.pdf", 1, "data_hybrid_vertical_headers"),
    ("background_lines_1.pdf", 1, "data_hybrid_process_background"),
    ("clockwise_table_2.pdf", 1, "data_network_table_rotated"),  # test_network
    ("anticlockwise_table_2.pdf", 1, "data_network_table_rotated"),
    ("multiple_tables.pdf", 1, "data_network_two_tables_b_1"),
    ("multiple_tables.pdf", 1, "data_network_two_tables_b_2"),
    ("vertical_header.pdf", 1, "data_network_vertical_headers"),
)

#: held-out files: never opened
HELD_OUT = {"diesel_engines.pdf", "image.pdf", "12s0324.pdf",
            "Publication_of_award_of_Bids_for_Transport_Sector__August_2016.pdf"}  # fmt: skip


def table_rows(table: list[list[str]]) -> list[list[str]]:
    """A reference table's rows: the non-empty cells of each, whitespace folded; fewer than two, none."""
    rows = [[" ".join(str(c).split()) for c in row] for row in table]
    return [r for r in ([c for c in row if c] for row in rows) if len(r) >= 2]


def read_pdf(path: Path, parser: str):
    from ragkit.ingestion.parse import parse_bytes
    from ragkit.ingestion.parsing import ParseSettings

    return parse_bytes(path.name, path.read_bytes(), max_mb=200, settings=ParseSettings(pdf_parser=parser))


def _score(per_file: dict, rows: list, name: str, units: list[list[str]], text: str) -> None:
    from fidelity import found

    missed = [" | ".join(u) for u in units if not found({"quote": " | ".join(u), "cells": u}, text)]
    seen = per_file.setdefault(name, {"units": 0, "found": 0})
    seen["units"] += len(units)
    seen["found"] += len(units) - len(missed)
    rows += [{"file": name, "missed": m} for m in missed]


def camelot(root: Path, parser: str) -> dict:
    """camelot's test expectations (``tests/data.py``, run as the data module it is): each table's rows,
    looked for on the page its test reads; a row two expectations of one file share is counted once."""
    data: dict = {}
    exec((root / "tests" / "data.py").read_text(encoding="utf-8"), data)
    per_file: dict = {}
    rows: list = []
    docs: dict = {}
    seen: dict[str, set] = {}
    for file, page, name in CAMELOT_TABLES:
        path = root / "tests" / "files" / file
        if path.name in HELD_OUT or not path.exists():
            continue
        if file not in docs:
            docs[file] = read_pdf(path, parser)
        units = [u for u in table_rows(data[name]) if tuple(u) not in seen.setdefault(file, set())]
        seen[file] |= {tuple(u) for u in units}
        _score(per_file, rows, file, units, docs[file].pages[page - 1].text)
    return {"per_file": per_file, "rows": rows}


def _tabula_tables(ref: Path) -> list[list[list[str]]]:
    """tabula-java's expected tables: a CSV is one table; a JSON file is a list of tables of cells."""
    if ref.suffix == ".csv":
        return [list(csv.reader(io.StringIO(ref.read_text(encoding="utf-8"))))]
    tables = json.loads(ref.read_text(encoding="utf-8"))
    return [[[c["text"] for c in row] for row in t["data"]] for t in tables]


def tabula(root: Path, parser: str) -> dict:
    """tabula-java's expected CSVs (``src/test/resources/technology/tabula/csv``) paired with the PDF of
    the same stem, and the expected JSON of a PDF that has no CSV: each row, looked for in the whole
    reading (the CSVs do not say which page)."""
    res = root / "src" / "test" / "resources" / "technology" / "tabula"
    if not res.exists():  # a folder of the PDFs with their CSVs and JSONs
        res = root
    refs: dict[str, Path] = {}
    for ref in sorted((res / "json").glob("*.json")) + sorted((res / "csv").glob("*.csv")):
        refs[ref.stem] = ref  # the CSV, where there is one
    if res == root:
        refs = {p.stem: p for p in sorted(root.glob("*.json")) + sorted(root.glob("*.csv"))}
    per_file: dict = {}
    rows: list = []
    for stem, ref in sorted(refs.items()):
        pdf = res / f"{stem}.pdf"
        if pdf.name in HELD_OUT or not pdf.exists():
            continue
        text = read_pdf(pdf, parser).text
        units = [u for t in _tabula_tables(ref) for u in table_rows(t)]
        _score(per_file, rows, pdf.name, units, text)
    return {"per_file": per_file, "rows": rows}
