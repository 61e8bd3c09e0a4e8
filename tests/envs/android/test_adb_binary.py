"""The real ``adb`` client (bundled by adbutils) lists and shells the fake device, and no adb
server is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from guigraph.testing.adb_server import FakeAdbServer
from tests.envs.android.procs import adb_daemons

adbutils = pytest.importorskip("adbutils")


def _adb(port: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_SERIAL"}
    return subprocess.run(
        [adbutils.adb_path(), "-P", str(port), *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_the_bundled_adb_lists_and_shells_the_fake_device() -> None:
    with FakeAdbServer(lifetime_s=120) as server:
        listed = _adb(server.port, "devices")
        assert listed.returncode == 0 and "emulator-5554\tdevice" in listed.stdout
        detailed = _adb(server.port, "devices", "-l")
        assert "model:Pixel_7_Pro" in detailed.stdout
        echoed = _adb(server.port, "shell", "echo", "hi")
        assert echoed.returncode == 0 and echoed.stdout == "hi\n"
        model = _adb(server.port, "-s", "emulator-5554", "shell", "getprop ro.product.model")
        assert model.stdout.strip() == "Pixel 7 Pro"
        assert "host:version" in server.requests  # asked, answered 41: nothing was killed
        assert _adb(server.port, "kill-server").returncode == 0
        assert server.wait(5)  # host:kill stops the fake server, as it stops a real one
        assert adb_daemons(server.port) == []


GUIGRAPH = [sys.executable, "-c", "from guigraph.cli.main import main; main()"]


def test_sim_adb_server_command_serves_until_adb_kills_it() -> None:
    proc = subprocess.Popen(
        [*GUIGRAPH, "sim", "adb-server", "--port", "0", "--serial", "emulator-5580"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split(":")[0])
        assert "emulator-5580\tdevice" in _adb(port, "devices").stdout
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(port)}
        shown = subprocess.run(
            [*GUIGRAPH, "devices", "--json"], capture_output=True, text=True, env=env, timeout=60
        )
        assert json.loads(shown.stdout) == [
            {
                "serial": "emulator-5580",
                "state": "device",
                "model": "Pixel 7 Pro",
                "android": "14",
                "screen": "360x780",
            }
        ]
        _adb(port, "kill-server")
        assert proc.wait(timeout=10) == 0
        assert adb_daemons(port) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
