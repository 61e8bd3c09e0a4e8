"""Fixtures of the Android tests: the fake ADB server (SimPhone behind the ADB protocol)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("adbutils", reason="the android extra is not installed")

from guigraph.testing.adb_server import FakeAdbServer


@pytest.fixture
def adb_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAdbServer]:
    """A fake ADB server on a free loopback port, made the one guigraph talks to."""
    with FakeAdbServer(lifetime_s=600) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
        yield server
