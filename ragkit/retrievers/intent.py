"""A transparent rule-based query intent classifier: FACT, CONCEPT or COMPARISON.

Used by the hybrid retriever's optional intent routing: factual look-ups lean on exact terms (BM25),
conceptual and comparative questions lean on meaning (dense).
"""

from __future__ import annotations

import re

FACT, CONCEPT, COMPARISON = "FACT", "CONCEPT", "COMPARISON"
INTENTS = (FACT, CONCEPT, COMPARISON)

#: (bm25 weight, dense weight) per intent.
INTENT_WEIGHTS: dict[str, tuple[float, float]] = {
    FACT: (0.8, 0.2),
    CONCEPT: (0.4, 0.6),
    COMPARISON: (0.3, 0.7),
}

_COMPARISON = re.compile(
    r"\b(compare[ds]?|comparison|comparing|versus|vs\.?|differen(ce|ces|t)\s+(between|from)|"
    r"differ(s)?\b|better|worse|more\s+\w+\s+than|less\s+\w+\s+than|\w+er\s+than|"
    r"advantages?\s+of\s+.+\s+over|pros\s+and\s+cons|similarit(y|ies)\s+between|trade-?offs?)",
    re.IGNORECASE,
)
_CONCEPT = re.compile(
    r"^\s*(why|how\s+(do|does|did|can|could|would|is|are|should)|explain|describe|what\s+(is|are)\s+"
    r"(the\s+)?(purpose|role|idea|concept|meaning|point|intuition|benefit|effect|impact)s?\b|"
    r"what\s+does\s+.+\s+mean|in\s+what\s+way)|\b(overview|intuition|rationale)\b",
    re.IGNORECASE,
)
_FACT = re.compile(
    r"^\s*(who|when|where|which|whom|whose|how\s+(many|much|long|old|far|often)|what\s+(year|date|time|"
    r"number|percentage|name))\b|\d",
    re.IGNORECASE,
)
_DEFINITION = re.compile(r"^\s*what\s+(is|are)\s+(an?\s+|the\s+)?[\w\- ]{1,40}\??\s*$", re.IGNORECASE)


def classify_intent(query: str) -> str:
    """FACT, CONCEPT or COMPARISON for ``query``; the rules are checked in that order of priority:
    comparison cues first, then fact cues (who/when/how many/numbers), then concept cues
    (why/how does/explain, short "what is X" definitions); anything else is FACT.
    """
    if _COMPARISON.search(query):
        return COMPARISON
    if _FACT.search(query):
        return FACT
    if _CONCEPT.search(query) or _DEFINITION.match(query):
        return CONCEPT
    return FACT
