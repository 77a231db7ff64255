"""Typed errors: every failure a user can meet is a ``RagkitError`` with a message fit to show them."""

from __future__ import annotations


class RagkitError(Exception):
    """Base of every error ragkit raises on purpose; ``str(err)`` is a message for the user."""


class ConfigError(RagkitError, ValueError):
    """A configuration value is invalid (unknown component name, negative size, ...)."""


class DocumentError(RagkitError):
    """A file could not be ingested; the message names the file and the cause."""

    def __init__(self, file: str, cause: str) -> None:
        self.file = file
        self.cause = cause
        super().__init__(f"{file}: {cause}")


class IndexStoreError(RagkitError):
    """An index directory is missing, damaged, locked or incompatible."""


class ModelMismatchError(IndexStoreError):
    """The index was built with a different embedding model (or dimension) than the one supplied."""


class ModelNotAvailableError(RagkitError):
    """A model could not be loaded (offline, bad path, not pulled)."""


class LLMError(RagkitError):
    """A language-model backend failed; the message says what to do about it (and never holds a key)."""


class LLMAuthError(LLMError):
    """The backend rejected (or never got) the credentials."""


class LLMRateLimitError(LLMError):
    """The backend kept answering 429 after the retries."""


class LLMConnectionError(LLMError):
    """The backend could not be reached, or timed out."""


class MissingDependencyError(ConfigError, ImportError):
    """An optional package a chosen backend or format needs is not installed; the message names the
    ``pip install`` that brings it (an ``ImportError`` too, so a fallback that catches that still works)."""

    def __init__(self, message: str, extra: str = "") -> None:
        super().__init__(message)
        self.extra = extra  # the ragkit extra that brings the package ("" when none does)
