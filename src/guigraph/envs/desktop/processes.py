"""The processes one desktop world started, found and ended by a tag in their environment.

Every process the world starts carries ``GUIGRAPH_DESKTOP=<tag>`` in its environment, and so
does everything those start in turn (D-Bus activates the accessibility bus and its registry
with the session's environment; an application's helpers inherit it). Ending the world is
then exact: every live process whose environment holds this world's tag, whoever its parent
is now, and nothing else (never a name, never another world's process).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from pathlib import Path

#: The environment variable naming the world a process belongs to.
TAG_VARIABLE = "GUIGRAPH_DESKTOP"
_counter = itertools.count()


def new_tag() -> str:
    """A tag unique to this Python process and world."""
    return f"{os.getpid()}-{next(_counter)}"


def tagged_pids(tag: str, proc: Path = Path("/proc")) -> list[int]:
    """Live (not zombie) processes whose environment holds ``GUIGRAPH_DESKTOP=<tag>`` or a
    tag under it (``<tag>/<episode>``)."""
    wanted = f"{TAG_VARIABLE}={tag}".encode()
    found: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:  # gone, or not ours to read
            continue
        if state == "Z":
            continue
        if any(v == wanted or v.startswith(wanted + b"/") for v in environ.split(b"\0")):
            found.append(int(entry.name))
    return found


def end_tagged(tag: str, grace_s: float = 1.0) -> list[int]:
    """SIGTERM every process of ``tag``, SIGKILL what still lives after ``grace_s``; the
    pids ended. Reaps those that are our own children (no zombie left by us)."""
    pids = tagged_pids(tag)
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        _reap(pids)
        if not tagged_pids(tag):
            break
        time.sleep(0.05)
    for pid in tagged_pids(tag):
        _signal(pid, signal.SIGKILL)
    time.sleep(0.02)
    _reap(pids)
    return pids


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _reap(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
