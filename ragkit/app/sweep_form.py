"""The Sweep tab's grid form, without Streamlit: the dimensions it offers (read from the components'
declarations), the widget values that show a grid, and the grid the widget values make. The two
directions round-trip exactly, so the JSON grid the CLI reads and the form are one thing.

Each dimension gets its natural control: a multiselect for a choice (a retriever, a parser, a chunker,
any choice a component declares) or a switch, a list of numbers (with the option's suggestions and range),
the chosen chunker's settings as lists of numbers combined every way or paired, and hybrid weights as
``bm25 : dense`` ratios. Values a control cannot show (a hand-written grid) are shown as JSON instead.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Option, number_text
from ragkit.ingestion.chunkers import CHUNKERS
from ragkit.pipeline.fields import FIELDS, GROUPS, OWNERS

#: the fields whose value is not one setting: their controls (as the sidebar's custom widgets)
CUSTOM = {"chunker_params": "chunks", "hybrid_weights": "weights"}
EVERY, PAIRED = "every combination", "paired (first with first, …)"
MODES = (EVERY, PAIRED)
ORDER = "sweep_order"  # the varied fields in the grid's order (names and candidate order follow it)
CHUNK_MODE = "sweep_chunk_mode"
_INT = re.compile(r"[+-]?\d+")


def vary_key(field: str) -> str:
    return f"sweep_vary_{field}"


def json_key(field: str) -> str:
    return f"sweep_json_{field}"


def chunk_key(option: str) -> str:
    return f"sweep_chunk_{option}"


@dataclass(frozen=True)
class Dimension:
    """One field the form can vary: its control, where it sits, and what it says."""

    field: str
    control: str  # choices | switch | numbers | chunks | weights
    section: str  # main | more
    label: str
    help: str
    placeholder: str = ""
    choices: tuple[Any, ...] = ()


def _control(o: Option) -> str | None:
    if o.key in CUSTOM:
        return CUSTOM[o.key]
    if o.widget == "none" or o.service_env or o.sweep == "no":
        return None
    return {
        "choice": "choices",
        "bool": "switch",
        "int": "numbers",
        "int?": "numbers",
        "float": "numbers",
    }.get(o.kind)


def _range(o: Option) -> str:
    parts = []
    if o.low is not None or o.high is not None:
        parts.append(f"allowed {number_text(o.low)}–{number_text(o.high)}")
    if o.typical:
        parts.append(f"typically {number_text(o.typical[0])}–{number_text(o.typical[1])}")
    return "; ".join(parts)


def dimensions() -> list[Dimension]:
    """Every dimension the form offers, in declaration order: each component's choices and switches of
    the index and retrieval stages with the first choices, the rest under more dimensions."""
    out = []
    for group in ("index", "retrieval", "generation", "pipeline"):
        for o in GROUPS[group]:
            control = _control(o) if o.field else None
            if control is None or o.sweep == "no":
                continue
            first = group in ("index", "retrieval") and control in ("choices", "switch") and not o.advanced
            section = o.sweep if o.sweep in ("main", "more") else ("main" if first else "more")
            label = f"{o.label or o.key.replace('_', ' ').capitalize()} ({o.key})"
            hint, choices = "", ()
            if control == "numbers":
                hint = "e.g. " + ", ".join(map(_num, o.suggest)) if o.suggest else "numbers, comma-separated"
            elif control == "weights":
                parts = OWNERS[o.key].parts
                hint = "e.g. " + ", ".join(_ratio(v, parts) for v in o.suggest) + f"  ({' : '.join(parts)})"
                label = f"{o.label or 'Hybrid weights'}, {' : '.join(parts)} ({o.key})"
            elif control == "choices":
                choices = o.allowed()
            elif control == "switch":
                choices = (False, True)
            text = "; ".join(x for x in (o.help, _range(o)) if x)
            out.append(Dimension(o.key, control, section, label, text, hint, choices))
    return out


def chunker_options(chunker: str) -> tuple[Option, ...]:
    """The settings the chunk control offers for ``chunker``: its numbers and switches."""
    return tuple(o for o in CHUNKERS.component(chunker).options if o.kind in ("int", "float", "bool"))


def form_chunker(values: Mapping[str, Any], base_chunker: str) -> str | None:
    """The chunker whose settings the chunk control edits: the one chunker varied or the base's; None
    when several are varied (each then runs with its own defaults)."""
    picked = values.get(vary_key("chunker")) or []
    if values.get(json_key("chunker")):
        return None
    return base_chunker if not picked else (picked[0] if len(picked) == 1 else None)


# -- numbers and ratios as typed ------------------------------------------------------------------------
def _num(v: Any) -> str:
    return "none" if v is None else str(v) if isinstance(v, int) else repr(float(v))


def _parse_num(token: str, where: str) -> Any:
    token = token.strip()
    if token.lower() == "none":
        return None
    try:
        return int(token) if _INT.fullmatch(token) else float(token)
    except ValueError:
        raise ConfigError(f"grid: values of {where}: {token!r} is not a number") from None


def _numbers(text: str, where: str) -> list[Any]:
    return [_parse_num(t, where) for t in re.split(r"[,;\s]+", text.strip()) if t]


def _ratio(value: Mapping[str, Any], parts: tuple[str, ...]) -> str:
    return ":".join(_num(value[p]) for p in parts)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# -- grid -> widgets -------------------------------------------------------------------------------------
def widget_values(vary: Mapping[str, list[Any]], base_chunker: str) -> dict[str, Any]:
    """The widget values that show ``vary`` (every control of the form: blank when not varied; values a
    control cannot show exactly go to the field's JSON box)."""
    dims = {d.field: d for d in dimensions()}
    out: dict[str, Any] = {ORDER: list(vary), CHUNK_MODE: EVERY}
    for d in dims.values():
        out[vary_key(d.field)] = [] if d.control in ("choices", "switch") else ""
        out[json_key(d.field)] = ""
    # the chunker first: whose settings the chunk control shows depends on it
    if "chunker" in vary:
        out.update(
            _show(dims["chunker"], vary["chunker"], None)
            or {json_key("chunker"): json.dumps(vary["chunker"])}
        )
    chunker = form_chunker(out, base_chunker)
    for o in chunker_options(chunker or base_chunker):
        out[chunk_key(o.name)] = [] if o.kind == "bool" else ""
    for field, values in vary.items():
        if field == "chunker":
            continue
        d = dims.get(field)
        shown = _show(d, values, chunker) if d is not None else None
        out.update(shown if shown is not None else {json_key(field): json.dumps(values)})
    return out


def _show(d: Dimension, values: list[Any], chunker: str | None) -> dict[str, Any] | None:
    """The control's widget values for ``values``, or None when it cannot show them exactly."""
    if d.control in ("choices", "switch"):
        ok = all(v in d.choices and type(v) is type(d.choices[0]) for v in values)
        return {vary_key(d.field): list(values)} if ok and len(set(values)) == len(values) else None
    if d.control == "numbers":
        ok = all(_is_number(v) or (v is None and FIELDS[d.field].kind == "int?") for v in values)
        return {vary_key(d.field): ", ".join(map(_num, values))} if ok else None
    if d.control == "weights":
        parts = OWNERS[d.field].parts
        ok = all(
            isinstance(v, dict) and set(v) == set(parts) and all(map(_is_number, v.values())) for v in values
        )
        return {vary_key(d.field): ", ".join(_ratio(v, parts) for v in values)} if ok else None
    return _show_chunks(values, chunker)


def _show_chunks(values: list[Any], chunker: str | None) -> dict[str, Any] | None:
    """The chunk settings as one list per setting, combined every way or paired (None: neither)."""
    if chunker is None or not all(isinstance(v, dict) for v in values):
        return None
    options = {o.name: o for o in chunker_options(chunker)}
    keys = [n for n in options if n in values[0]]
    if not keys or any(set(v) != set(keys) for v in values):
        return None
    for k in keys:
        want = (lambda x: isinstance(x, bool)) if options[k].kind == "bool" else _is_number
        if not all(want(v[k]) for v in values):
            return None
    lists = {k: [v[k] for v in values] for k in keys}
    mode = PAIRED
    unique = {k: list({json.dumps(x): x for x in lists[k]}.values()) for k in keys}
    if _canon(_combine(unique, EVERY)) == _canon(values):
        lists, mode = unique, EVERY
    if any(options[k].kind == "bool" and len(set(lists[k])) != len(lists[k]) for k in keys):
        return None  # a switch list cannot repeat a value
    out: dict[str, Any] = {CHUNK_MODE: mode}
    for k in keys:
        out[chunk_key(k)] = list(lists[k]) if options[k].kind == "bool" else ", ".join(map(_num, lists[k]))
    return out


def _canon(values: Any) -> str:
    return json.dumps(values, sort_keys=True)


def _combine(lists: Mapping[str, list[Any]], mode: str) -> list[dict[str, Any]]:
    keys = list(lists)
    if mode == EVERY:
        return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists.values())]
    sizes = {len(v) for v in lists.values()}
    if len(sizes) > 1:
        said = " and ".join(f"{len(v)} {k}" for k, v in lists.items())
        raise ConfigError(f"grid: paired chunk settings need as many values of each ({said})")
    return [dict(zip(keys, combo, strict=True)) for combo in zip(*lists.values(), strict=True)]


# -- widgets -> grid -------------------------------------------------------------------------------------
def vary_from(values: Mapping[str, Any], base_chunker: str) -> dict[str, list[Any]]:
    """The grid's ``vary`` from the widget values: the fields in the grid's order, then the rest in
    declaration order; a value that is not what its control takes is an error naming the field."""
    out: dict[str, list[Any]] = {}
    dims = dimensions()
    offered = {d.field for d in dims}
    for key, text in values.items():  # fields only a JSON grid varies
        if key.startswith("sweep_json_") and key[len("sweep_json_") :] not in offered and text:
            out[key[len("sweep_json_") :]] = _json_list(key[len("sweep_json_") :], text)
    for d in dims:
        text = values.get(json_key(d.field)) or ""
        if text.strip():
            out[d.field] = _json_list(d.field, text)
            continue
        got = _read(d, values, base_chunker)
        if got:
            out[d.field] = got
    order = [f for f in values.get(ORDER, []) if f in out]
    return {f: out[f] for f in [*order, *(f for f in out if f not in order)]}


def _json_list(field: str, text: str) -> list[Any]:
    try:
        got = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"grid: values of {field} as JSON: {e}") from None
    if not isinstance(got, list):
        raise ConfigError(f"grid: values of {field} as JSON must be a list, e.g. [1, 2]")
    return got


def _read(d: Dimension, values: Mapping[str, Any], base_chunker: str) -> list[Any]:
    raw = values.get(vary_key(d.field))
    if d.control in ("choices", "switch"):
        return list(raw or [])
    if d.control == "numbers":
        got = _numbers(raw or "", d.field)
        o = FIELDS[d.field]
        for v in got:
            o.check("grid", v)  # the declared kind and range, named; the value is kept as typed
        return got
    if d.control == "weights":
        parts = OWNERS[d.field].parts
        out = []
        for token in re.split(r"[,;\s]+", (raw or "").strip()):
            if not token:
                continue
            nums = [_parse_num(x, d.field) for x in token.split(":")]
            if len(nums) != len(parts) or any(n is None or n < 0 for n in nums):
                raise ConfigError(
                    f"grid: hybrid weights {token!r}: a ratio {' : '.join(parts)} of numbers ≥ 0, e.g. 2:1"
                )
            out.append(dict(zip(parts, nums, strict=True)))
        return out
    chunker = form_chunker(values, base_chunker)
    if chunker is None:
        return []
    lists: dict[str, list[Any]] = {}
    for o in chunker_options(chunker):
        raw = values.get(chunk_key(o.name))
        got = list(raw or []) if o.kind == "bool" else _numbers(raw or "", f"chunk {o.name}")
        for v in got:
            o.check(f"chunker {chunker}", v)
        if got:
            lists[o.name] = got
    return _combine(lists, values.get(CHUNK_MODE) or EVERY) if lists else []
