"""HTML extraction: speed (pages/s) and how much of each page is kept (extracted Markdown characters vs the
raw HTML's characters, and vs its visible text; whitespace is not counted), on saved pages.

The pages: ragkit's web fixtures (``tests/fixtures/web``) and the real-world HTML that trafilatura's own
source distribution ships as test data (``--extra`` points at its ``tests/resources``)::

    .venv/bin/pip download trafilatura==2.3.1 --no-binary :all: --no-deps -d /tmp/traf
    tar xzf /tmp/traf/trafilatura-2.3.1.tar.gz -C /tmp/traf
    .venv/bin/python bench/extraction.py --extra /tmp/traf/trafilatura-2.3.1/tests/resources \\
        --json bench/results/extraction.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from pathlib import Path

from ragkit.core.errors import DocumentError
from ragkit.ingestion.html import html_to_document

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "tests" / "fixtures" / "web"


def ink(text: str) -> int:
    """Characters other than whitespace (indentation and blank lines are not content)."""
    return sum(1 for ch in text if not ch.isspace())


def visible_text(data: bytes) -> str:
    """Every text node outside <script>/<style>: what a reader could see, furniture included."""
    import lxml.html

    root = lxml.html.fromstring(data)
    for bad in root.xpath("//script|//style|//noscript"):
        bad.drop_tree()
    return " ".join(root.text_content().split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extra", action="append", default=[], help="another folder of .html pages")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    files = sorted(FIXTURES.glob("*.html"))
    files += [p for d in args.extra for p in sorted(Path(d).glob("*.htm")) + sorted(Path(d).glob("*.html"))]
    rows, total_times = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        for f in files:
            with contextlib.suppress(DocumentError):
                html_to_document(f.name, f.read_bytes())
        total_times.append(time.perf_counter() - t0)
    for f in files:
        data = f.read_bytes()
        try:
            doc = html_to_document(f.name, data)
            kept = ink(doc.text)
        except DocumentError:
            kept = 0
        raw = ink(data.decode("utf-8", "replace"))
        visible = ink(visible_text(data))
        rows.append(
            {
                "page": f.name,
                "raw_chars": raw,
                "visible_chars": visible,
                "kept_chars": kept,
                "kept_of_raw": round(kept / raw, 3) if raw else 0,
                "kept_of_visible": round(kept / visible, 3) if visible else 0,
            }
        )
        print(json.dumps(rows[-1]))
    seconds = statistics.median(total_times)
    summary = {
        "pages": len(files),
        "seconds_median": round(seconds, 3),
        "pages_per_s": round(len(files) / seconds, 1),
        "kept_of_raw_total": round(sum(r["kept_chars"] for r in rows) / sum(r["raw_chars"] for r in rows), 3),
        "kept_of_visible_total": round(
            sum(r["kept_chars"] for r in rows) / max(1, sum(r["visible_chars"] for r in rows)), 3
        ),
    }
    print(json.dumps(summary))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"summary": summary, "pages": rows}, indent=1))


if __name__ == "__main__":
    main()
