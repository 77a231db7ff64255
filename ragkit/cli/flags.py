"""Command-line flags generated from the declared config fields, and the config they describe.

Every command that runs a pipeline takes ``--config FILE`` (the JSON the sidebar exports) and one flag per
field of the groups it uses (``--retriever``, ``--k1``, ``--bm25-engine``, ``--top-k``, ``--llm`` …), with
the choices, ranges and help of the field's declaration; a flag given on the command line overrides the
file. The chunker's own settings get their declared flags (``--chunk-size``, ``--window`` …).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from ragkit.core.errors import ConfigError, RagkitError
from ragkit.core.options import Option
from ragkit.ingestion.chunkers import CHUNKERS
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import GROUPS

#: fields with no flag of their own (the chunker's settings get theirs; a calibration map comes from
#: ``ragkit calibrate``)
NO_FLAG = ("chunker_params", "confidence_calibration", "embedding_model")


def parse_weights(text: str) -> dict[str, float]:
    """``bm25=0.6,dense=0.4`` -> ``{"bm25": 0.6, "dense": 0.4}``."""
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise RagkitError(f"--weights: {part!r} is not name=number") from None
    return out


def _text_value(o: Option) -> Any:
    """An argparse ``type`` for an option whose value is not a plain number or word."""

    def convert(text: str) -> Any:
        if o.key == "hybrid_weights":
            return parse_weights(text)
        try:
            return json.loads(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{o.cli_flag()} takes JSON, got {text!r}") from None

    return convert


def add_option(group: Any, o: Option, dest: str) -> None:
    """One flag for one declared option (``default=None``: "not given", so a config file's value stays)."""
    help_text = o.help or o.label
    kwargs: dict[str, Any] = {"dest": dest, "default": None, "help": help_text}
    if o.kind == "bool":
        # --rerank / --no-rerank (a config file's True can be turned off); a flag that already says
        # "no" (--no-retrieval) just turns its setting on
        if o.cli_flag().startswith("--no-"):
            group.add_argument(o.cli_flag(), action="store_const", const=True, **kwargs)
        else:
            group.add_argument(o.cli_flag(), action=argparse.BooleanOptionalAction, **kwargs)
        return
    if o.kind == "choice":
        kwargs["choices"] = list(o.allowed())
    elif o.kind in ("int", "int?"):
        kwargs.update(type=int, metavar="N")
    elif o.kind == "float":
        kwargs.update(type=float, metavar="X")
    elif o.kind == "any":
        kwargs.update(type=_text_value(o), metavar="NAME=W,…" if o.key == "hybrid_weights" else "JSON")
    else:
        kwargs["metavar"] = "TEXT"
    group.add_argument(o.cli_flag(), **kwargs)


def add_config_flags(parser: argparse.ArgumentParser, *groups: str, config_help: str | None = None) -> None:
    """``--config FILE`` and a flag per field of ``groups`` (``index`` adds the chunkers' settings)."""
    parser.add_argument(
        "--config",
        default=None,
        help=config_help or "a pipeline config JSON (as the sidebar exports); the flags below override it",
    )
    for name in groups:
        g = parser.add_argument_group(name)
        for o in GROUPS[name]:
            if (o.field and o.field not in NO_FLAG and o.widget != "custom") or o.key == "hybrid_weights":
                add_option(g, o, f"f_{o.key}")
        if name == "index":
            add_chunker_flags(g)


def add_chunker_flags(group: Any) -> None:
    """One flag per distinct chunker setting flag (``--overlap`` serves every chunker that has one)."""
    seen: set[str] = set()
    for component in CHUNKERS.components():
        for o in component.options:
            if o.cli_flag() in seen:
                continue
            seen.add(o.cli_flag())
            add_option(group, o, f"c_{o.name}")


def chunker_settings(args: argparse.Namespace, chunker: str | None) -> dict[str, Any] | None:
    """The chunker settings given as flags, for ``chunker``; a flag that only another chunker has is an
    error (None: no chunker setting given)."""
    given = {k[2:]: v for k, v in vars(args).items() if k.startswith("c_") and v is not None}
    if not given:
        return None
    if chunker is None:
        flag = next(o.cli_flag() for c in CHUNKERS.components() for o in c.options if o.name in given)
        raise RagkitError(f"{flag} needs --chunker")
    mine = {o.name for o in CHUNKERS.component(chunker).options}
    stray = sorted(set(given) - mine)
    if stray:
        other = next(c.name for c in CHUNKERS.components() for o in c.options if o.name == stray[0])
        raise RagkitError(f"option for {other} chunker given with --chunker {chunker}")
    return given


def config_from_args(
    args: argparse.Namespace, base: PipelineConfig | None = None, **defaults: Any
) -> PipelineConfig:
    """The config ``--config`` names (else ``base``, else the defaults), with ``defaults`` applied first
    and every flag given on the command line applied over it."""
    if getattr(args, "config", None):
        config = PipelineConfig.load(args.config)
    else:
        config = replace(base or PipelineConfig(), **defaults)
    overrides = {k[2:]: v for k, v in vars(args).items() if k.startswith("f_") and v is not None}
    params = chunker_settings(args, overrides.get("chunker", config.chunker))
    if "chunker" in overrides and overrides["chunker"] != config.chunker:
        overrides.setdefault("chunker_params", {})
    if params is not None:
        base_params = {} if "chunker_params" in overrides else dict(config.chunker_params)
        overrides["chunker_params"] = {**base_params, **params}
    try:
        return replace(config, **overrides)
    except ConfigError as e:
        raise ConfigError(f"{e} (from the command line)") from None


def given(args: argparse.Namespace, field: str) -> bool:
    """Whether the flag of ``field`` was given on the command line."""
    return getattr(args, f"f_{field}", None) is not None
