"""Bytes -> ``Document`` -> chunks: safe reading, one module per format (PDF, text, HTML, DOCX, Q&A),
fetching web pages, and the chunkers."""
