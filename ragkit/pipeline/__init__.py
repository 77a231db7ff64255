"""From a question to a verified answer: the config, presets, prompts, optional stages, confidence and
calibration, citations, and the RAG pipeline itself."""
