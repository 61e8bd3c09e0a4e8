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


#: Rows remembered per encoder (2 KB each at 512 dimensions).
ROW_CACHE_SIZE = 2048


class HashingEncoder:
    """Char (3-5, within word boundaries) + word (1-2) n-gram hashing, L2-normalised."""

    def __init__(self, dim: int = 512, word_weight: float = 0.5):
        if dim < 16:
            raise ValueError(f"hashing dimension must be >= 16, got {dim}")
        self._dim = dim
        self._word_weight = word_weight
        self._vectorizers: tuple[Any, Any] | None = None
        self._rows: dict[str, np.ndarray] = {}  # text -> its row, the newest last

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
        """One unit row per text. Each row depends on its text alone, so rows are remembered
        per text: an agent encodes its instruction and the screens it sees again and again,
        and scikit-learn's per-call checks cost about a millisecond."""
        import numpy as np

        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        if len(texts) > ROW_CACHE_SIZE // 4:  # a bulk encode (a build, a load): nothing to reuse
            return self._encode(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self._rows]
        found = dict(zip(missing, self._encode(missing), strict=True)) if missing else {}
        rows = np.stack([found[t] if t in found else self._rows[t] for t in texts])
        for text, row in found.items():
            if len(self._rows) >= ROW_CACHE_SIZE:
                self._rows.pop(next(iter(self._rows)))
            self._rows[text] = row
        return rows

    def _encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np
        from sklearn import config_context

        chars, words = self._get_vectorizers()
        # The texts are this class's own list of strings: scikit-learn's checks of the
        # parameters and of finite values found nothing to refuse and cost a third of a call.
        with config_context(skip_parameter_validation=True, assume_finite=True):
            combined = chars.transform(texts) + words.transform(texts) * self._word_weight
        dense = np.asarray(combined.toarray(), dtype=np.float32)
        norms = np.linalg.norm(dense, axis=1, keepdims=True)
        # An empty text stays a zero row: it is similar to nothing, which is the honest answer.
        np.divide(dense, norms, out=dense, where=norms > 0)
        return dense
