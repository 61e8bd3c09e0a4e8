"""Browser tests leave no Chromium (or Playwright driver) process behind.

Runs after ``test_browser.py`` (whose module fixture has closed by then) and checks it, then
launches and closes a browser itself.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.report.conftest import launch_browser, open_page
from tests.report.runs import make_run


def _descendants(pid: int) -> list[str]:
    """Names of every process below ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
        names[int(entry.name)] = name
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(names.get(child, "?"))
        todo += children.get(child, [])
    return found


def _left_over() -> list[str]:
    return [n for n in _descendants(os.getpid()) if "chrom" in n or n == "node"]


def _browser_pids_here() -> set[int]:
    """Chromium processes (any parent: crash handlers detach) started from this folder."""
    found = set()
    here = os.getcwd()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if "chrom" in name and cwd == here:
            found.add(int(entry.name))
    return found


def _parent(pid: int) -> int:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return 0
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _another_runs(pid: int) -> bool:
    """Whether ``pid`` is still below another live Python process (another test worker's
    browser, started from this folder while this test ran), not below this one or detached."""
    while pid > 1:
        pid = _parent(pid)
        if pid == os.getpid():
            return False
        try:
            name = (Path("/proc") / str(pid) / "comm").read_text().strip()
        except OSError:
            return False
        if name.startswith(("python", "pytest")):
            return True
    return False


def _ours_left(before: set[int]) -> set[int]:
    return {pid for pid in _browser_pids_here() - before if not _another_runs(pid)}


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_no_chromium_is_left_behind(tmp_path: Path) -> None:
    assert _left_over() == []  # earlier browser tests closed theirs
    before = _browser_pids_here()
    with launch_browser() as launched:
        with open_page(launched, make_run(tmp_path / "r", 1) / "manifest.json") as (page, _):
            assert page.url.startswith("file://")
        assert any("chrom" in name for name in _descendants(os.getpid()))
    assert _left_over() == []
    deadline = time.monotonic() + 5  # helpers get a moment to see their browser gone
    while _ours_left(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _ours_left(before) == set()  # no detached helper either
