"""Metrics: retrieval, answers, citations, the LLM judge, calibration, statistics and the Pareto front."""
