"""One writer per folder: an advisory lock file that a second writer finds taken.

A knowledge base grown by two builds at once would get duplicate states, and two demos in one
run folder delete each other's files. The lock is ``flock`` on a file in the folder: the
kernel drops it when the process ends, so a killed writer never leaves a stale lock behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from guigraph.errors import FolderBusyError


@contextmanager
def folder_lock(folder: Path, name: str, busy: str, *, wait: bool = False) -> Iterator[None]:
    """Hold ``folder/name`` for the block; FolderBusyError saying ``busy`` if it is taken, or,
    with ``wait``, block until the holder lets go (for work a second process would only redo,
    such as distilling a model into a shared cache)."""
    try:
        import fcntl
    except ImportError:  # no flock on this platform: run unguarded, as before
        yield
        return
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / name).open("a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderBusyError(f"{folder}: {busy}; wait for it to finish") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
