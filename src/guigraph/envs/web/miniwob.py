"""MiniWoB++ tasks from the ``miniwob`` package's own HTML, scored by the page's own JavaScript.

A task is ``miniwob/<name>``: the file ``miniwob/html/miniwob/<name>.html`` opened as a
``file://`` URL. An episode starts as the ``miniwob`` package starts one: ``Math.seedrandom(seed)``
then ``core.startEpisodeReal()`` (which generates the problem and writes the instruction into
``#query``); the reward is ``WOB_REWARD_GLOBAL`` once ``WOB_DONE_GLOBAL`` is set. Two changes to
the page, both for an agent that thinks between steps: the 10 s episode timer is raised
(``EPISODE_MAX_TIME``, default 10 min; a time-proportional reward therefore stays near its raw
value), and the reward/timer panel beside the task is hidden (it ticks every second and is not
part of the task).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError, EnvError
from guigraph.types import Task

PREFIX = "miniwob/"
#: The task area of every MiniWoB page (``#wrap`` in core.css): the viewport is exactly it.
VIEWPORT = (160, 210)
#: Parts of the page that are not the task's UI: the instruction (the agent gets it as the
#: task), the reward panel and the cover shown between episodes.
SKIP = "#query, #reward-display, #sync-task-cover"
EPISODE_MAX_MS = 600_000


@functools.cache
def html_dir() -> Path:
    """Where the installed ``miniwob`` package keeps its task pages."""
    import importlib.util

    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the 'miniwob' package is not installed: pip install 'guigraph[web]'")
    folder = Path(next(iter(spec.submodule_search_locations))) / "html" / "miniwob"
    if not folder.is_dir():
        raise ConfigError(f"the miniwob package has no task pages at {folder}")
    return folder


def task_names() -> list[str]:
    """Every MiniWoB++ task the package ships, by name."""
    return sorted(p.stem for p in html_dir().glob("*.html"))


def task_url(name: str) -> str:
    path = html_dir() / f"{name}.html"
    if not path.is_file():
        import difflib

        close = difflib.get_close_matches(name, task_names(), n=1)
        hint = f"; did you mean {PREFIX}{close[0]}?" if close else ""
        raise ConfigError(f"unknown MiniWoB task {name!r}{hint} (see: guigraph web tasks)")
    return path.as_uri()


def is_miniwob(spec: str) -> bool:
    return spec.strip().startswith(PREFIX)


def name_of(spec: str) -> str:
    return spec.strip().removeprefix(PREFIX)


def make_task(name: str, seed: int, instruction: str) -> Task:
    return Task(
        task_id=f"{PREFIX}{name}/{seed}",
        instruction=instruction,
        apps=(),
        template_id=f"{PREFIX}{name}",
        params={"url": task_url(name), "miniwob": name, "seed": str(seed)},
    )


@dataclass(frozen=True)
class Status:
    done: bool
    reward: float
    raw_reward: float
    reason: str


# The page is ready once core.js ran; with ``?record=...`` also once it loaded record.js
# (which wraps the episode's start and end), so that the episode is recorded.
_READY_JS = (
    "typeof core !== 'undefined' && !!core.cover_div && "
    "(!core.QueryString.record || typeof recorder !== 'undefined')"
)

_START_JS = """
(args) => {
  const [seed, maxMs] = args;
  core.EPISODE_MAX_TIME = maxMs;
  Math.seedrandom(seed);
  if (typeof core.setDataMode === 'function') core.setDataMode('default');
  core.startEpisodeReal();
  const panel = document.getElementById('reward-display');
  if (panel) panel.style.display = 'none';
  if (core.CD_TIMER) { clearInterval(core.CD_TIMER); core.CD_TIMER = null; }
  return true;
}
"""

_STATUS_JS = """
() => [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL,
       WOB_REWARD_REASON == null ? "" : String(WOB_REWARD_REASON)]
"""
_UNSCROLL_SIDEWAYS_JS = "() => window.scrollTo(0, window.scrollY)"
# Some tasks' utterance is an object with the text and its fields.
_UTTERANCE_JS = "(() => { const u = core.getUtterance(); return u.utterance ?? u; })()"


def start_episode(page: Any, seed: int, timeout_ms: float) -> str:
    """Start a seeded episode on a loaded task page; the instruction it shows."""
    try:
        page.wait_for_function(_READY_JS, timeout=timeout_ms)
        page.evaluate(_START_JS, [seed, EPISODE_MAX_MS])
        page.wait_for_function("WOB_TASK_READY === true", timeout=timeout_ms)
        # The viewport is exactly the task area: a page that scrolled sideways while it set
        # the task up (a dialog focusing its close button before it shrank to its final
        # width) would show none of it. The field's larger window shows it all.
        page.evaluate(_UNSCROLL_SIDEWAYS_JS)
        text = page.evaluate(_UTTERANCE_JS)
    except Exception as exc:  # Playwright's Error: the page is not a working MiniWoB page
        raise EnvError(f"the MiniWoB page did not start an episode: {_line(exc)}") from exc
    return re.sub(r"\s+", " ", str(text)).strip()


def status(page: Any) -> Status:
    done, reward, raw, reason = page.evaluate(_STATUS_JS)
    return Status(bool(done), float(reward or 0.0), float(raw or 0.0), str(reason))


def _line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
