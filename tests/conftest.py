"""Shared test helpers: where the read-only fixtures in ../shared live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The team's checkout and CI have the read-only fixtures in ../shared beside the repo root;
# GUIGRAPH_SHARED points elsewhere when needed. A user's clone has none, and those tests skip.
SHARED = Path(os.environ.get("GUIGRAPH_SHARED", Path(__file__).resolve().parents[2] / "shared"))

ODYSSEY_FIXTURE = SHARED / "data" / "guiodyssey" / "official_eval_sample_high_task_split.json"


@pytest.fixture
def odyssey_fixture() -> Path:
    if not ODYSSEY_FIXTURE.exists():
        pytest.skip(
            f"shared fixture not present at {ODYSSEY_FIXTURE} (only in the team's checkout)"
        )
    return ODYSSEY_FIXTURE
