"""The house's layers: no import cycle anywhere in ragkit, ui or app_pages (imports inside functions
included), no import from a lower layer to a higher one, nothing in ragkit importing streamlit or the app.

Layers, lowest first: core < ingestion < index < retrievers < llms < pipeline < evaluation < app < cli;
a folder imports only itself and the folders below it. Inside ``evaluation`` the rooms are layers too:
metrics < datasets < questiongen < runs < sweep. ``ui`` may import ragkit; ``app_pages`` may import
``ui`` and ragkit; neither is imported by ragkit. No room holds more than ten modules, and no two modules
of a room are named X and Xs.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("core", "ingestion", "index", "retrievers", "llms", "pipeline", "evaluation", "app", "cli")
ROOMS = {"evaluation": ("metrics", "datasets", "questiongen", "runs", "sweep")}


def import_graph(
    root: Path, packages: tuple[str, ...] = ("ragkit", "ui", "app_pages")
) -> dict[str, set[str]]:
    """Module -> the project modules it imports (every ``import`` statement, at any depth)."""
    mods: dict[str, Path] = {}
    for pkg in packages:
        for p in (root / pkg).rglob("*.py"):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods[".".join(parts)] = p

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = defaultdict(set)
    for mod, path in mods.items():
        graph[mod]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                r = resolve(t)
                if r and r != mod and not mod.startswith(r + "."):  # a package's own init is not a cycle
                    graph[mod].add(r)
                if t.split(".")[0] == "streamlit":
                    graph[mod].add("streamlit")
    return dict(graph)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def layer_of(module: str) -> tuple[float, str]:
    """(rank, name) of a module's layer; the ragkit package itself sits with core, ``__main__`` with cli,
    ui and app_pages above everything in ragkit; a room of a layer with rooms ranks inside its layer."""
    parts = module.split(".")
    if parts[0] == "ui":
        return len(LAYERS), "ui"
    if parts[0] == "app_pages":
        return len(LAYERS) + 1, "app_pages"
    if parts[0] == "streamlit":
        return len(LAYERS), "streamlit"
    if len(parts) == 1:
        return 0, "ragkit"
    if parts[1] == "__main__":
        return LAYERS.index("cli"), "cli"
    rank, rooms = LAYERS.index(parts[1]), ROOMS.get(parts[1], ())
    if len(parts) > 2 and parts[2] in rooms:
        return rank + (rooms.index(parts[2]) + 1) / (len(rooms) + 1), f"{parts[1]}.{parts[2]}"
    return rank, parts[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a module to a module of a higher layer."""
    bad = []
    for mod, targets in graph.items():
        for t in targets:
            if layer_of(t)[0] > layer_of(mod)[0]:
                bad.append(f"{mod} ({layer_of(mod)[1]}) imports {t} ({layer_of(t)[1]})")
    return sorted(bad)


def test_no_cycles_and_no_upward_imports_in_the_house():
    graph = import_graph(ROOT)
    assert cycles(graph) == []
    assert upward_imports(graph) == []


def test_every_ragkit_module_sits_in_a_declared_layer():
    graph = import_graph(ROOT)
    for mod in graph:
        if mod.startswith("ragkit.") and mod.split(".")[1] != "__main__":
            assert mod.split(".")[1] in LAYERS, f"{mod} is in no layer: add its folder to LAYERS"


def test_rooms_are_declared_hold_at_most_ten_modules_and_no_plural_twins():
    for pkg in (ROOT / "ragkit", ROOT / "ui"):
        for folder in [pkg, *(d for d in pkg.rglob("*") if d.is_dir() and (d / "__init__.py").exists())]:
            names = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
            assert not {n for n in names if n + "s" in names}, f"{folder}: {sorted(names)}"
    for layer, rooms in ROOMS.items():
        folder = ROOT / "ragkit" / layer
        assert {p.stem for p in folder.glob("*.py")} == {"__init__"}, f"a module of {layer} sits in no room"
        assert {d.name for d in folder.iterdir() if (d / "__init__.py").exists()} == set(rooms)
        for room in rooms:
            modules = [p for p in (folder / room).glob("*.py") if p.stem != "__init__"]
            assert len(modules) <= 10, f"{layer}/{room} holds {len(modules)} modules"
    assert len([p for p in (ROOT / "ui").glob("*.py") if p.stem != "__init__"]) <= 10


def plant(root: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return import_graph(root)


def test_a_planted_cycle_is_found_even_inside_a_function(tmp_path):
    graph = plant(
        tmp_path,
        {
            "ragkit/__init__.py": "",
            "ragkit/core/__init__.py": "",
            "ragkit/core/a.py": "def f():\n    from ragkit.core.b import g\n",
            "ragkit/core/b.py": "from ragkit.core import a\n",
        },
    )
    assert cycles(graph) == [["ragkit.core.a", "ragkit.core.b"]]


def test_a_planted_upward_import_is_found(tmp_path):
    graph = plant(
        tmp_path,
        {
            "ragkit/__init__.py": "",
            "ragkit/core/__init__.py": "",
            "ragkit/core/types.py": "def f():\n    import ragkit.pipeline.config\n",
            "ragkit/pipeline/__init__.py": "",
            "ragkit/pipeline/config.py": "X = 1\n",
            "ragkit/app/__init__.py": "",
            "ragkit/app/view.py": "import streamlit as st\n",
        },
    )
    assert cycles(graph) == []
    assert upward_imports(graph) == [
        "ragkit.app.view (app) imports streamlit (streamlit)",
        "ragkit.core.types (core) imports ragkit.pipeline.config (pipeline)",
    ]


def test_a_planted_import_from_a_lower_room_to_a_higher_one_is_found(tmp_path):
    graph = plant(
        tmp_path,
        {
            "ragkit/__init__.py": "",
            "ragkit/evaluation/__init__.py": "",
            "ragkit/evaluation/metrics/__init__.py": "",
            "ragkit/evaluation/metrics/stats.py": "from ragkit.evaluation.runs.report import x\n",
            "ragkit/evaluation/runs/__init__.py": "",
            "ragkit/evaluation/runs/report.py": "from ragkit.evaluation.metrics.stats import y\n",
        },
    )
    assert upward_imports(graph) == [
        "ragkit.evaluation.metrics.stats (evaluation.metrics) imports ragkit.evaluation.runs.report"
        " (evaluation.runs)"
    ]
