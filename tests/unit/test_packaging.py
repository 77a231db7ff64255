"""Honest packaging: every third-party package ragkit imports is a dependency or in an extra of
pyproject.toml, and a missing optional one fails with the pip install that brings it."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from ragkit.core.errors import MissingDependencyError
from ragkit.core.optional import PACKAGES, require

ROOT = Path(__file__).resolve().parents[2]


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs += extra
    names = set()
    for spec in specs:
        name = spec.split(";")[0].split("[")[0]
        for sep in "<>=!~ ":
            name = name.split(sep)[0]
        names.add(name.strip().lower().replace("_", "-"))
    return names


def imported_top_levels() -> set[str]:
    out = set()
    for p in (ROOT / "ragkit").rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.add(node.module.split(".")[0])
    # imports by name through require()
    return (out | {m.split(".")[0] for m in PACKAGES}) - set(sys.stdlib_module_names) - {"ragkit"}


def test_every_imported_package_is_declared_in_pyproject():
    dists = packages_distributions()
    have = declared()
    missing = []
    for module in sorted(imported_top_levels()):
        names = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
        if not names & have:
            missing.append(f"{module} ({', '.join(sorted(names))})")
    assert missing == []


def test_a_missing_optional_package_names_the_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "qdrant_edge", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragkit\[qdrant\]'"):
        require("qdrant_edge", "the embedded Qdrant store")
    from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore

    with pytest.raises(
        MissingDependencyError, match="embedded Qdrant store needs the package qdrant-edge-py"
    ):
        QdrantEdgeStore(tmp_path / "nowhere", 8).count()  # its lock file goes there, not in the repo
