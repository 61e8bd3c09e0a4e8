"""Fixtures of the Android tests: the fake ADB server (SimPhone behind the ADB protocol)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("adbutils", reason="the android extra is not installed")

from guigraph.testing.adb_server import FakeAdbServer
from tests.envs.android.procs import adb_daemons


@pytest.fixture
def adb_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAdbServer]:
    """A fake ADB server on a free loopback port, made the one guigraph talks to."""
    with FakeAdbServer(lifetime_s=600) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        yield server
    assert adb_daemons(server.port) == [], "a real adb server was started on the test's port"
