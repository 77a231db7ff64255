"""Datasets: BEIR and SQuAD loaders, question sets, labels, evidence passages and their re-mapping."""
