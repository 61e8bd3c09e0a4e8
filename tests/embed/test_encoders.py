"""Text encoders: the offline hashing default and the spec strings saved in a KB."""

from __future__ import annotations

import numpy as np
import pytest

from guigraph.embed import TextEncoder, encoder_from_spec
from guigraph.embed.hashing import HashingEncoder
from guigraph.embed.sentence import SentenceTransformerEncoder
from guigraph.errors import ConfigError, MissingExtraError
from tests.fresh_imports import packages_imported


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


def test_hashing_is_scikit_learns_hashing_vectorizer_bit_for_bit() -> None:
    """Worked out without scikit-learn, the rows stay its ``HashingVectorizer``'s (char_wb
    3-5 and word 1-2 n-grams, no alternate sign, l2 norm, words weighted 0.5, the sum
    normalised): a KB built before finds the same traces and screens. Small dimensions make
    n-grams share columns; odd white space, accents, other scripts and short words too."""
    import random

    from sklearn.feature_extraction.text import HashingVectorizer

    rng = random.Random(7)
    alphabet = "abcdefg HIJ  0123 \t\n.,'-:ñüßØ日本😀\u00a0"
    texts = ["", " ", "a", "ab", "abc", "  two  words ", "Ünïcödé WORDS", "x" * 300 + " y"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(400)]
    for dim in (16, 256):
        common = {"n_features": dim, "alternate_sign": False, "norm": "l2", "dtype": np.float32}
        chars = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), **common)
        words = HashingVectorizer(analyzer="word", ngram_range=(1, 2), **common)
        summed = np.asarray(
            (chars.transform(texts) + words.transform(texts) * 0.5).toarray(), dtype=np.float32
        )
        norms = np.linalg.norm(summed, axis=1, keepdims=True)
        np.divide(summed, norms, out=summed, where=norms > 0)
        assert np.array_equal(HashingEncoder(dim).encode(texts), summed)


def test_encoding_a_text_does_not_import_scikit_learn() -> None:
    """Its import takes about a second, paid by every process before its first plan."""
    code = (
        "from guigraph.embed.hashing import HashingEncoder\n"
        "from guigraph.graph.matcher import structure_vectors\n"
        "HashingEncoder(64).encode(['Open the cart'])\n"
        "structure_vectors([['button:ok']], 64)"
    )
    assert packages_imported(code, {"sklearn", "scipy"}) == []
    assert packages_imported("import sklearn", {"sklearn", "scipy"}) == ["scipy", "sklearn"]
