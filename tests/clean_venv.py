"""A fresh virtual environment holding only what ``pip install 'ragkit[extras]'`` would install: the
closure of pyproject.toml's requirements, linked from the distributions installed here (no network)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from importlib.metadata import Distribution, distribution, distributions
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def normalize(name: str) -> str:
    """A distribution name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def ragkit_requirements(extras: Iterable[str]) -> list[Requirement]:
    """The requirements of ragkit with ``extras`` (``ragkit[...]`` inside an extra resolved)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = [Requirement(s) for s in project["dependencies"]]
    todo, seen = list(extras), set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in project["optional-dependencies"][extra]:
            req = Requirement(spec)
            if normalize(req.name) == "ragkit":
                todo.extend(req.extras)
            else:
                out.append(req)
    return out


def closure(requirements: Iterable[Requirement]) -> dict[str, Distribution]:
    """Every installed distribution the requirements need, transitively (markers evaluated for this
    interpreter, a requirement's extras followed); a needed distribution missing here is an error."""
    found: dict[str, Distribution] = {}
    done: set[tuple[str, str]] = set()
    todo = [(r, "") for r in requirements]
    while todo:
        req, via_extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": via_extra}):
            continue
        name = normalize(req.name)
        dist = found.get(name) or distribution(req.name)
        found[name] = dist
        for extra in ("", *sorted(req.extras)):
            if (name, extra) in done:
                continue
            done.add((name, extra))
            todo.extend((Requirement(s), extra) for s in dist.requires or [])
    return found


def _record(dist: Distribution) -> list[str]:
    """The paths a distribution installed, relative to site-packages (read from RECORD as text: parsing
    it into path objects takes minutes for torch on a loaded machine)."""
    text = dist.read_text("RECORD")
    if text is None:
        raise RuntimeError(f"{dist.metadata['Name']} has no RECORD: cannot tell which files it installed")
    return [line.split(",", 1)[0] for line in text.splitlines() if line and not line.startswith("../")]


def _owners() -> dict[str, set[str]]:
    """Top-level entry of site-packages -> the installed distributions that put files under it."""
    owners: dict[str, set[str]] = {}
    for d in distributions():
        if d.read_text("RECORD") is None:
            continue  # ragkit's own editable install here, say: it is not linked
        name = normalize(d.metadata["Name"])
        for f in _record(d):
            owners.setdefault(f.split("/", 1)[0], set()).add(name)
    return owners


def create(target: Path, extras: Iterable[str] = ()) -> Path:
    """A venv at ``target`` with ragkit (this checkout, on its path) and exactly the distributions
    ``ragkit[extras]`` needs; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
    python = target / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    owners = _owners()
    for name, dist in closure(ragkit_requirements(extras)).items():
        base = Path(str(dist.locate_file("")))
        for f in _record(dist):
            top = f.split("/", 1)[0]
            # a folder only this distribution writes to is linked whole, anything else file by file
            link = top if owners.get(top) == {name} and "/" in f else f
            if not (site / link).exists():
                (site / link).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(base / link, site / link)
    (site / "ragkit-checkout.pth").write_text(f"{ROOT}\n", encoding="utf-8")
    return python
