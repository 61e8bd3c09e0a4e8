"""Text encoders: the offline hashing default and the spec strings saved in a KB."""

from __future__ import annotations

import numpy as np
import pytest

from guigraph.embed import TextEncoder, encoder_from_spec
from guigraph.embed.hashing import HashingEncoder
from guigraph.embed.sentence import SentenceTransformerEncoder
from guigraph.errors import ConfigError, MissingExtraError


def test_hashing_rows_are_unit_float32() -> None:
    vectors = HashingEncoder(128).encode(["Search results for Paris", "Settings", ""])
    assert vectors.shape == (3, 128) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:2], axis=1), 1.0)
    assert not vectors[2].any()  # an empty text is similar to nothing


def test_hashing_is_independent_of_the_batch() -> None:
    enc = HashingEncoder()
    alone = enc.encode(["Open the cart"])[0]
    batched = enc.encode(["something else", "Open the cart"])[1]
    assert np.array_equal(alone, batched)
    assert np.array_equal(alone, HashingEncoder().encode(["Open the cart"])[0])


def test_hashing_similarity_follows_meaning_of_words() -> None:
    a, b, c = HashingEncoder().encode(
        ["Search results for Paris", "Search results for Rome", "Battery saver settings"]
    )
    assert a @ b > 0.6 > a @ c


def test_specs_round_trip_and_errors() -> None:
    enc = encoder_from_spec("hashing:64")
    assert isinstance(enc, TextEncoder) and enc.dim == 64 and enc.spec == "hashing:64"
    assert encoder_from_spec(enc.spec).encode(["x"]).shape == (1, 64)
    assert encoder_from_spec("st:BAAI/bge-m3").spec == "st:BAAI/bge-m3"
    for bad in ("hashing:x", "hashing:4", "st:", "word2vec"):
        with pytest.raises(ConfigError):
            encoder_from_spec(bad)


def test_sentence_transformers_missing_names_the_extra() -> None:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(MissingExtraError, match=r"guigraph\[embed\]"):
            SentenceTransformerEncoder("BAAI/bge-m3").encode(["x"])
    else:  # pragma: no cover - only where the extra is installed
        pytest.skip("sentence-transformers is installed; the missing-extra path cannot run")


def test_hashing_remembers_rows_without_changing_them() -> None:
    texts = [f"Send {n} photos of item {n * 7} to Dana" for n in range(40)] + ["", "Settings"]
    fresh = [HashingEncoder().encode([t])[0] for t in texts]
    enc = HashingEncoder()
    assert np.array_equal(enc.encode(texts), np.stack(fresh))
    calls: list[list[str]] = []
    encode = enc._encode
    enc._encode = lambda batch: calls.append(batch) or encode(batch)  # type: ignore[method-assign]
    again = enc.encode([texts[3], "new text", texts[3]])
    assert calls == [["new text"]]
    assert np.array_equal(again[0], fresh[3]) and np.array_equal(again[2], fresh[3])
    again[0][:] = 0  # a caller's array is its own
    assert np.array_equal(enc.encode([texts[3]])[0], fresh[3])
