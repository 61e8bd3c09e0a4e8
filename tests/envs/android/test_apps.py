"""Apps by label and by package: a knowledge base whose logs name apps as people see them
("Settings") runs on a device that reports packages (``com.simphone.settings``); a run opens
only the apps of its task."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import ExitStack
from pathlib import Path

import pytest

from guigraph.agents.factory import team_factory
from guigraph.agents.loop import Budget, run_episode
from guigraph.envs.android.env import AndroidEnv
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import template_table
from guigraph.graph.from_logs import LogsSelection, build_from_logs
from guigraph.graph.kb import APP_NAMES_SETTING, DB_FILE, KnowledgeBase
from guigraph.testing.adb_server import FakeAdbServer
from guigraph.types import Action


def test_the_device_knows_an_app_by_label_and_by_package(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    apps = env.apps
    assert apps.package_for("Settings") == "com.simphone.settings"  # by its name
    assert apps.package_for("ShopMall") == "com.simphone.shop"  # from the launcher's icon
    assert apps.package_for("com.simphone.music") == "com.simphone.music"
    assert apps.package_for("Nowhere") is None
    known = ["Home", "Settings", "Tunes", "com.simphone.mail"]
    assert env.app_names(known) == {
        "com.simphone.settings": "Settings",
        "com.simphone.music": "Tunes",
    }


def test_open_app_outside_the_task_is_refused(adb_server: FakeAdbServer) -> None:
    env = AndroidEnv()
    env.reset(env.make_task("tool.wifi", 3), 3)  # an app of its own: Settings
    for outside in ("ShopMall", "com.simphone.shop", "com.android.systemui"):
        result = env.step(Action.open_app(outside))
        assert result.error and result.error.startswith("refused to open"), result.error
        assert result.observation.app == "com.android.launcher3"
    opened = env.step(Action.open_app("Settings"))
    assert opened.error is None and opened.observation.app == "com.simphone.settings"


@pytest.fixture(scope="module")
def label_kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A KB from SimPhone's standard skin (apps by label): one single-app template per app,
    three recorded runs each."""
    rows = template_table()
    chosen: list[str] = []
    apps: set[str] = set()
    for row in rows:
        if len(row["apps"]) == 1 and row["apps"][0] not in apps:
            apps.add(row["apps"][0])
            chosen.append(row["template_id"])
    root = tmp_path_factory.mktemp("label-kb")
    others = [row["template_id"] for row in rows if row["template_id"] not in chosen]
    record(root / "logs", 3 * len(chosen), seed=5, noise=0.0, holdout=others)
    build_from_logs(root / "logs", root / "kb", LogsSelection(part="all"))
    return root / "kb", chosen


@pytest.mark.slow
def test_a_label_named_kb_runs_seen_tasks_on_a_device_that_reports_packages(
    label_kb: tuple[Path, list[str]], adb_server: FakeAdbServer
) -> None:
    kb_dir, templates = label_kb
    assert os.environ["ANDROID_ADB_SERVER_PORT"] == str(adb_server.port)
    done = []
    with KnowledgeBase.open(kb_dir) as kb, ExitStack() as resources:
        env = AndroidEnv()
        make_team, _ = team_factory("graph", kb, resources, action_space=env.action_space)
        for k, template in enumerate(templates[:10]):
            task = env.make_task(template, 800000 + k)
            run_episode(env, make_team(task), task, seed=800000 + k, budget=Budget(30))
            verdict = env.evaluate()
            done.append(bool(verdict and verdict.success))
    assert sum(done) >= 9, list(zip(templates, done, strict=False))


def test_a_kb_keeps_the_packages_a_device_told_and_asks_its_launcher_no_more(
    label_kb: tuple[Path, list[str]], adb_server: FakeAdbServer, tmp_path: Path
) -> None:
    kb_dir = tmp_path / "kb"
    shutil.copytree(label_kb[0], kb_dir)
    with sqlite3.connect(kb_dir / DB_FILE) as db:  # what other tests' runs taught it, gone
        db.execute("DELETE FROM settings WHERE key = ?", (APP_NAMES_SETTING,))
    app_of = {row["template_id"]: row["apps"][0] for row in template_table()}
    by_app = {app_of[template]: template for template in label_kb[1]}
    taps: list[str] = []

    def run(template: str, seed: int) -> tuple[bool, dict[str, tuple[str, ...]]]:
        with KnowledgeBase.open(kb_dir) as kb, ExitStack() as resources:
            env = AndroidEnv()
            ask = env.apps.tap_and_read
            env.apps.tap_and_read = lambda icon: taps.append(icon.text) or ask(icon)
            make_team, _ = team_factory("graph", kb, resources, action_space=env.action_space)
            task = env.make_task(template, seed)
            run_episode(env, make_team(task), task, seed=seed, budget=Budget(30))
            verdict = env.evaluate()
            return bool(verdict and verdict.success), kb.app_names()

    done, names = run(by_app["Settings"], 800100)
    # The first run asked the launcher for the labels no package is named like ...
    assert done and "Tunes" in taps and "ShopMall" in taps
    asked = len(taps)
    # ... and the knowledge base kept every answer, with the packages named like their label.
    assert names["ShopMall"] == ("com.simphone.shop",) and names["Tunes"] == ("com.simphone.music",)
    assert names["Settings"] == ("com.simphone.settings",)
    # The next run (another device session, another process's view of the KB) taps no icon.
    done, again = run(by_app["Tunes"], 800101)
    assert done and len(taps) == asked and again == names
