"""A scripted question writer for the loopback LLM servers: it reads a question-generation prompt (its type
and passages) and replies as a model would, good or faulty as the test asks (by a marker word in the
passage)."""

from __future__ import annotations

import json
import re
from typing import Any

#: documents with one marker word each; every paragraph is one passage
DOCS = {
    "typewriter.txt": (
        "Typewriter history. The first commercially successful typewriter was patented by Christopher "
        "Latham Sholes in 1868. Sholes sold the patent to Remington, which began manufacturing the machine "
        "in 1873. The QWERTY layout was designed to keep the type bars from jamming when typists worked "
        "quickly.\n\n"
        "Typewriter patents. Christopher Latham Sholes held the first patent for a typewriter that sold "
        "well; he filed it together with Carlos Glidden and Samuel Soule. Later models added a shift key "
        "so "
        "that one type bar could print both capital and small letters."
    ),
    "telescope.txt": (
        "Orion telescope. The Orion telescope saw first light on 3 March 2024 at the desert observatory. "
        "Its mirror measures 6.5 metres across and is made of segmented beryllium. Astronomers chose the "
        "desert site because the air there is dry and steady, which sharpens the images."
    ),
    "glacier.txt": (
        "Glacier valleys. Glaciers carve U-shaped valleys over thousands of years as moving ice grinds "
        "the bedrock. The Aletsch Glacier in Switzerland is the largest in the Alps, at about 23 kilometres "
        "long. Meltwater from glaciers feeds rivers that supply drinking water to millions of people."
    ),
    "coffee.txt": (
        "Coffee roasting. Coffee beans turn brown during roasting because sugars and amino acids react in "
        "the Maillard reaction. A light roast keeps more of the bean's acidity, while a dark roast tastes "
        "bitter. Roasters listen for the first crack, which happens near 196 degrees Celsius."
    ),
    "bees.txt": (
        "Honey bees. Honey bees communicate the direction of flowers with a waggle dance performed inside "
        "the hive. The angle of the dance relative to vertical matches the angle between the food and the "
        "sun. A colony can hold about 60,000 workers in summer, but only one laying queen."
    ),
}

GOOD = {
    "Typewriter history": (
        "Who held the patent on the first typewriter that sold well?",
        "Christopher Latham Sholes",
        "The first commercially successful typewriter was patented by Christopher Latham Sholes in 1868.",
    ),
    "Typewriter patents": (
        "Who held the patent on the first typewriter that sold well?",
        "Christopher Latham Sholes",
        "Christopher Latham Sholes held the first patent for a typewriter that sold well; he filed it "
        "together with Carlos Glidden and Samuel Soule.",
    ),
    "Orion telescope": (
        "When did the Orion telescope observe for the first time?",
        "3 March 2024",
        "The Orion telescope saw first light on 3 March 2024 at the desert observatory.",
    ),
    "Glacier valleys": (
        "How long is the biggest glacier of the Alps?",
        "about 23 kilometres",
        "The Aletsch Glacier in Switzerland is the largest in the Alps, at about 23 kilometres long.",
    ),
    "Coffee roasting": (
        "At what temperature do roasters hear the first crack of coffee beans?",
        "196 degrees Celsius",
        "Roasters listen for the first crack, which happens near 196 degrees Celsius.",
    ),
    "Honey bees": (
        "How many workers live in a honey bee colony in summer?",
        "about 60,000",
        "A colony can hold about 60,000 workers in summer, but only one laying queen.",
    ),
}
WHY = {
    "Orion telescope": (
        "Why was the Orion telescope built in the desert?",
        "The dry, steady air sharpens images.",
        "Astronomers chose the desert site because the air there is dry and steady, which sharpens "
        "the images.",
    ),
}

#: faulty replies by marker, for the critique and the strict parser
FAULTY = {
    "Orion telescope": "standalone",
    "Glacier valleys": "copies",
    "Coffee roasting": "unsupported",
    "Honey bees": "not json",
}


def _passages(prompt: str) -> list[str]:
    return re.findall(r"Passage(?: \d)? \([^)]*\):\n(.*?)\n\n(?=Passage 2|Reply)", prompt, re.S)


def _marker(passage: str) -> str:
    return passage.split(".")[0].strip()


def _generic(passage: str) -> tuple[str, str, str]:
    """A question about any passage: its first sentence of running text is the evidence."""
    for sentence in re.split(r"(?<=[.!?])\s+", passage):
        words = re.findall(r"[A-Za-z]{5,}", sentence)
        if len(sentence.split()) >= 8 and len(words) >= 3 and not re.search(r"[|#*_\[\]]", sentence):
            return (
                f"What is stated about {words[0]} and {words[-1]}?",
                " ".join(sentence.split()[-4:]),
                sentence,
            )
    return "What is this about?", "nothing", "no sentence here"


def reply_for(prompt: str, faulty: bool = False) -> str:
    """The reply a model would give to one of ragkit's question prompts (any other prompt, e.g. a
    grounded answer, gets a plain cited sentence)."""
    if "state the answer to the question" in prompt:
        return absence_reply(prompt)
    passages = _passages(prompt)
    if not passages:
        return "The documents say so [1]."
    marker = _marker(passages[0])
    if "BOTH passages" in prompt:
        a, b = ([*re.split(r"(?<=\.) ", p), p][1] for p in passages)
        return json.dumps(
            {
                "question": f"How do the {marker.lower()} and the {_marker(passages[1]).lower()} differ?",
                "answer": "They describe different things.",
                "evidence_1": a,
                "evidence_2": b,
            }
        )
    if "does NOT answer" in prompt:
        if faulty and marker == "Typewriter patents":  # answered by the other typewriter passage
            return json.dumps({"question": "In which year was the first successful typewriter patented?"})
        return json.dumps({"question": f"What did the {marker.lower()} cost to build in 1850?"})
    fault = FAULTY.get(marker) if faulty else None
    if fault == "not json":
        return "Sure! Here is a question about honey bees: how do they dance?"
    table = WHY if "why- or how-" in prompt and marker in WHY else GOOD
    question, answer, evidence = table[marker] if marker in table else _generic(passages[0])
    if fault == "standalone":
        question = "According to the passage, when did the telescope observe for the first time?"
    elif fault == "copies":
        question = (
            "Is the Aletsch Glacier in Switzerland the largest in the Alps, at about 23 kilometres long?"
        )
    elif fault == "unsupported":
        answer = "It happens at 250 degrees Fahrenheit, as Lavoisier showed"
    return "```json\n" + json.dumps({"question": question, "answer": answer, "evidence": evidence}) + "\n```"


def responder(faulty: bool = False):
    """A ``FakeGroq``/``FakeOllama`` responder (reads the request body's last message)."""

    def respond(body: dict[str, Any]) -> str:
        return reply_for(body["messages"][-1]["content"], faulty)

    return respond


def absence_reply(prompt: str) -> str:
    """The check of an unanswerable question: a passage answers it when one of its sentences holds
    every number and every word of five letters or more of the question but "which" (a transparent
    rule, not a model; the writer's made-up detail, a cost in 1850, is in no document)."""
    question = re.search(r"Question: (.*?)\n\nPassage \[1\]", prompt, re.S).group(1)  # may span lines
    if "cost to build in 1850" in question:  # the writer's made-up detail: in no document, whatever else
        return json.dumps({"answered": False, "evidence": ""})  # the question's words match
    words = {w.lower() for w in re.findall(r"[A-Za-z]{5,}|\d+", question)} - {"which"}
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", prompt.split("Passage [1]", 1)[-1]):
        have = {w.lower() for w in re.findall(r"[A-Za-z]{5,}|\d+", sentence)}
        if words and words <= have and "Reply with" not in sentence:
            return json.dumps({"answered": True, "evidence": sentence.strip()})
    return json.dumps({"answered": False, "evidence": ""})
