"""Irregular verb forms, read as their base form when the reader matches a question's words with a
sentence's: "Why was the queue rewritten?" is answered by "We rewrote the queue …", which a stemmer
cannot see ("rewritten" and "rewrote" share no stem). Only the reader's matching uses this; the BM25
index keeps its own analysis. Forms that are also other words ("found", "left", "saw", "lay", "lead")
are left out."""

from __future__ import annotations

import re

_FORMS = {
    "write": "wrote written", "rewrite": "rewrote rewritten", "build": "built", "rebuild": "rebuilt",
    "run": "ran", "begin": "began begun", "make": "made", "take": "took taken", "give": "gave given",
    "choose": "chose chosen", "drive": "drove driven", "grow": "grew grown", "know": "knew known",
    "show": "shown", "bring": "brought", "buy": "bought", "think": "thought", "teach": "taught",
    "lose": "lost", "pay": "paid", "say": "said", "sell": "sold", "send": "sent", "spend": "spent",
    "win": "won", "hold": "held", "keep": "kept", "meet": "met", "feel": "felt", "fall": "fell fallen",
    "break": "broke broken", "speak": "spoke spoken", "rise": "risen", "freeze": "froze frozen",
    "steal": "stole stolen", "eat": "ate eaten", "drink": "drank drunk", "fly": "flew flown",
    "forget": "forgot forgotten", "get": "got gotten", "go": "went gone", "hide": "hid hidden",
    "ride": "rode ridden", "sing": "sang sung", "sink": "sank sunk", "swim": "swam swum",
    "throw": "threw thrown", "wear": "wore worn", "bear": "bore borne", "beat": "beaten",
    "bite": "bitten", "blow": "blew blown", "draw": "drawn", "forbid": "forbade forbidden",
    "shake": "shook shaken", "strike": "struck", "seek": "sought", "fight": "fought", "catch": "caught",
    "sleep": "slept", "sweep": "swept", "weep": "wept", "deal": "dealt", "mean": "meant",
    "undertake": "undertook undertaken", "withdraw": "withdrew withdrawn", "arise": "arose arisen",
    "overcome": "overcame", "understand": "understood", "stand": "stood", "tell": "told",
}  # fmt: skip
BASE = {form: base for base, forms in _FORMS.items() for form in forms.split()}
_WORD = re.compile(r"\b(" + "|".join(sorted(BASE, key=len, reverse=True)) + r")\b", re.I)


def base_forms(text: str) -> str:
    """``text`` with every irregular past form replaced by its base form ("rewrote" -> "rewrite")."""
    return _WORD.sub(lambda m: BASE[m.group(0).lower()], text)
