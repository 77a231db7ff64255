"""Evaluation: dataset loaders, retrieval metrics, and the harnesses behind ``ragkit eval``."""
