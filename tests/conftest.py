"""Shared test helpers: where the read-only fixtures in ../shared live."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
if not SHARED.exists():  # a clone checked out somewhere else: look beside the repo root's parent
    SHARED = Path(__file__).resolve().parents[1].parent / "shared"

ODYSSEY_FIXTURE = SHARED / "data" / "guiodyssey" / "official_eval_sample_high_task_split.json"


@pytest.fixture
def odyssey_fixture() -> Path:
    if not ODYSSEY_FIXTURE.exists():
        pytest.skip(
            f"shared fixture not present at {ODYSSEY_FIXTURE} (only in the team's checkout)"
        )
    return ODYSSEY_FIXTURE
