"""Browser tests leave no Chromium (or Playwright driver) process behind.

Runs after ``test_browser.py`` (whose module fixture has closed by then) and checks it, then
launches and closes a browser itself.
"""

from __future__ import annotations

import os
import time
import uuid
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


def _tagged(tag: str) -> set[int]:
    """Chromium processes (any parent: crash handlers detach) whose environment carries
    ``tag``: this test's browser and its helpers, not another test worker's."""
    found = set()
    marker = f"{_TAG}={tag}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if "chrom" in name and marker in environment:
            found.add(int(entry.name))
    return found


#: Set before the browser starts: every process it starts inherits it.
_TAG = "GUIGRAPH_TEST_BROWSER"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_no_chromium_is_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _left_over() == []  # earlier browser tests closed theirs
    tag = uuid.uuid4().hex
    monkeypatch.setenv(_TAG, tag)
    with launch_browser() as launched:
        with open_page(launched, make_run(tmp_path / "r", 1) / "manifest.json") as (page, _):
            assert page.url.startswith("file://")
        assert any("chrom" in name for name in _descendants(os.getpid()))
        assert _tagged(tag)  # the tag tells this browser's processes
    assert _left_over() == []
    deadline = time.monotonic() + 5  # helpers get a moment to see their browser gone
    while _tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _tagged(tag) == set()  # no detached helper either
