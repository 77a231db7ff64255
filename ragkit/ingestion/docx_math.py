"""Word's equations (Office Math, OMML) as the linear text a reader sees: "A=πr²", "(−b±√(b²−4ac))/(2a)",
"∑_(n=1)^∞ aₙ". Without this, an equation's runs (``m:t``, not ``w:t``) were read as nothing and a
sentence read "this is an inline equation: ." Fractions, scripts, radicals, n-ary operators,
delimiters and function names are written out; any other structure reads as its text in order."""

from __future__ import annotations

from typing import Any

M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
_RAISED = str.maketrans("0123456789+-−=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ")
_LOWERED = str.maketrans("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎")


def _val(el: Any, path: str, default: str) -> str:
    """The ``m:val`` of the property at ``path`` under ``el`` (``default`` when absent)."""
    found = el.find(path)
    if found is None:
        return default
    return found.get(f"{M}val", default)


def _part(el: Any, name: str) -> str:
    found = el.find(f"{M}{name}")
    return math_text(found) if found is not None else ""


def _group(text: str) -> str:
    """``text`` bracketed when it is more than one symbol (a fraction's "b²−4ac" → "(b²−4ac)")."""
    return text if len(text) <= 1 or (text.startswith("(") and text.endswith(")")) else f"({text})"


def _script(base: str, text: str, raised: bool, whole: bool = True) -> str:
    """A super- or subscript as the raised/lowered characters when every one has a form, else ^(…)/_(…);
    a ``whole`` base of several terms bracketed."""
    table = _RAISED if raised else _LOWERED
    if whole and any(op in base for op in "/+-−=±× "):
        base = _group(base)  # a fraction raised to a power: "((x−c)/v)²", not "(x−c)/v²"
    moved = text.translate(table)
    if text and all(a != b or a.isspace() for a, b in zip(text, moved, strict=True)):
        return base + moved
    return base + ("^" if raised else "_") + _group(text) if text else base


def math_text(el: Any) -> str:
    """One OMML element (``m:oMath``, ``m:oMathPara`` or any part of one) as linear text."""
    tag = el.tag
    if tag == f"{M}t":
        return el.text or ""
    if not isinstance(tag, str) or tag.endswith("Pr"):  # comments, and properties (m:fPr, m:rPr, …)
        return ""
    name = tag[len(M) :] if tag.startswith(M) else ""
    if name == "f":
        return f"{_group(_part(el, 'num'))}/{_group(_part(el, 'den'))}"
    if name == "sSup":
        return _script(_part(el, "e"), _part(el, "sup"), raised=True)
    if name == "sSub":
        return _script(_part(el, "e"), _part(el, "sub"), raised=False)
    if name == "sSubSup":
        return _script(_script(_part(el, "e"), _part(el, "sub"), False), _part(el, "sup"), True, whole=False)
    if name == "rad":
        degree = _part(el, "deg")
        return f"{degree}√{_group(_part(el, 'e'))}"
    if name == "nary":
        op = _val(el, f"{M}naryPr/{M}chr", "∫")
        limits = _script(_script(op, _part(el, "sub"), False), _part(el, "sup"), True, whole=False)
        return f"{limits} {_part(el, 'e')}"
    if name == "d":
        begin, end = _val(el, f"{M}dPr/{M}begChr", "("), _val(el, f"{M}dPr/{M}endChr", ")")
        sep = _val(el, f"{M}dPr/{M}sepChr", "|")
        return begin + sep.join(math_text(e) for e in el.findall(f"{M}e")) + end
    if name == "func":
        arg = _part(el, "e")
        return _part(el, "fName") + (arg if arg.startswith("(") else f" {arg}")
    if name == "eqArr":
        return "; ".join(math_text(e) for e in el.findall(f"{M}e"))
    if name == "mr":  # a matrix row
        return " ".join(math_text(e) for e in el.findall(f"{M}e"))
    if name == "m":
        return "[" + "; ".join(math_text(r) for r in el.findall(f"{M}mr")) + "]"
    return "".join(math_text(child) for child in el)


def is_math(el: Any) -> bool:
    """Whether ``el`` is an equation (inline ``m:oMath`` or a display ``m:oMathPara``)."""
    return el.tag in (f"{M}oMath", f"{M}oMathPara")
