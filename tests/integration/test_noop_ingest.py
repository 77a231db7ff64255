"""A no-op stays a no-op (issue 25): an unchanged re-ingest parses nothing, loads no embedding model and no
torch, and writes nothing; a changed file is parsed and embedded again; a BM25 search loads no model."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import run_ragkit

pytestmark = pytest.mark.slow

PROBE = """
import sys, runpy
sys.argv = ["ragkit", *sys.argv[1:]]
try:
    runpy.run_module("ragkit", run_name="__main__")
except SystemExit:
    pass
heavy = ("torch", "sentence_transformers", "pymupdf4llm")
print("LOADED", json.dumps(sorted(m for m in heavy if m in sys.modules)))
"""


def test_an_unchanged_re_ingest_parses_and_loads_nothing(tmp_path, evaldata):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(evaldata / "pdfs" / "docling_multi_page.pdf", src)
    (src / "notes.txt").write_text("The kiln runs at 1280 degrees for the second firing.")
    index = tmp_path / "idx"
    first = run_ragkit("ingest", "--index", str(index), str(src), "--json")
    assert first.returncode == 0, first.stderr
    assert {f["action"] for f in json.loads(first.stdout)["files"]} == {"added"}
    manifest = (index / "manifest.json").stat().st_mtime_ns
    probe = tmp_path / "probe.py"
    probe.write_text("import json\n" + PROBE)
    again = run_ragkit_script(probe, "ingest", "--index", str(index), str(src), "--json")
    report, loaded = again.split("LOADED ")
    files = json.loads(report)["files"]
    assert [f["action"] for f in files] == ["unchanged", "unchanged"]
    assert all(f["chunks"] > 0 and f["new_embeddings"] == 0 for f in files)
    assert json.loads(loaded) == []  # no torch, no model, no PDF parser imported
    assert (index / "manifest.json").stat().st_mtime_ns == manifest  # nothing written
    (src / "notes.txt").write_text("The kiln now runs at 1300 degrees.")
    changed = run_ragkit("ingest", "--index", str(index), str(src), "--json")
    actions = {f["file"].split("/")[-1]: f["action"] for f in json.loads(changed.stdout)["files"]}
    assert actions == {"docling_multi_page.pdf": "unchanged", "notes.txt": "replaced"}
    other = run_ragkit("ingest", "--index", str(index), str(src), "--pdf-parser", "plain", "--json")
    actions = {f["file"].split("/")[-1]: f["action"] for f in json.loads(other.stdout)["files"]}
    assert actions["docling_multi_page.pdf"] == "replaced"  # another parser's text is not the same


def run_ragkit_script(script, *args: str) -> str:
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_bm25_search_loads_no_model_unless_the_gauge_is_asked_for(tmp_path):
    src = tmp_path / "notes.txt"
    src.write_text("The kiln runs at 1280 degrees for the second firing.\n\nGlaze is applied after bisque.")
    index = tmp_path / "idx"
    assert run_ragkit("ingest", "--index", str(index), str(src)).returncode == 0
    probe = tmp_path / "probe.py"
    probe.write_text("import json\n" + PROBE)
    out = run_ragkit_script(probe, "search", "--index", str(index), "--retriever", "bm25", "--json", "kiln")
    result, loaded = out.split("LOADED ")
    assert json.loads(loaded) == []  # no torch, no sentence-transformers
    found = json.loads(result)
    assert found["hits"][0]["text"].startswith("The kiln") and found["confidence"] is None
    gauged = run_ragkit(
        "search", "--index", str(index), "--retriever", "bm25", "--confidence", "--json", "kiln"
    )
    assert 0 < json.loads(gauged.stdout)["confidence"]["value"] <= 1
    plain = run_ragkit("search", "--index", str(index), "--retriever", "bm25", "kiln")
    assert "confidence not computed: BM25 alone reads no vectors" in plain.stdout
