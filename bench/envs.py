"""Benchmark: median observe and act latency per step of each world.

    .venv/bin/python bench/envs.py                  # simphone, web and android, 60 steps each
    .venv/bin/python bench/envs.py --worlds web --steps 200
    .venv/bin/python bench/envs.py --worlds desktop --steps 40 --figure envs-desktop
    .venv/bin/python bench/envs.py --worlds dokuwiki     # a DokuWiki page at 1280x800

Every world is made by name through ``guigraph.envs.make`` and driven through the plain Env
interface with the same seeded mix of actions: a tap on one of the screen's clickable elements,
typing into the focused field, a scroll. A world that ends the episode is reset (not timed).

- observe: a ``wait`` of 0 s, i.e. a step that does nothing but return a fresh observation
  (web: settle, DOM walk and screenshot; SimPhone: render);
- act: a step with a real action (tap, type or scroll), action plus the observation after it.

- observe CPU: the mean CPU time of an observe, over as many observes in a row after the mixed
  steps (an observe right after an action would be charged with what the action started): this
  process and every process under it (Playwright's driver, Chromium, the wiki's PHP server),
  read from ``/proc`` between the steps. On a shared machine the wall time grows with the load;
  the CPU time much less.

Add a world with one line in ``WORLDS``: its name in the registry, a task it can set up, and
the options ``make`` takes. ``android`` runs against the fake device (SimPhone behind a
loopback ADB server, ``guigraph.testing.adb_server``): its figures are the protocol's and
guigraph's cost, not a phone's (``uiautomator dump`` alone takes 1-3 s on one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import benchrun
from guigraph.envs import make
from guigraph.envs.base import Env
from guigraph.types import Action, ActionType, Observation, ScrollDirection, Task

#: World name -> (task spec for ``Env.make_task``, options for ``guigraph.envs.make``).
WORLDS: dict[str, tuple[str, dict[str, Any]]] = {
    "simphone": ("tool.wifi", {}),
    "web": ("miniwob/login-user", {}),
    "android": ("tool.wifi", {}),
    "desktop": ("galculator/product-to-note", {}),
    "dokuwiki": ("", {"viewport": [1280, 800]}),  # the web world on a private DokuWiki
}
#: Worlds measured under a name of their own: the registry name they are made with.
MADE_AS = {"dokuwiki": "web"}


@contextmanager
def world_backend(name: str) -> Iterator[str | None]:
    """What a world needs running (the fake ADB device for ``android``, the wiki for
    ``dokuwiki``), and the task spec it sets, if it sets one."""
    if name == "dokuwiki":
        from guigraph.envs.web.dokuwiki import DokuWiki

        with DokuWiki(password="bench-envs-pass") as wiki:
            yield f"{wiki.base_url}/doku.php?id=start"
        return
    if name != "android":
        yield None
        return
    from guigraph.testing.adb_server import FakeAdbServer

    with FakeAdbServer(lifetime_s=900) as server:
        previous = os.environ.get("ANDROID_ADB_SERVER_PORT")
        os.environ["ANDROID_ADB_SERVER_PORT"] = str(server.port)
        try:
            yield None
        finally:
            if previous is None:
                os.environ.pop("ANDROID_ADB_SERVER_PORT", None)
            else:
                os.environ["ANDROID_ADB_SERVER_PORT"] = previous


def _tree_cpu_s() -> float:
    """CPU seconds used so far by the processes under this one (not this one: its own time is
    ``time.process_time``), from ``/proc``; 0 where there is no ``/proc``."""
    me, tick = os.getpid(), os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while we looked
        pid = int(entry.name)
        parents[pid], used[pid] = int(fields[1]), (int(fields[11]) + int(fields[12])) / tick
    total = 0.0
    for pid, seconds in used.items():
        parent, hops = parents.get(pid, 0), 0
        while parent > 1 and parent != me and hops < 50:
            parent, hops = parents.get(parent, 0), hops + 1
        if parent == me:
            total += seconds
    return total


def _observe_cpu(env: Env, cpu: list[float]) -> None:
    """One observe (a wait of 0 s) and its CPU time: this process and those under it."""
    tree, own = _tree_cpu_s(), time.process_time()
    env.step(Action(ActionType.WAIT, seconds=0.0))
    own = time.process_time() - own
    cpu.append(own + _tree_cpu_s() - tree)


def _action(obs: Observation, rng: random.Random) -> Action:
    elements = [e for e in obs.elements or () if e.clickable or e.editable]
    focused = obs.focused_element()
    roll = rng.random()
    if focused is not None and focused.editable and roll < 0.3:
        return Action.type_text("abc")
    if roll < 0.15 or not elements:
        return Action.scroll(ScrollDirection.UP)
    target = rng.choice(elements)
    return Action.click(target.bbox.center.x, target.bbox.center.y)


def measure(name: str, task_spec: str, options: dict[str, Any], steps: int, seed: int) -> dict:
    env: Env = make(MADE_AS.get(name, name), **options)
    rng = random.Random(seed)
    observe: list[float] = []
    act: list[float] = []
    observe_cpu: list[float] = []
    resets: list[float] = []
    try:
        episode = 0

        def restart() -> tuple[Task, Observation]:
            started = time.perf_counter()
            task = env.make_task(task_spec, seed + episode)
            obs = env.reset(task, seed + episode)
            resets.append(time.perf_counter() - started)
            return task, obs

        _, obs = restart()
        for i in range(steps):
            if i % 2 == 0:
                started = time.perf_counter()
                result = env.step(Action(ActionType.WAIT, seconds=0.0))
                observe.append(time.perf_counter() - started)
            else:
                action = _action(obs, rng)
                started = time.perf_counter()
                result = env.step(action)
                act.append(time.perf_counter() - started)
            obs = result.observation
            if result.done:
                episode += 1
                _, obs = restart()
        for _ in observe:
            _observe_cpu(env, observe_cpu)
    finally:
        env.close()
    return {
        "world": name,
        "task": task_spec,
        "observe_ms": round(1000 * statistics.median(observe), 1),
        "act_ms": round(1000 * statistics.median(act), 1),
        "observe_cpu_ms": round(1000 * statistics.mean(observe_cpu), 1),
        "reset_ms": round(1000 * statistics.median(resets), 1),
        "steps": len(observe) + len(act),
        "episodes": len(resets),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--worlds", default="simphone,web,android", help="comma-separated world names"
    )
    parser.add_argument("--steps", type=int, default=60, help="timed steps per world")
    parser.add_argument("--task", default="", help="task spec (default: the world's in WORLDS)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument("--figure", default="envs", help="the figure's name in bench/results")
    args = parser.parse_args()
    run = benchrun.start(args.figure)
    rows = []
    for name in [w.strip() for w in args.worlds.split(",") if w.strip()]:
        spec, options = WORLDS.get(name, (args.task, {}))
        with world_backend(name) as set_up:
            task = args.task or set_up or spec
            rows.append(measure(name, task, options, args.steps, args.seed))
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            print(
                f"{row['world']:<10} observe {row['observe_ms']:>7.1f} ms "
                f"(CPU {row['observe_cpu_ms']:.1f})   act {row['act_ms']:>7.1f} ms   "
                f"reset {row['reset_ms']:>7.1f} ms   "
                f"({row['steps']} steps, {row['episodes']} episodes, task {row['task']})"
            )
    for row in rows:
        run.figure(f"{row['world']}_observe_ms", row["observe_ms"])
        run.figure(f"{row['world']}_observe_cpu_ms", row["observe_cpu_ms"])
    run.table(
        f"Median wall time per step, {args.steps} timed steps per world; mean CPU time of an "
        "observe",
        ["world", "task", "observe (ms)", "observe CPU (ms)", "act (ms)", "reset (ms)",
         "episodes"],
        [[r["world"], r["task"], r["observe_ms"], r["observe_cpu_ms"], r["act_ms"],
          r["reset_ms"], r["episodes"]] for r in rows],
    )  # fmt: skip
    run.save()


if __name__ == "__main__":
    main()
