"""Unit tests of :mod:`ragkit.pipeline.presets`."""

from __future__ import annotations

from ragkit.pipeline.presets import load_preset, preset_names, runnable_here


def test_every_preset_loads_and_what_cannot_run_here_is_swapped_and_said(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert preset_names() == [
        "code-qa",
        "groq-chatbot",
        "hybrid-intent-ollama",
        "sentence-window-local",
        "web-rerank",
    ]
    for name in preset_names():
        cfg = load_preset(name)
        assert cfg.name == name and cfg.description and cfg.reference
        here, notes = runnable_here(cfg)
        assert here.llm == "extractive" and notes  # no service reachable from this test
        assert all(name in n for n in notes)
    web, notes = runnable_here(load_preset("web-rerank"))
    assert not web.rerank and any("cross-encoder" in n for n in notes)
    assert (web.prompt_style, web.context_tokens, web.top_k) == ("xml", 4096, 10)
    kept, _ = runnable_here(load_preset("groq-chatbot"), api_key="gsk_session_key_123")
    assert kept.llm == "groq"  # with a key the preset runs as published
