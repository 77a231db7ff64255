"""Streamlit glue: cached resources, session state, widgets. Pages import this and ragkit only."""
