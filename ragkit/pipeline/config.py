"""``PipelineConfig``: one frozen, JSON-serialisable description of a whole RAG pipeline.

The same JSON is what the sidebar exports, what ``--config`` files hold, and what stamps every result:
``cache_key()`` is the sha256 of its canonical JSON (the labels excluded). Every field's default, type and
range come from the component that declares it (:mod:`ragkit.pipeline.fields`); a value that breaks them
raises one :class:`ConfigError` naming the field, whether the config came from Python, a JSON import, a
CLI ``--config`` file or a saved run. Booleans must be JSON booleans, integers integers, numbers finite.
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields, make_dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.hashing import config_key
from ragkit.core.options import NO_LEGACY
from ragkit.ingestion.chunkers import make_chunker
from ragkit.llms import LLMS
from ragkit.pipeline.fields import FIELDS, LABELS


def _d(name: str) -> Any:
    """The declared default of field ``name`` as a dataclass default (mutable ones through a factory)."""
    option = FIELDS[name]
    if isinstance(option.default, dict | list):
        return dc_field(default_factory=option.default_value)
    return dc_field(default=option.default)


#: the Python type of each declared kind (what the generated dataclass annotates its fields with)
_TYPES: dict[str, Any] = {
    "int": int,
    "int?": int | None,
    "float": float,
    "bool": bool,
    "str": str,
    "str?": str | None,
    "choice": str,
    "any": Any,
}


class _ConfigBase:
    """The behaviour of :class:`PipelineConfig`; its fields are generated from the declarations."""

    def __post_init__(self) -> None:
        owner = f"config {self.name!r:.60}" if isinstance(self.name, str) else "config"
        for f in fields(self):
            value = FIELDS[f.name].check(owner, getattr(self, f.name))
            object.__setattr__(self, f.name, value)  # ints in float fields become floats
        try:
            make_chunker(self.chunker, **self.chunker_params)  # the chunker checks its own settings
        except ConfigError as e:
            raise ConfigError(f"{owner}: chunker_params: {e}") from None
        if self.no_retrieval and not LLMS.component(self.llm).generative:
            raise ConfigError(
                f"{owner}: the no-retrieval baseline needs a language model; the {self.llm} backend only "
                "quotes retrieved sentences (choose groq, ollama or local)"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"a config must be a JSON object, got {type(data).__name__}")
        valid = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in set(data) - valid)
        if unknown:
            raise ConfigError(f"unknown config keys {unknown[:10]}; valid keys: {', '.join(sorted(valid))}")
        before = {n: o.value_before() for n, o in FIELDS.items() if o.legacy is not NO_LEGACY}
        return cls(**{**{n: v for n, v in before.items() if n not in data}, **data})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PipelineConfig:
        try:
            data = json.loads(text)
        except RecursionError:
            raise ConfigError("config JSON is nested too deeply to be a config") from None
        except ValueError as e:
            raise ConfigError(f"config is not valid JSON: {e}") from None
        if not isinstance(data, dict):
            raise ConfigError("config JSON must be an object")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read config {path}: {getattr(e, 'strerror', None) or e}") from None
        try:
            return cls.from_json(text)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def cache_key(self) -> str:
        """sha256 of the canonical JSON, without the labels (two names, same pipeline: same key) and
        without fields added after the first release left at what a config from before them meant (it
        keeps its hash, so saved runs stay comparable)."""
        d = self.to_dict()
        for o in LABELS:
            d.pop(o.key)
        for name, option in FIELDS.items():
            if option.added_later and d.get(name) == option.value_before():
                d.pop(name)
        return config_key(d)


#: one frozen dataclass with a field per declared option, in declaration order (labels first): a
#: component that declares a new field needs no line here
PipelineConfig = make_dataclass(
    "PipelineConfig",
    [(name, _TYPES[o.kind], _d(name)) for name, o in FIELDS.items()],
    bases=(_ConfigBase,),
    frozen=True,
)
PipelineConfig.__module__ = __name__
PipelineConfig.__doc__ = (
    "Chunking, retrieval, generation and the optional stages of one pipeline: one field per declared "
    "option (``ragkit.pipeline.fields.FIELDS``; ``python -m ragkit ask --help`` lists them)."
)
