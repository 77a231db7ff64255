"""Evaluate: run 1-5 configs over a labelled question set, with CIs, significance and calibration; sweep
a grid of set-ups; generate questions from the documents; label evidence passages; saved runs. Layout
only: each tab is drawn by ui/, the work is in ragkit.evaluation."""

import streamlit as st

from ui import widgets
from ui.evaluate.generate import generate_tab
from ui.evaluate.label import label_tab
from ui.evaluate.run import run_tab
from ui.evaluate.saved import saved_tab
from ui.evaluate.sweep import sweep_tab

st.title("Evaluate")
st.caption(
    "Run 2–5 configurations over the same labelled questions. Every difference comes with a paired "
    "bootstrap 95 % CI and a paired test; runs are saved with config hashes, dataset hash and model ids."
)
collection = widgets.active_collection()
run, sweep, generate, label, saved = st.tabs(["Run", "Sweep", "Generate", "Label", "Saved runs"])
with run:
    run_tab(collection)
with sweep:
    sweep_tab(collection)
with generate:
    generate_tab(collection)
with label:
    label_tab(collection)
with saved:
    saved_tab(collection)
