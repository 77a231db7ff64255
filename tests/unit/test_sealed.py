"""The sealed held-out sets stay sealed: each sealed file has the hash recorded when it was written, and
no file of the project but the listed reporting scripts names one (tuning reads only the dev parts)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEAL = ROOT / "bench" / "heldout" / "SEALED.json"


def sealed() -> dict:
    return json.loads(SEAL.read_text(encoding="utf-8"))


def changed(seal: dict, root: Path = ROOT) -> list[str]:
    """The sealed files whose bytes no longer have their recorded sha256 (or that are gone)."""
    out = []
    for rel, digest in seal["sealed"].items():
        path = root / rel
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            out.append(rel)
    return out


def readers(seal: dict, root: Path = ROOT) -> list[str]:
    """Project files (code and scripts) that name a sealed question or quote file."""
    names = [Path(rel).name for rel in seal["sealed"] if rel.endswith("_test.jsonl")]
    out = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".venv/", "tests/unit/test_sealed.py")):
            continue
        if any(n in path.read_text(encoding="utf-8", errors="replace") for n in names):
            out.append(rel)
    return sorted(out)


def test_every_sealed_file_has_its_recorded_hash():
    assert sealed()["sealed"], "nothing is sealed"
    assert changed(sealed()) == []


def test_only_the_listed_reporting_scripts_name_a_sealed_file():
    seal = sealed()
    assert set(readers(seal)) <= set(seal["readers"])


def test_a_changed_or_named_sealed_file_is_caught(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "q_test.jsonl").write_text('{"question": "a"}\n')
    seal = {
        "sealed": {"bench/q_test.jsonl": hashlib.sha256(b'{"question": "a"}\n').hexdigest()},
        "readers": [],
    }
    assert changed(seal, tmp_path) == [] and readers(seal, tmp_path) == []
    (tmp_path / "bench" / "q_test.jsonl").write_text('{"question": "b"}\n')
    (tmp_path / "bench" / "tune.py").write_text('open("bench/q_test.jsonl")\n')
    assert changed(seal, tmp_path) == ["bench/q_test.jsonl"]
    assert readers(seal, tmp_path) == ["bench/tune.py"]


def test_the_reference_readings_never_open_a_held_out_document():
    """bench/reading_refs.py reads other projects' test files, and the held-out corpus took some of its
    documents from the same folders: each of those is in the skip list of the reference that holds it
    (docling's three were read there until round 6)."""
    import importlib.util
    import sys

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(ROOT / "bench"))
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(ROOT / "bench"))
        return module

    refs, tables = load("reading_refs"), load("_refs_tables")
    corpus = json.loads((ROOT / "bench" / "heldout" / "corpus.json").read_text(encoding="utf-8"))
    for doc in corpus:
        repo, path = doc["source"].get("github", ""), Path(doc["source"].get("path", ""))
        if repo == "docling-project/docling" and path.parts[2] in ("html", "pdf", "docx"):
            assert path.name in refs.HELD_OUT_DOCLING, doc["file"]
        elif repo == "mozilla/readability":
            assert path.parent.name in refs.HELD_OUT_PAGES, doc["file"]
        elif repo == "adbar/trafilatura":
            assert path.name in refs.HELD_OUT_FILES, doc["file"]
        elif repo in ("camelot-dev/camelot", "tabulapdf/tabula-java"):
            assert path.name in tables.HELD_OUT, doc["file"]
