"""Embeddings and their cache, where vectors live (local FAISS files, embedded Qdrant, a Qdrant server), the
index store on disk, batch ingestion and collections."""
