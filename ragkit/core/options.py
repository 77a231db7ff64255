"""Declared settings. An :class:`Option` is one setting (name, kind, default, range, help); a
:class:`Component` is a named part of a pipeline with its options and capabilities. Config validation,
CLI flags, sidebar widgets, cache keys, presets and sweep grids all read these declarations, so a
component's name, defaults and ranges are written once, beside the component.
"""

from __future__ import annotations

import copy
import math
import reprlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from ragkit.core.errors import ConfigError

#: the kinds of value an option holds; ``str?`` is a string or None, ``any`` is checked by ``validate``
KINDS = ("int", "int?", "float", "bool", "str", "str?", "choice", "any")
MAX_STR = 2000
#: how the sweep form offers an option (see :attr:`Option.sweep`)
SWEEP_ROLES = ("auto", "main", "more", "no")
#: an option whose ``legacy`` is not set: a config from before it meant its default
NO_LEGACY: Any = type("NoLegacy", (), {"__repr__": lambda self: "NO_LEGACY"})()


def short_repr(value: Any) -> str:
    """A bounded repr (a 100k-deep structure must not cost a 100k-deep repr in an error message)."""
    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother = 2, 40, 40
    return r.repr(value)


def number_text(x: float | None) -> str:
    """``1000000`` rather than ``1e+06``: bounds read as the user would type them."""
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def check_value(owner: str, name: str, value: Any, kind: str, low: float | None, high: float | None) -> Any:
    """``value`` if it is a valid ``kind`` within [low, high]; else a ``ConfigError`` naming ``owner: name``.

    Integers given as floats (``5.0``) are refused like ``5.5``: a config file is data, not arithmetic.
    An int for a float field is accepted and returned as a float. Booleans must be real booleans.
    """
    where = f"{owner}: {name}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false (a JSON boolean), got {short_repr(value)}")
        return value
    if kind == "int?":
        return None if value is None else check_value(owner, name, value, "int", low, high)
    if kind in ("str", "str?", "choice"):
        if value is None and kind == "str?":
            return None
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {type(value).__name__} {short_repr(value)}")
        if len(value) > MAX_STR:
            raise ConfigError(f"{where} is {len(value)} characters long (at most {MAX_STR})")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                f"{where} must be a whole number, got {type(value).__name__} {short_repr(value)}"
            )
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where} must be a number, got {type(value).__name__} {short_repr(value)}")
        if not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, got {value!r}")
        value = float(value)
    else:  # pragma: no cover - declarations are checked when they are made
        raise ConfigError(f"{where}: unknown kind {kind}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(
            f"{where} must be between {number_text(low)} and {number_text(high)}, got {value!r}"
        )
    return value


@dataclass(frozen=True)
class Option:
    """One setting of a component or stage.

    Attributes:
        name: the setting's name in the component (and in ``chunker_params``).
        kind: one of :data:`KINDS`; ``choice`` takes one of ``choices``.
        default: the value when none is given (mutable defaults are copied on use).
        low, high: the inclusive range of a number.
        choices: the allowed values of a ``choice``, or a function returning them (a registry's names).
        field: the ``PipelineConfig`` field holding it; None when it lives in a params dict.
        flag: the CLI flag (default ``--`` + field or name, dashes for underscores).
        label, help: what the sidebar and ``--help`` show.
        advanced: shown under the sidebar's "More settings" rather than with the main choices.
        widget: how the sidebar edits it (``number``, ``slider``, ``select``, ``toggle``, ``text``, or
            ``custom``: the UI draws it itself; ``none``: not shown).
        step: the slider or number step.
        added_later: left out of a config's hash at its default (or ``legacy``), so configs from before
            it keep theirs.
        legacy: what a config written before the option existed meant, when that is not the default
            (``embedding_backend``: new configs get int8, a config that names no backend was torch); a
            config read from JSON without the field gets it.
        validate: ``(owner, value) -> value`` for values a kind cannot describe (a dict, a template).
        blank_is_none: a text widget left blank means None (an optional host or URL).
        placeholder: what an empty text widget suggests.
        needs: a capability the chosen LLM backend must have for this setting to do anything
            (``generative``: a no-retrieval baseline or query expansion needs a language model).
        requires: the config field of a switch that must be on for this setting to matter (the sidebar
            hides it otherwise).
        service_env: set for the URL or host of a service the server connects to (an LLM server, a
            search engine): the environment variable its administrator sets it with. In the app a
            visitor's value must be that one or pass the fetch policy (no server-side request forgery
            through a settings field).
        suggest: values a sweep over this setting usually tries (the sweep form offers them).
        typical: the range where good values usually lie (BM25's k1: 0.9-2.0), said beside the allowed one.
        sweep: how the sweep form offers it: ``main`` (with the first choices), ``more`` (under more
            dimensions), ``no`` (a sweep over it measures nothing: same scores, or not a setting), or
            ``auto``: decided from its kind and group (:mod:`ragkit.app.sweep_form`).
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | Callable[[], list[str]] = ()
    field: str | None = None
    flag: str | None = None
    label: str = ""
    help: str = ""
    widget: str | None = None
    step: float | None = None
    added_later: bool = False
    validate: Callable[[str, Any], Any] | None = dc_field(default=None, compare=False)
    blank_is_none: bool = False
    requires: str | None = None
    advanced: bool = False
    needs: str | None = None
    placeholder: str = ""
    service_env: str | None = None
    suggest: tuple[Any, ...] = dc_field(default=(), compare=False)  # values may be dicts (unhashable)
    typical: tuple[float, float] | None = None
    sweep: str = "auto"
    legacy: Any = dc_field(default=NO_LEGACY, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"option {self.name}: unknown kind {self.kind!r}")
        if self.sweep not in SWEEP_ROLES:
            raise ConfigError(f"option {self.name}: sweep must be one of {SWEEP_ROLES}, got {self.sweep!r}")

    @property
    def key(self) -> str:
        """Where the value lives: the config field, else the option's own name."""
        return self.field or self.name

    def allowed(self) -> tuple[str, ...]:
        return tuple(self.choices() if callable(self.choices) else self.choices)

    def default_value(self) -> Any:
        return copy.deepcopy(self.default)

    def value_before(self) -> Any:
        """What a config written before this option existed meant by leaving it out."""
        return self.default_value() if self.legacy is NO_LEGACY else copy.deepcopy(self.legacy)

    def cli_flag(self) -> str:
        return self.flag or "--" + self.key.replace("_", "-")

    def check(self, owner: str, value: Any) -> Any:
        """The value, normalised, or a ``ConfigError`` naming the owner and the setting."""
        if self.validate is not None:
            return self.validate(owner, value)
        value = check_value(owner, self.key, value, self.kind, self.low, self.high)
        if self.kind == "choice" and value not in self.allowed():
            raise ConfigError(
                f"{owner}: {self.key} must be one of {', '.join(self.allowed())}, got {value!r}"
            )
        return value

    def alternative(self) -> Any:
        """A valid value other than the default (what a fidelity test varies it to)."""
        d = self.default
        if self.kind == "bool":
            return not d
        if self.kind == "choice":
            return next(c for c in self.allowed() if c != d)
        if self.kind == "int?" and d is None:
            return int(self.low or 1)
        if self.kind in ("int", "int?", "float"):
            cast = int if self.kind == "int" else float
            step = cast(self.step or 1)
            up = cast(d) + step
            return up if self.high is None or up <= self.high else cast(d) - step
        if self.kind in ("str", "str?"):
            return (d or "") + "x"
        raise ConfigError(f"option {self.key}: no alternative value for kind {self.kind}")


@dataclass(frozen=True)
class Component:
    """A named component: its options and what it can do.

    Attributes:
        kind: ``chunker``, ``embedder``, ``retriever``, ``reranker``, ``llm``, ``store`` or ``stage``.
        name: the name configs, the CLI and the sidebar use.
        summary: one line for choices and ``--help``.
        options: its settings.
        parts: other components of the same kind it is built from (hybrid: bm25 and dense).
        generative: it writes text (an LLM); the extractive reader does not.
        key_env: the environment variable holding its API key, when it needs one.
        default_model: the model it uses when none is named.
        model_hint: what the model field suggests (a placeholder).
        in_process: it loads a model into this process (warm it up before timing anything).
        continues_text: it continues a transcript (a base model): the prompt's stop sequences end it.
        extras: other declared facts (``pip`` extra to install, ...).
    """

    kind: str
    name: str
    summary: str = ""
    options: tuple[Option, ...] = ()
    parts: tuple[str, ...] = ()
    generative: bool = False
    key_env: str | None = None
    default_model: str | None = None
    model_hint: str | None = None
    in_process: bool = False
    continues_text: bool = False
    extras: Mapping[str, Any] = dc_field(default_factory=dict)

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(f"{self.kind} {self.name} has no option {name!r}")

    def default(self, name: str) -> Any:
        return self.option(name).default_value()

    def reads(self) -> tuple[str, ...]:
        """The ``PipelineConfig`` fields this component's own options are stored in."""
        return tuple(o.field for o in self.options if o.field)

    def settings(self, given: Mapping[str, Any], owner: str | None = None) -> Settings:
        """Checked settings from ``given`` (names of options without a config field), defaults filled in;
        an unknown name is an error that lists the valid ones. ``owner`` prefixes value errors."""
        owner = owner or self.name
        mine = [o for o in self.options if o.field is None]
        names = {o.name for o in mine}
        unknown = sorted(str(k) for k in given if k not in names)
        if unknown:
            valid = ", ".join(o.name for o in mine)
            raise ConfigError(
                f"{self.name} {self.kind}: unknown setting {unknown[0]!r}; valid settings: {valid}"
            )
        values = {
            o.name: o.check(owner, given[o.name]) if o.name in given else o.default_value() for o in mine
        }
        return Settings(values)


class Settings(Mapping[str, Any]):
    """A component's checked settings: read-only, by attribute or key."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("settings are read-only")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self) == dict(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self._values.items())))

    def __repr__(self) -> str:
        return f"Settings({self._values!r})"
