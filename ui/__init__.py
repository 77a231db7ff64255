"""Streamlit glue: cached resources, session state, widgets. Pages import this and ragkit only. Run only
by the app, so with ``pip install 'ragkit[app]'``: it imports that extra's packages directly."""
