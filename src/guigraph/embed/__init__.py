"""Text encoders: turn screen descriptions and task instructions into unit vectors.

``TextEncoder`` is the interface; ``HashingEncoder`` is the offline default (no weights, no
fitting); ``SentenceTransformerEncoder`` loads a local sentence-transformers model such as
BAAI/bge-m3. ``encoder_from_spec`` turns the string saved in a knowledge base back into one.
"""

from __future__ import annotations

from guigraph.embed.base import TextEncoder, encoder_from_spec

__all__ = ["TextEncoder", "encoder_from_spec"]
