"""Name -> component registries; entries may be lazy ``"module:Class"`` strings so heavy imports wait."""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar

from ragkit.core.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """A small name -> class map that feeds the CLI choices and the UI's selectboxes."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, type[T] | str] = {}

    def register(self, name: str, target: type[T] | str) -> None:
        """Register ``target`` (a class, or ``"package.module:Class"`` imported on first use)."""
        self._entries[name] = target

    def names(self) -> list[str]:
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def get(self, name: str) -> type[T]:
        """The class registered as ``name``; an unknown name lists the valid ones."""
        try:
            target = self._entries[name]
        except KeyError:
            raise ConfigError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())}"
            ) from None
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            target = getattr(importlib.import_module(module), attr)
            self._entries[name] = target
        return target

    def create(self, name: str, **kwargs: Any) -> T:
        return self.get(name)(**kwargs)
