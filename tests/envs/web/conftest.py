"""One real headless Chromium for the web tests of a module, and a check that none is left.

The tests need the system Chromium (``/usr/bin/chromium`` or ``GUIGRAPH_CHROMIUM``); CI
installs Debian's (``.ci/run``), so they never skip there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from guigraph.envs.web.env import WebEnv


def owned_pids(tag: str) -> list[int]:
    """Processes whose command line carries ``--guigraph-owner=<tag>`` (one launch's)."""
    needle = f"--guigraph-owner={tag}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:
            continue  # the process ended while we looked
    return pids


def pids_of_process(pid: int) -> list[int]:
    """Chromium processes launched by the Python process ``pid`` (any of its launches)."""
    needle = f"--guigraph-owner={pid}-".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@contextmanager
def closed_after(env: WebEnv) -> Iterator[WebEnv]:
    """``env``, closed at the end, with a check that none of its Chromium processes is left."""
    try:
        yield env
    finally:
        tag = env.browser.tag
        env.close()
        assert owned_pids(tag) == [], "a Chromium process outlived its environment"


@pytest.fixture(scope="module")
def web_env() -> Iterator[WebEnv]:
    with closed_after(WebEnv(timeout=5.0)) as env:
        yield env
