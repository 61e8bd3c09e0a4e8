"""Shared test helpers: where the read-only fixtures in ../shared live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# Tests check behaviour, not timings (bench/ measures those): a property test that takes 250 ms
# on a loaded 2-core machine is no failure.
settings.register_profile("guigraph", deadline=None)
settings.load_profile("guigraph")

# The team's checkout and CI have the read-only fixtures in ../shared beside the repo root;
# GUIGRAPH_SHARED points elsewhere when needed. A user's clone has none, and those tests skip.
SHARED = Path(os.environ.get("GUIGRAPH_SHARED", Path(__file__).resolve().parents[2] / "shared"))

ODYSSEY_FIXTURE = SHARED / "data" / "guiodyssey" / "official_eval_sample_high_task_split.json"


#: The shared recording: 40 SimPhone episodes (39 templates; 32 train, 8 test), seed 5, with
#: expert mistakes and pop-ups (noise 0.1) so the build and replay see untidy demonstrations.
SHARED_EPISODES, SHARED_SEED, SHARED_NOISE = 40, 5, 0.1


def _run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this run that every xdist worker sees (``make test`` runs two): the
    parent of the workers' own temp folders; without xdist, this process's temp folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def simphone_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SimPhone logs recorded once for the whole run: every test that needs real logs shares
    them (recording is most of a fixture's cost) instead of recording its own; the first
    xdist worker to ask records them, the other waits on the lock. Read-only: write runs,
    KBs and conversions into your own tmp_path."""
    from filelock import FileLock

    from guigraph.envs.simphone.recorder import record

    shared = _run_folder(tmp_path_factory) / "shared"
    shared.mkdir(exist_ok=True)
    logs, done = shared / "logs", shared / "logs.done"
    with FileLock(shared / "logs.lock"):
        if not done.exists():
            summary = record(logs, SHARED_EPISODES, seed=SHARED_SEED, noise=SHARED_NOISE)
            assert not summary.failures, summary.failures
            done.touch()
    return logs


@pytest.fixture(scope="session")
def simphone_kb(simphone_logs: Path) -> Path:
    """The KB of ``simphone_logs``' train split, as `guigraph build` makes it. Read-only."""
    from filelock import FileLock

    from guigraph.graph.from_logs import build_from_logs

    kb, done = simphone_logs.parent / "kb", simphone_logs.parent / "kb.done"
    with FileLock(simphone_logs.parent / "kb.lock"):
        if not done.exists():
            build_from_logs(simphone_logs, kb)
            done.touch()
    return kb


@pytest.fixture
def odyssey_fixture() -> Path:
    if not ODYSSEY_FIXTURE.exists():
        pytest.skip(
            f"shared fixture not present at {ODYSSEY_FIXTURE} (only in the team's checkout)"
        )
    return ODYSSEY_FIXTURE
