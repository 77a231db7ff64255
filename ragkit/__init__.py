"""ragkit: a research workbench for retrieval-augmented generation.

Importing ``ragkit`` is cheap: torch, FAISS, PyMuPDF and the LLM SDKs load only when first used.
"""

__version__ = "0.1.0"

from ragkit.core.errors import (
    ConfigError,
    DocumentError,
    IndexStoreError,
    ModelMismatchError,
    ModelNotAvailableError,
    RagkitError,
)
from ragkit.core.types import Chunk, Document, Page

__all__ = [
    "Chunk",
    "ConfigError",
    "Document",
    "DocumentError",
    "IndexStoreError",
    "ModelMismatchError",
    "ModelNotAvailableError",
    "Page",
    "RagkitError",
    "__version__",
]
