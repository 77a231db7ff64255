"""Streamlit-free view models the pages render: presentation of hits and answers, charts, comparisons, and
the saved workspace."""
