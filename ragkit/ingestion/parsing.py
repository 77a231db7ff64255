"""How a document becomes text, as config fields: the PDF parser and OCR, and the web content filter.
They decide the index (a collection keeps each PDF's bytes and parses it once per setting, see
:mod:`ragkit.index.collections`; the filter runs over its HTML documents' text), so two configs can read
the same documents differently and be compared like any other knob."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Option
from ragkit.ingestion import content_filter
from ragkit.ingestion.pdf import OCR_MODES, PDF_PARSERS


def _check_language(owner: str, value: Any) -> str:
    text = str(value).strip()
    if not text or not all(part.replace("_", "").isalnum() for part in text.split("+")):
        raise ConfigError(f"{owner}: ocr_language must be Tesseract language codes like 'eng' or 'eng+deu'")
    return text


#: the config fields that decide how a PDF becomes text
OPTIONS = (
    Option("pdf_parser", "choice", "layout", choices=PDF_PARSERS, field="pdf_parser", label="PDF parser",
           added_later=True,
           help="layout: PyMuPDF's layout engine (Markdown headings, lists, tables with or without ruling "
           "lines, reading order across columns, page headers and footers dropped); plain: text blocks in "
           "a column-aware order with pdfplumber's ruled tables (the reader before layout)"),
    Option("ocr", "choice", "auto", choices=OCR_MODES, field="ocr", label="OCR", added_later=True,
           advanced=True,
           help="auto: Tesseract reads pages whose text layer is missing or garbage; always: every page; "
           "never: the text layer only"),
    Option("ocr_language", "str", "eng", field="ocr_language", label="OCR language", added_later=True,
           advanced=True, validate=_check_language,
           help="Tesseract language codes, '+'-joined (eng, eng+deu); installed: tesseract --list-langs"),
    *content_filter.OPTIONS,
)  # fmt: skip


@dataclass(frozen=True)
class ParseSettings:
    """The parse-deciding fields of a config (the PDF parser and OCR, the web content filter)."""

    pdf_parser: str = "layout"
    ocr: str = "auto"
    ocr_language: str = "eng"
    content_filter: str = "off"
    content_filter_min_words: int = 12

    @classmethod
    def of(cls, config: Any) -> ParseSettings:
        """The settings a pipeline config names."""
        return cls(config.pdf_parser, config.ocr, config.ocr_language, config.content_filter,
                   config.content_filter_min_words)  # fmt: skip

    def key(self) -> str:
        """How PDFs are read, as a file-name-safe key: ``layout-auto-eng`` (the parse cache's folder)."""
        return f"{self.pdf_parser}-{self.ocr}-{self.ocr_language.replace('+', '_')}"

    def index_key(self) -> str:
        """Everything that changes the text indexed: :meth:`key`, and the content filter when it is on."""
        if self.content_filter == "off":
            return self.key()
        return f"{self.key()}-cf_{self.content_filter}{self.content_filter_min_words}"

    @property
    def is_default(self) -> bool:
        return self == ParseSettings()

    def scorer(self) -> Any:
        """The content filter's scorer (None: off)."""
        return content_filter.make_scorer(self.content_filter, self.content_filter_min_words)
