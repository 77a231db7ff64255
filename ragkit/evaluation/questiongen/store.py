"""Generated question sets saved with their collection: ``<collection>/questions/<name>.jsonl`` (what
Evaluate, the sweep and ``eval run`` read) beside ``<name>.report.json`` (every question made, rejected
ones with their reasons, and the method's bias note)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.files import atomic_write
from ragkit.evaluation.questiongen.records import GenerationReport, question_file

FOLDER = "questions"
CACHE_FILE = ".generation-cache.jsonl"
DRAFT_FILE = ".draft.json"  # the set under review, kept across reloads until another replaces it


def questions_dir(collection: Any) -> Path:
    return Path(collection.path) / FOLDER


def cache_path(collection: Any) -> Path:
    return questions_dir(collection) / CACHE_FILE


def _name(name: str) -> str:
    clean = re.sub(r"[^\w.-]+", "-", name.strip()).strip("-.")
    if not clean:
        raise RagkitError(f"{name!r} is not a usable question set name (use letters, digits, - or _)")
    return clean[:80]


def question_set_path(collection: Any, name: str) -> Path:
    """Where the set called ``name`` is saved (the name cleaned to letters, digits, ``-``, ``_``, ``.``)."""
    return questions_dir(collection) / f"{_name(name)}.jsonl"


def save_question_set(collection: Any, name: str, report: GenerationReport) -> Path:
    """Write the accepted questions and the whole report; returns the question file's path."""
    if not report.accepted:
        raise RagkitError("no accepted question to save: accept at least one")
    path = question_set_path(collection, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path.with_suffix(".report.json"), lambda f: json.dump(report.to_dict(), f, indent=1))
    atomic_write(path, lambda f: f.write(question_file(report.questions)))
    return path


def saved_question_sets(collection: Any) -> list[Path]:
    """The question files saved with the collection, newest first."""
    folder = questions_dir(collection)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl"), key=lambda p: (-p.stat().st_mtime, p.name))


def load_report(path: str | Path) -> GenerationReport | None:
    """The report saved beside a question file, if there is one."""
    p = Path(path).with_suffix(".report.json")
    if not p.is_file():
        return None
    return GenerationReport.from_dict(json.loads(p.read_text(encoding="utf-8")))


def save_draft(collection: Any, report: GenerationReport) -> None:
    """Keep the set under review (with every decision so far) beside the saved sets."""
    folder = questions_dir(collection)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(folder / DRAFT_FILE, lambda f: json.dump(report.to_dict(), f))


def load_draft(collection: Any) -> GenerationReport | None:
    """The set under review in this collection, if a session left one (None if unreadable)."""
    p = questions_dir(collection) / DRAFT_FILE
    try:
        return GenerationReport.from_dict(json.loads(p.read_text(encoding="utf-8"))) if p.is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
