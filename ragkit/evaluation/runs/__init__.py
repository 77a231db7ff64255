"""Runs: configs over a question set, their results, reports and saved runs."""
