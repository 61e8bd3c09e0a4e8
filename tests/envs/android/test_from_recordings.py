"""Recorded demonstrations over ADB grow a KB the team then solves the task with (new seed),
and ``guigraph run --env android`` reports the checker's verdict as for SimPhone."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.graph.from_logs import build_from_logs
from guigraph.testing.adb_server import FakeAdbServer
from tests.envs.android.test_recorder import _record

runner = CliRunner()
TEMPLATE = "tool.wifi"


@pytest.fixture(scope="module")
def recorded_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("android-rec")
    monkey = pytest.MonkeyPatch()
    with FakeAdbServer(lifetime_s=300) as server:
        monkey.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        for seed in (21, 22):
            _record(server, root / "rec", TEMPLATE, seed)
    monkey.undo()
    summary, stats = build_from_logs(root / "rec", root / "kb")
    assert summary.added == 2 and stats["traces"] == 2
    return root / "kb"


@pytest.mark.slow
def test_the_team_solves_the_recorded_task_on_a_new_seed_over_adb(
    recorded_kb: Path, adb_server: FakeAdbServer
) -> None:
    args = ["run", "--env", "android", "--task", TEMPLATE, "--seed", "900000123"]
    result = runner.invoke(app, [*args, "--kb", str(recorded_kb), "--serial", "emulator-5554"])
    assert result.exit_code == 0, result.output
    assert "success: yes (the world's checker)" in result.output


def test_run_without_a_device_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeAdbServer(lifetime_s=10) as server:
        port = server.port
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    result = runner.invoke(app, ["run", "--env", "android", "--task", "tool.wifi"])
    assert result.exit_code == 2
    assert f"error: no ADB server answers at 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output
    devices = runner.invoke(app, ["devices"])
    assert devices.exit_code == 2 and "no ADB server answers" in devices.output


def test_run_on_a_device_pulled_mid_run_is_one_clear_error(adb_server: FakeAdbServer) -> None:
    adb_server.device.faults.add("screencap-size")  # the world fails on its first screen
    result = runner.invoke(app, ["run", "--env", "android", "--task", "tool.wifi"])
    assert result.exit_code == 2 and "error: device emulator-5554: the screenshot" in result.output
    assert "Traceback" not in result.output
