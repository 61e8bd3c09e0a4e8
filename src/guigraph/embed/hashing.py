"""The offline default encoder: hashed word and character n-grams.

Hashing needs no vocabulary and no fitting, so the vector of a text never depends on which
other texts were seen: an incremental build encodes exactly as a build from scratch would.
Character n-grams make "Search results for Paris" close to "Search results for Rome"; word
n-grams keep whole words such as screen titles weighty.

The vectors are scikit-learn's ``HashingVectorizer`` (char_wb 3-5 and word 1-2 n-grams, no
alternate sign, l2 norm), bit for bit, and the tests hold them to it; the n-grams are hashed
here with ``mmh3`` (the same MurmurHash3) because importing scikit-learn costs about a second,
which every process that plans would pay before its first task.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import TYPE_CHECKING

import mmh3

if TYPE_CHECKING:
    import numpy as np


#: Rows remembered per encoder (2 KB each at 512 dimensions).
ROW_CACHE_SIZE = 2048
#: scikit-learn's analyzers: runs of white space, and its default token pattern.
_WHITE_SPACES = re.compile(r"\s\s+")
_WORD = re.compile(r"(?u)\b\w\w+\b")
_INT32_MIN = -(2**31)


class HashingEncoder:
    """Char (3-5, within word boundaries) + word (1-2) n-gram hashing, L2-normalised."""

    def __init__(self, dim: int = 512, word_weight: float = 0.5):
        if dim < 16:
            raise ValueError(f"hashing dimension must be >= 16, got {dim}")
        self._dim = dim
        self._word_weight = word_weight
        self._rows: dict[str, np.ndarray] = {}  # text -> its row, the newest last

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def spec(self) -> str:
        return f"hashing:{self._dim}"

    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit row per text. Each row depends on its text alone, so rows are remembered
        per text: an agent encodes its instruction and the screens it sees again and again."""
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

        weight = np.float32(self._word_weight)
        dense = np.stack([
            unit_counts(char_wb_ngrams(t), self._dim)
            + unit_counts(word_ngrams(t), self._dim) * weight
            for t in texts
        ])  # fmt: skip
        norms = np.linalg.norm(dense, axis=1, keepdims=True)
        # An empty text stays a zero row: it is similar to nothing, which is the honest answer.
        np.divide(dense, norms, out=dense, where=norms > 0)
        return dense


def char_wb_ngrams(text: str, shortest: int = 3, longest: int = 5) -> list[str]:
    """The character n-grams of each lower-cased word, padded with a space at each edge
    (scikit-learn's ``char_wb`` analyzer): a word shorter than an n-gram counts once."""
    grams: list[str] = []
    for word in _WHITE_SPACES.sub(" ", text.lower()).split():
        padded = f" {word} "
        for n in range(shortest, longest + 1):
            grams.extend(padded[start : start + n] for start in range(max(len(padded) - n, 0) + 1))
            if len(padded) <= n:
                break
    return grams


def word_ngrams(text: str) -> list[str]:
    """The lower-cased words of two or more word characters, then each pair in a row
    (scikit-learn's ``word`` analyzer, n-grams 1-2)."""
    words = _WORD.findall(text.lower())
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


def hashed_column(feature: str, dim: int) -> int:
    """scikit-learn's hashing column of ``feature``: its signed 32-bit MurmurHash3 (seed 0)
    without the sign, modulo ``dim``."""
    h = mmh3.hash(feature, 0)
    return (2**31 - 1 - (dim - 1)) % dim if h == _INT32_MIN else abs(h) % dim


def unit_counts(features: list[str], dim: int) -> np.ndarray:
    """How often each column is hashed to, l2-normalised as scikit-learn's ``normalize`` does
    a float32 row: the float32 squares summed into a double in column order, then each count
    divided in double precision."""
    import numpy as np

    counts = np.bincount([hashed_column(f, dim) for f in features], minlength=dim)
    row = counts.astype(np.float32)
    present = row[row != 0]
    total = float(np.cumsum((present * present).astype(np.float64))[-1]) if len(present) else 0.0
    if total == 0.0:
        return row
    return (row.astype(np.float64) / math.sqrt(total)).astype(np.float32)
