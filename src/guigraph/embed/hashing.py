"""The offline default encoder: hashed word and character n-grams (scikit-learn).

Hashing needs no vocabulary and no fitting, so the vector of a text never depends on which
other texts were seen: an incremental build encodes exactly as a build from scratch would.
Character n-grams make "Search results for Paris" close to "Search results for Rome"; word
n-grams keep whole words such as screen titles weighty.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


class HashingEncoder:
    """Char (3-5, within word boundaries) + word (1-2) n-gram hashing, L2-normalised."""

    def __init__(self, dim: int = 512, word_weight: float = 0.5):
        if dim < 16:
            raise ValueError(f"hashing dimension must be >= 16, got {dim}")
        self._dim = dim
        self._word_weight = word_weight
        self._vectorizers: tuple[Any, Any] | None = None

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def spec(self) -> str:
        return f"hashing:{self._dim}"

    def _get_vectorizers(self) -> tuple[Any, Any]:
        if self._vectorizers is None:
            import numpy as np
            from sklearn.feature_extraction.text import HashingVectorizer

            common: dict[str, Any] = {
                "n_features": self._dim,
                "alternate_sign": False,
                "norm": "l2",
                "lowercase": True,
                "dtype": np.float32,
            }
            chars = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), **common)
            words = HashingVectorizer(analyzer="word", ngram_range=(1, 2), **common)
            self._vectorizers = (chars, words)
        return self._vectorizers

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        chars, words = self._get_vectorizers()
        combined = chars.transform(texts) + words.transform(texts) * self._word_weight
        dense = np.asarray(combined.toarray(), dtype=np.float32)
        norms = np.linalg.norm(dense, axis=1, keepdims=True)
        # An empty text stays a zero row: it is similar to nothing, which is the honest answer.
        np.divide(dense, norms, out=dense, where=norms > 0)
        return dense
