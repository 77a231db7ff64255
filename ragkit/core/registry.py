"""Name -> component class, read from each class's declared :class:`~ragkit.core.options.Component`.

A family (chunkers, retrievers, LLM backends, vector stores) registers its classes in one line each; the
names the config accepts, the CLI offers and the sidebar lists all come from here.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component

T = TypeVar("T")


class Registry(Generic[T]):
    """The classes of one component family, by their declared name."""

    def __init__(self, kind: str, *classes: type[T]) -> None:
        self.kind = kind
        self._classes: dict[str, type[T]] = {}
        for cls in classes:
            self.register(cls)

    def register(self, cls: type[T]) -> type[T]:
        """Add ``cls`` under ``cls.component.name`` (usable as a class decorator)."""
        c: Component = cls.component  # type: ignore[attr-defined]
        if c.kind != self.kind:
            raise ConfigError(f"{cls.__name__} is a {c.kind}, not a {self.kind}")
        if c.name in self._classes:
            raise ConfigError(f"two {self.kind}s named {c.name!r}")
        self._classes[c.name] = cls
        return cls

    def names(self) -> list[str]:
        return list(self._classes)

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def __iter__(self):
        return iter(self._classes.values())

    def get(self, name: str) -> type[T]:
        """The class registered as ``name``; an unknown name lists the valid ones."""
        try:
            return self._classes[name]
        except KeyError:
            raise ConfigError(
                f"unknown {self.kind} {name!r}; choose one of: {', '.join(self.names())}"
            ) from None

    def component(self, name: str) -> Component:
        return self.get(name).component  # type: ignore[attr-defined]

    def components(self) -> list[Component]:
        return [cls.component for cls in self._classes.values()]  # type: ignore[attr-defined]

    def create(self, name: str, **kwargs: Any) -> T:
        return self.get(name)(**kwargs)
