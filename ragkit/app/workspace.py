"""What a researcher was doing in a collection, kept with it so a reload or a second tab finds it again.

``<collection>/workspace.json`` holds configs A and B, the chats (every answer with its hits, scores and
timings), the last single comparison and the last batch comparison with its "better" judgements. The
index root's ``.workspace.json`` remembers the collection used last. Every write is a read-modify-write
under the collection's workspace lock, through a temp file and a rename (two tabs never lose each
other's turns; a crash never leaves half a file). Secrets are never part of it: configs hold none, and
the Groq key lives in the browser session only.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.files import atomic_write, file_lock
from ragkit.pipeline.config import PipelineConfig

WORKSPACE = "workspace.json"
LAST = ".workspace.json"
VERSION = 1


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def new_chat() -> dict[str, Any]:
    return {"id": uuid.uuid4().hex[:10], "created": _now(), "title": "", "turns": []}


class Workspace:
    """The saved state of one collection (see the module docstring)."""

    def __init__(self, collection_path: str | Path) -> None:
        self.path = Path(collection_path) / WORKSPACE
        self._lock_path = Path(collection_path) / ".workspace.lock"

    def load(self) -> dict[str, Any]:
        """The saved state, or an empty one; an unreadable file is set aside, never a crash."""
        if not self.path.is_file():
            return {"version": VERSION}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not an object")
            return data
        except (OSError, ValueError):
            broken = self.path.with_name(f"{WORKSPACE}.unreadable-{uuid.uuid4().hex[:6]}")
            self.path.rename(broken)
            return {
                "version": VERSION,
                "notice": f"the saved workspace was unreadable and kept as {broken.name}",
            }

    def update(self, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Apply ``change`` to the latest saved state (read under the lock, so a second tab's writes are
        kept) and save it atomically; returns the new state."""
        with file_lock(self._lock_path, f"workspace of {self.path.parent.name!r}", timeout=30):
            data = self.load()
            data.pop("notice", None)
            change(data)
            data["version"], data["updated_at"] = VERSION, _now()
            atomic_write(self.path, lambda f: json.dump(data, f, ensure_ascii=False, default=str))
        return data

    # -------------------------------------------------------------- configs

    def configs(self) -> dict[str, PipelineConfig]:
        """Saved configs A and B (each validated; an invalid one is left out)."""
        out: dict[str, PipelineConfig] = {}
        for k, d in (self.load().get("configs") or {}).items():
            try:
                out[k] = PipelineConfig.from_dict(d)
            except (ConfigError, TypeError):
                continue
        return out

    def save_configs(self, configs: dict[str, PipelineConfig]) -> None:
        """Save these configs (only these keys: a config another session saved meanwhile is kept)."""

        def change(d: dict[str, Any]) -> None:
            d["configs"] = {**(d.get("configs") or {}), **{k: c.to_dict() for k, c in configs.items()}}

        self.update(change)

    # -------------------------------------------------------------- chats

    def chats(self) -> list[dict[str, Any]]:
        return list(self.load().get("chats") or [])

    def chat(self, chat_id: str | None) -> dict[str, Any] | None:
        """The saved chat ``chat_id``, or None."""
        return next((c for c in self.chats() if c["id"] == chat_id), None) if chat_id else None

    def append_turn(self, chat_id: str, turn: dict[str, Any]) -> None:
        """Add one turn (question, answer dict or error) to a chat, creating the chat if it is new."""

        def change(d: dict[str, Any]) -> None:
            chats = d.setdefault("chats", [])
            chat = next((c for c in chats if c["id"] == chat_id), None)
            if chat is None:
                chat = {**new_chat(), "id": chat_id}
                chats.append(chat)
            chat["turns"].append({**turn, "at": _now()})
            if not chat.get("title"):
                chat["title"] = turn.get("question", "")[:80]

        self.update(change)

    # -------------------------------------------------------------- comparisons

    def set_value(self, key: str, value: Any) -> None:
        """Save one piece of state (``compare``: the last comparison; ``batch``: the last batch with its
        judgements; ``eval_run``: the path of the run last shown)."""
        self.update(lambda d: d.__setitem__(key, value))

    def get(self, key: str, default: Any = None) -> Any:
        return self.load().get(key, default)


def chat_markdown(chat: dict[str, Any]) -> str:
    """A chat as Markdown, for export: each question, its answer, and the sources it cited."""
    lines = [f"# {chat.get('title') or 'Chat'}", "", f"Started {chat.get('created', '')}", ""]
    for t in chat.get("turns", []):
        lines += [f"## {t.get('question', '')}", ""]
        if t.get("error"):
            lines += [f"> Error: {t['error']}", ""]
            continue
        a = t.get("answer") or {}
        lines += [a.get("answer", ""), ""]
        hits = a.get("hits", [])
        for c in a.get("citations", []):
            n = c["n"]
            text = " ".join(hits[n - 1]["text"].split())[:300] if 0 < n <= len(hits) else ""
            lines.append(f"- [{n}] {c['source']}, page {c['page']}: {text}")
        conf = a.get("confidence")
        if conf:
            lines.append(f"- retrieval confidence {conf['value']:.2f} ({conf['band']})")
        lines.append("")
    return "\n".join(lines)


def last_collection(root: str | Path) -> str | None:
    p = Path(root) / LAST
    try:
        return json.loads(p.read_text(encoding="utf-8")).get("collection")
    except (OSError, ValueError, AttributeError):
        return None


def remember_collection(root: str | Path, name: str) -> None:
    p = Path(root) / LAST
    if last_collection(root) == name:
        return
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, lambda f: json.dump({"collection": name, "at": _now()}, f))
