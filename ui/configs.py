"""Configs as files: the shipped presets, configs saved by name, JSON export and import, and every config
the Evaluate page can run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.index.collections import default_root
from ragkit.pipeline.config import PipelineConfig
from ui import state


def configs_dir() -> Path:
    return default_root() / ".configs"


def saved_config_names() -> list[str]:
    d = configs_dir()
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


SHIPPED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def config_choices() -> dict[str, PipelineConfig]:
    """Every config the Evaluate page can run, by label: sidebar A and B, saved ones, shipped examples.
    Each is renamed to its label, so results and comparisons name them the way the user chose them."""
    out = {"A": state.config("A"), "B": state.config("B")}
    for name in saved_config_names():
        try:
            out.setdefault(name, PipelineConfig.load(configs_dir() / f"{name}.json"))
        except RagkitError:
            continue  # an unreadable saved file is reported where configs are loaded, not here
    for p in sorted(SHIPPED_CONFIGS.glob("*.json")) + sorted(SHIPPED_CONFIGS.glob("presets/*.json")):
        try:
            out.setdefault(p.stem, PipelineConfig.load(p))
        except RagkitError:
            continue
    return {k: replace(state.reachable(v), name=k) for k, v in out.items()}  # a saved file's URLs too


def preset_picker() -> None:
    """Load a shipped preset into A or B; what cannot run here is swapped (and said)."""
    from ragkit.pipeline.presets import load_preset, preset_names, runnable_here

    sb = st.sidebar
    names = preset_names()
    c1, c2, c3 = sb.columns([3, 1, 1], vertical_alignment="bottom")
    pick = c1.selectbox("Preset", ["(choose)", *names], key="preset_pick")
    for col, which in ((c2, "A"), (c3, "B")):
        if col.button(
            which, key=f"preset_to_{which}", disabled=pick == "(choose)", help=f"Load into {which}"
        ):
            try:
                preset = load_preset(pick)
                cfg, notes = runnable_here(preset, state.api_key(preset))
                state.set_config(which, replace(cfg, name=which))
                st.session_state[state.PRESET_NOTES] = [f"Loaded preset {pick} into {which}.", *notes]
                st.rerun()
            except RagkitError as e:
                sb.error(str(e))
    for note in st.session_state.get(state.PRESET_NOTES, []):
        sb.caption(note)


def config_files(which: str) -> None:
    sb = st.sidebar
    cfg = state.config(which)
    with sb.expander("Save / load / export"):
        name = st.text_input("Save as", key="save_name")
        if st.button("Save config", disabled=not name.strip()):
            configs_dir().mkdir(parents=True, exist_ok=True)
            from ragkit.core.files import atomic_write

            atomic_write(
                configs_dir() / f"{Path(name.strip()).name}.json",
                lambda f: f.write(replace(cfg, name=name.strip()).to_json()),
            )
            st.success(f"saved {name.strip()!r}")
        saved = saved_config_names()
        if saved:
            pick = st.selectbox("Saved configs", saved, key="load_pick")
            if st.button(f"Load into {which}"):
                try:
                    load_into(which, PipelineConfig.load(configs_dir() / f"{pick}.json"))
                except RagkitError as e:
                    st.error(str(e))
        st.download_button(
            "Export JSON", cfg.to_json(), file_name=f"ragkit-config-{cfg.name}.json", mime="application/json"
        )
        up = st.file_uploader("Import JSON", type=["json"], key="import_cfg")
        if up is not None and st.button(f"Import into {which}"):
            try:
                load_into(which, PipelineConfig.from_json(up.getvalue().decode("utf-8", "replace")))
            except RagkitError as e:
                st.error(f"{up.name}: {e}")


def load_into(which: str, cfg: PipelineConfig) -> None:
    """Replace config ``which``; the widgets show it on the rerun (they always show the config)."""
    state.set_config(which, replace(cfg, name=which))
    st.rerun()
