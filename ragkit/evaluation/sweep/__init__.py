"""Sweeps: a grid of set-ups raced over one question set, and the result."""
