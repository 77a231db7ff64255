"""Question sets generated from a collection's own documents: passages sampled to cover every document,
questions written offline or by an LLM, critiqued, reviewed, and saved as a question file."""

from ragkit.evaluation.questiongen.critique import REASONS, critique
from ragkit.evaluation.questiongen.generator import (
    DEFAULT_MIX,
    METHODS,
    QuestionGenerator,
    estimate,
    plan_types,
)
from ragkit.evaluation.questiongen.records import (
    NO_ANSWER,
    TYPES,
    GeneratedQuestion,
    GenerationReport,
    question_file,
)
from ragkit.evaluation.questiongen.store import (
    cache_path,
    load_report,
    save_question_set,
    saved_question_sets,
)

__all__ = [
    "DEFAULT_MIX",
    "METHODS",
    "NO_ANSWER",
    "REASONS",
    "TYPES",
    "GeneratedQuestion",
    "GenerationReport",
    "QuestionGenerator",
    "cache_path",
    "critique",
    "estimate",
    "load_report",
    "plan_types",
    "question_file",
    "save_question_set",
    "saved_question_sets",
]
