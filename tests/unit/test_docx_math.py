"""Word equations (OMML) read as the text a reader sees (docling's ``equations.docx`` read "this is an
inline equation: ." before: an equation's runs are ``m:t``, not ``w:t``)."""

from __future__ import annotations

from ragkit.ingestion.parse import parse_bytes
from tests.fidelity_docs import docx_of

_NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"'
)


def _r(text: str) -> str:
    return f"<m:r><m:t>{text}</m:t></m:r>"


def _sup(base: str, sup: str) -> str:
    return f"<m:sSup><m:e>{base}</m:e><m:sup>{sup}</m:sup></m:sSup>"


AREA = f"<m:oMath>{_r('A=π')}{_sup(_r('r'), _r('2'))}</m:oMath>"
QUADRATIC = (
    f"<m:oMathPara><m:oMath>{_r('x=')}<m:f><m:num>{_r('−b±')}<m:rad><m:radPr><m:degHide m:val='1'/>"
    f"</m:radPr><m:deg/><m:e>{_sup(_r('b'), _r('2'))}{_r('−4ac')}</m:e></m:rad></m:num><m:den>{_r('2a')}"
    "</m:den></m:f></m:oMath></m:oMathPara>"
)
SERIES = (
    f"<m:oMath><m:nary><m:naryPr><m:chr m:val='∑'/></m:naryPr><m:sub>{_r('n=1')}</m:sub><m:sup>{_r('∞')}"
    f"</m:sup><m:e><m:sSub><m:e>{_r('a')}</m:e><m:sub>{_r('n')}</m:sub></m:sSub></m:e></m:nary>"
    f"{_r('=')}<m:func><m:fName>{_r('log')}</m:fName><m:e><m:d><m:e>{_r('x')}</m:e></m:d></m:e></m:func>"
    f"</m:oMath><m:oMath>{_r('c=d')}</m:oMath>"
)


def test_equations_in_a_word_file_read_as_shown():
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?><w:document {_NS}><w:body>'
        f"<w:p><w:r><w:t xml:space='preserve'>The area is </w:t></w:r>{AREA}<w:r><w:t>, as usual.</w:t></w:r>"
        f"</w:p><w:p>{QUADRATIC}</w:p><w:p>{SERIES}</w:p>"
        f"<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Area</w:t></w:r></w:p></w:tc><w:tc><w:p>{AREA}</w:p></w:tc></w:tr>"
        f"<w:tr><w:tc><w:p><w:r><w:t>Roots</w:t></w:r></w:p></w:tc><w:tc><w:p>{QUADRATIC}</w:p>"
        "</w:tc></w:tr></w:tbl></w:body></w:document>"
    )
    text = parse_bytes("maths.docx", docx_of(body)).text
    assert "The area is A=πr² , as usual." in text
    assert "x=(−b±√(b²−4ac))/(2a)" in text
    assert "∑_(n=1)^∞ a_n=log(x) c=d" in text  # two equations of one paragraph stay apart
    assert "| Area | A=πr² |" in text and "| Roots | x=(−b±√(b²−4ac))/(2a) |" in text
