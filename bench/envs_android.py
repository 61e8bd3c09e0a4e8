"""Median observe and act latency per step of the Android world over the fake ADB device.

    .venv/bin/python bench/envs_android.py [--steps 100]

For ``bench/envs.py`` (one row per world): :func:`measure` returns the row. ``observe`` is one
settled observation (two ``screencap -p`` that agree, ``uiautomator dump`` + ``cat``,
``dumpsys window``); ``act`` is the action's own shell commands (``input …``, ``monkey``,
``sleep``); ``step`` both, as ``env.step`` does them. Every shell command is one TCP connection
to the loopback server (plus adbutils' ``host:version``), and the fake device renders the
screenshot and serializes the uiautomator XML from SimPhone. A phone is slower: a
``uiautomator dump`` alone takes 1–3 s there.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import benchrun
from guigraph.types import Action, ActionType, Task

#: A loop of everyday actions over two apps (every kind but long press and recents).
ACTIONS = (
    Action.open_app("settings"),
    Action.click(500, 200),
    Action.scroll("up"),
    Action(ActionType.PRESS_BACK),
    Action(ActionType.PRESS_HOME),
    Action.open_app("browser"),
    Action.click(500, 133),
    Action.type_text("hello world"),
    Action(ActionType.WAIT, seconds=0.0),
    Action(ActionType.PRESS_HOME),
)


def measure(steps: int = 100) -> dict[str, Any]:
    """Median milliseconds of observe, act and step on the Android world over the fake."""
    from guigraph.envs.android.env import AndroidEnv
    from guigraph.testing.adb_server import FakeAdbServer

    observe: list[float] = []
    act: list[float] = []
    step: list[float] = []
    with FakeAdbServer(lifetime_s=600) as server:
        os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
        env = AndroidEnv(server.device.serial)
        env.reset(Task("free/0", "latency"), 0)
        for i in range(steps):
            action = ACTIONS[i % len(ACTIONS)]
            started = time.perf_counter()
            env._act(action)
            acted = time.perf_counter()
            env.observe()
            done = time.perf_counter()
            act.append(acted - started)
            observe.append(done - acted)
            started = time.perf_counter()
            env.step(ACTIONS[(i + 1) % len(ACTIONS)])
            step.append(time.perf_counter() - started)
        commands = len(server.device.commands)
    return {
        "world": "android (fake ADB device, loopback)",
        "steps": steps,
        "observe_ms": round(statistics.median(observe) * 1000, 1),
        "act_ms": round(statistics.median(act) * 1000, 1),
        "step_ms": round(statistics.median(step) * 1000, 1),
        "shell_commands_per_step": round(commands / (2 * steps + 1), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    run = benchrun.start("envs-android")
    row = measure(args.steps)
    print(" ".join(f"{k}={v}" for k, v in row.items()))
    run.figure("step_ms", row["step_ms"])
    run.table(
        f"Median per step over {args.steps} steps (SimPhone behind a loopback ADB server)",
        ["observe (ms)", "act (ms)", "step (ms)", "shell commands per step"],
        [[row["observe_ms"], row["act_ms"], row["step_ms"], row["shell_commands_per_step"]]],
    )
    run.save()


if __name__ == "__main__":
    main()
