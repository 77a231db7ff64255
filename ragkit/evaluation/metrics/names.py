"""The names of every per-question metric an evaluation reports, grouped by what they measure, and which are
lower-is-better."""

from __future__ import annotations

from ragkit.evaluation.metrics.judge import RAGAS_METRICS

BEIR_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")

RETRIEVAL_METRICS = ("ndcg@10", "recall@10", "mrr@10")

EVIDENCE_METRICS = ("evidence_precision",)

GOLD_METRICS = ("gold_ndcg@10", "gold_recall@10", "gold_mrr@10")

ANSWER_METRICS = ("contains_gold", "f1", "exact_match")

ABSTENTION_METRICS = ("false_abstention", "idk_when_absent")

CITATION_METRICS = ("citation_precision", "citation_recall")


#: RAGAS-style metrics and SimpleQA's per-question grade (1 = CORRECT), from an AnswerJudge
ANSWER_JUDGE_METRICS = (*RAGAS_METRICS, "simpleqa_correct")


#: every per-question metric, in table order
PER_QUESTION_METRICS = (
    BEIR_METRICS
    + EVIDENCE_METRICS
    + GOLD_METRICS
    + ANSWER_METRICS
    + ABSTENTION_METRICS
    + CITATION_METRICS
    + ANSWER_JUDGE_METRICS
)

LOWER_IS_BETTER = frozenset({"false_abstention"})  # abstaining when the evidence is there is a miss

CALIBRATION_MEANING = (
    "correct = the retrieved chunks hold the evidence (a labelled passage or a relevant file, else the "
    "gold answer text); questions whose evidence is absent count as incorrect"
)
