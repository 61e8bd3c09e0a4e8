"""Which adb servers are running: tests leave none behind."""

from __future__ import annotations

from pathlib import Path


def adb_daemons(port: int) -> list[int]:
    """Pids of adb servers listening on ``port`` (a real one started by a client)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            any(a.endswith(b"adb") for a in argv[:1])
            and b"fork-server" in argv
            and any(f"tcp:{port}".encode() in a for a in argv)
        ):
            found.append(int(proc.name))
    return found
