"""A sentence-transformers model the user has locally (e.g. BAAI/bge-m3, as in the paper)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from guigraph.errors import require

if TYPE_CHECKING:
    import numpy as np


class SentenceTransformerEncoder:
    """Loads the model lazily on first use; no download is attempted when offline."""

    def __init__(self, model: str, device: str | None = None):
        self._model_name = model
        self._device = device
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            module = require("sentence_transformers", "embed")
            self._model = module.SentenceTransformer(self._model_name, device=self._device)
        return self._model

    @property
    def dim(self) -> int:
        return int(self._load().get_sentence_embedding_dimension())

    @property
    def spec(self) -> str:
        return f"st:{self._model_name}"

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._load().encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)
