"""A scripted person for the MiniWoB++ tasks of the suite: reads the instruction, acts on screen.

Each expert reads its values from the instruction text (the quoted username, the sender's name)
and finds every target on the current observation by what a person sees — a label, a role, an
HTML id — then clicks its centre or types, through the same ``Env.step`` (and so the same
recorder) as any agent. It never calls the page's JavaScript. ``demonstrate`` returns the
page's verdict.

The suite (``SUITE``) is the documented set of multi-step tasks; ``LEFT_OUT`` says why each
other task is not in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.web.miniwob import PREFIX
from guigraph.errors import EnvError
from guigraph.types import Action, Observation, ScrollDirection, Task, UIElement

_QUOTED = re.compile(r'"([^"]*)"')
MAX_SCROLLS = 6


class ExpertError(EnvError):
    """The expert could not find what the task needs on the screen."""


@dataclass
class Player:
    """Acts on ``env`` the way a person reads the screen."""

    env: Env
    obs: Observation
    done: bool = False

    def find(
        self, label: str | None = None, html_id: str | None = None, role: str | None = None,
        contains: str | None = None,
    ) -> UIElement | None:  # fmt: skip
        for element in self.obs.elements or ():
            if label is not None and element.label.strip().lower() != label.strip().lower():
                continue
            if html_id is not None and element.resource_id != html_id:
                continue
            if role is not None and element.class_name != role:
                continue
            if contains is not None and contains.lower() not in element.label.lower():
                continue
            return element
        return None

    def step(self, action: Action) -> StepResult:
        if self.done:
            raise ExpertError("the episode ended before the expert was done")
        result = self.env.step(action)
        if result.error:
            raise ExpertError(f"{action.type.value}: {result.error}")
        self.obs, self.done = result.observation, result.done
        return result

    def click(self, **how: str) -> None:
        element = self.find(**how)
        if element is None:
            raise ExpertError(f"nothing on the screen matches {how}")
        center = element.bbox.center
        self.step(Action.click(center.x, center.y))

    def reveal(self, **how: str) -> None:
        """Scroll down (the finger moves up) until an element matching ``how`` shows."""
        for _ in range(MAX_SCROLLS):
            if self.find(**how) is not None:
                return
            self.step(Action.scroll(ScrollDirection.UP))
        if self.find(**how) is None:
            raise ExpertError(f"nothing on the page matches {how}")

    def type(self, text: str) -> None:
        self.step(Action.type_text(text))

    def dismiss_popup(self) -> None:
        """A pop-up that asks to leave the task is answered by staying."""
        if self.find(html_id="popup-cancel") is not None:
            self.click(html_id="popup-cancel")


def _quoted(task: Task, count: int) -> list[str]:
    found = _QUOTED.findall(task.instruction)
    if len(found) < count:
        raise ExpertError(f"expected {count} quoted values in {task.instruction!r}")
    return found


def _between(task: Task, pattern: str) -> str:
    match = re.search(pattern, task.instruction)
    if match is None:
        raise ExpertError(f"cannot read {pattern!r} in {task.instruction!r}")
    return match.group(1).strip()


def _login(p: Player, task: Task) -> None:
    user, password = _quoted(task, 2)[:2]
    for field, value in (("username", user), ("password", password)):
        p.click(html_id=field)
        if p.find(html_id="popup-cancel") is not None:
            p.dismiss_popup()
            p.click(html_id=field)
        p.type(value)
    p.click(html_id="subbtn")


def _enter_password(p: Player, task: Task) -> None:
    password = _quoted(task, 1)[0]
    for field in ("password", "verify"):
        p.click(html_id=field)
        p.type(password)
    p.click(label="Submit")


def _enter_text(p: Player, task: Task) -> None:
    p.click(html_id="tt")
    p.type(_quoted(task, 1)[0])
    p.click(label="Submit")


def _click_option(p: Player, task: Task) -> None:
    p.click(label=_between(task, r"^Select (.+) and click Submit"), role="radio")
    p.click(label="Submit")


def _click_checkboxes(p: Player, task: Task) -> None:
    names = _between(task, r"^Select (.*) and click Submit")
    if names != "nothing":
        for name in (n.strip() for n in names.split(",")):
            p.click(label=name, role="checkbox")
    p.click(label="Submit")


def _choose_list(p: Player, task: Task) -> None:
    p.click(role="combobox")
    p.type(_between(task, r"^Select (.+) from the list"))
    p.click(label="Submit")


def _open_email(p: Player, task: Task) -> None:
    sender = _between(task, r"email by (\S+?) and")
    p.reveal(label=sender)
    p.click(label=sender)


def _email_delete(p: Player, task: Task) -> None:
    _open_email(p, task)
    p.click(label="trash")


def _email_important(p: Player, task: Task) -> None:
    _open_email(p, task)
    p.click(label="star")


def _email_forward(p: Player, task: Task) -> None:
    _open_email(p, task)
    p.click(label="Forward")
    p.click(role="textbox")
    p.type(_between(task, r"forward that email to (\S+?)\.?$"))
    p.click(html_id="send-forward")


def _email_reply(p: Player, task: Task) -> None:
    _open_email(p, task)
    p.click(label="Reply")
    p.click(html_id="reply-text")
    p.type(_quoted(task, 1)[0])
    p.click(html_id="send-reply")


def _button_sequence(p: Player, task: Task) -> None:
    p.click(label="ONE")
    p.click(label="TWO")


def _collapsible(p: Player, task: Task) -> None:
    p.click(role="tab")
    p.click(label="Submit", role="button")


Expert = Callable[[Player, Task], None]

#: The suite: multi-step tasks whose steps a workflow can name (fields, labels, values said in
#: the instruction), in the order of the tables.
SUITE: dict[str, Expert] = {
    "login-user": _login,
    "login-user-popup": _login,
    "enter-password": _enter_password,
    "enter-text": _enter_text,
    "enter-text-dynamic": _enter_text,
    "click-option": _click_option,
    "choose-list": _choose_list,
    "click-button-sequence": _button_sequence,
    "click-collapsible": _collapsible,
    "email-inbox-delete": _email_delete,
    "email-inbox-important": _email_important,
    "email-inbox-forward": _email_forward,
    "email-inbox-reply": _email_reply,
}


#: Experts for tasks outside the suite too (their recordings help no fixed workflow yet).
EXPERTS: dict[str, Expert] = {**SUITE, "click-checkboxes": _click_checkboxes}


def task_spec(name: str) -> str:
    """What ``WebEnv.make_task`` takes for a task of the suite."""
    return f"{PREFIX}{name}"


def demonstrate(env: Env, name: str, seed: int) -> tuple[Task, Evaluation | None]:
    """Play ``miniwob/<name>`` with ``seed`` to the end; the task and the page's verdict."""
    expert = EXPERTS.get(name)
    if expert is None:
        raise ExpertError(f"no scripted expert for {name!r} (experts: {', '.join(EXPERTS)})")
    task = env.make_task(task_spec(name), seed)
    player = Player(env, env.reset(task, seed))
    expert(player, task)
    return task, env.evaluate()
