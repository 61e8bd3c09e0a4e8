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
from guigraph.geometry import Point
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
        x, y = self._visible_point(element)
        self.step(Action.click(x, y))

    def _visible_point(self, element: UIElement) -> tuple[float, float]:
        """A point of ``element`` that no element drawn after it covers (two buttons placed
        at random may overlap): its centre when free, else another point of a 3x3 grid."""
        elements = list(self.obs.elements or ())
        later = elements[elements.index(element) + 1 :] if element in elements else []
        box = element.bbox
        covers = [
            e.bbox for e in later
            if e.clickable and not (e.bbox.x1 >= box.x1 and e.bbox.y1 >= box.y1
                                    and e.bbox.x2 <= box.x2 and e.bbox.y2 <= box.y2)
        ]  # fmt: skip
        grid = [(0.5, 0.5)] + [(fx, fy) for fy in (0.2, 0.5, 0.8) for fx in (0.2, 0.5, 0.8)]
        for fx, fy in grid:
            point = Point(box.x1 + fx * box.width, box.y1 + fy * box.height)
            if not any(c.contains(point) for c in covers):
                return point.x, point.y
        return box.center.x, box.center.y

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


#: What the inbox tasks of several kinds ask, by the words of their instruction.
_EMAIL_KINDS = (
    ("forward that email to", _email_forward),
    ("reply to them with", _email_reply),
    ("star icon", _email_important),
    ("trash icon", _email_delete),
)


def _email_any(p: Player, task: Task) -> None:
    """An inbox task of any kind: the instruction says which."""
    for words, expert in _EMAIL_KINDS:
        if words in task.instruction:
            expert(p, task)
            return
    raise ExpertError(f"no inbox request in {task.instruction!r}")


def _button_sequence(p: Player, task: Task) -> None:
    p.click(label="ONE")
    p.click(label="TWO")


def _collapsible(p: Player, task: Task) -> None:
    p.click(role="tab")
    p.click(label="Submit", role="button")


def _click_quoted_button(p: Player, task: Task) -> None:
    p.click(label=_quoted(task, 1)[0], role="button")


def _click_link(p: Player, task: Task) -> None:
    word = _quoted(task, 1)[0]
    # Links differ by case alone ("eget", "Eget"): the one written as the instruction says.
    exact = [e for e in p.obs.elements or () if e.label == word and e.clickable]
    if exact:
        x, y = p._visible_point(exact[0])
        p.step(Action.click(x, y))
    else:
        p.click(label=word)


def _click_the_button(p: Player, task: Task) -> None:
    p.click(role="button")


def _click_named_button(p: Player, task: Task) -> None:
    p.click(label=_between(task, r"^Click button (\S+?)\.?$"), role="button")


def _click_tab(p: Player, task: Task) -> None:
    p.click(label=_between(task, r"^Click on (Tab #\d+)"), role="tab")


def _focus_text(p: Player, task: Task) -> None:
    p.click(role="textbox")


_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")


def _focus_nth_text(p: Player, task: Task) -> None:
    match = _ORDINAL.search(task.instruction)
    if match is None:
        raise ExpertError(f"no ordinal in {task.instruction!r}")
    boxes = [e for e in p.obs.elements or () if e.class_name == "textbox"]
    n = int(match.group(1))
    if not 1 <= n <= len(boxes):
        raise ExpertError(f"there is no textbox #{n} on the screen")
    x, y = p._visible_point(boxes[n - 1])
    p.step(Action.click(x, y))


def _movie_search(p: Player, task: Task) -> None:
    """Fields told apart by the label beside them (a table cell on their row)."""
    match = re.search(r"for (\S+) movies directed by (\S+) from year (\d+)", task.instruction)
    if match is None:
        raise ExpertError(f"cannot read the search in {task.instruction!r}")
    values = dict(zip(("genre", "director", "year"), match.groups(), strict=True))
    elements = list(p.obs.elements or ())
    for field in [e for e in elements if e.class_name == "textbox"]:
        label = _label_of(field, elements).lower()
        # The page words its labels several ways ("Year", "Released date", "Director name").
        key = next((k for k in values if k in label), "year" if "date" in label else None)
        if key is None:
            raise ExpertError(f"a field without a known label ({label!r})")
        x, y = p._visible_point(field)
        p.step(Action.click(x, y))
        p.type(values[key])
    # The button under the fields, worded "Submit", "Search", "Go!"... by the layout.
    under = [e for e in p.obs.elements or () if e.clickable and not e.editable and e.label]
    if not under:
        raise ExpertError("no button under the fields")
    x, y = p._visible_point(max(under, key=lambda e: e.bbox.y1))
    p.step(Action.click(x, y))


def _label_of(field: UIElement, elements: list[UIElement]) -> str:
    """What a person reads as a field's label: its own name, else the words left of it on
    its row, else the nearest words above it."""
    if field.label.strip():
        return field.label.strip().rstrip(":")
    words = [e for e in elements if e is not field and e.label.strip() and not e.editable]
    row = [
        e for e in words
        if e.bbox.y1 < field.bbox.center.y < e.bbox.y2 and e.bbox.x2 <= field.bbox.x1 + 5
    ]  # fmt: skip
    if row:
        return max(row, key=lambda e: e.bbox.x2).label.strip().rstrip(":")
    above = [e for e in words if e.bbox.y2 <= field.bbox.y1 + 5]
    if above:
        return max(above, key=lambda e: e.bbox.y2).label.strip().rstrip(":")
    return ""


def _enter_said_value(p: Player, task: Task) -> None:
    """A date or a time said in the instruction, typed into the one field as it is written."""
    value = _between(task, r"^Enter (.+?) as the")
    p.click(role="textbox")
    p.type(value)
    p.click(label="Submit")


def _use_spinner(p: Player, task: Task) -> None:
    """The said number set with the spinner's arrows, one click a step from 0: the page
    refuses keys in its field (its keydown is cancelled), so a person clicks."""
    target = int(_between(task, r"^Select (-?\d+) with"))
    spinner = p.find(role="spinbutton")
    if spinner is None:
        raise ExpertError("no spinner on the screen")
    arrows = _spinner_arrows(p, spinner)
    arrow = arrows[0] if target > 0 else arrows[-1]
    for _ in range(abs(target)):
        p.step(Action.click(*p._visible_point(arrow)))
    p.click(label="Submit")


def _spinner_arrows(p: Player, spinner: UIElement) -> list[UIElement]:
    """The unnamed buttons on the spinner's right edge, top (up) first."""
    arrows = [
        e for e in p.obs.elements or ()
        if e.class_name == "button" and not e.label.strip("._- ").isalpha()
        and spinner.bbox.y1 - 20 <= e.bbox.center.y <= spinner.bbox.y2 + 20
        and e.bbox.center.x > spinner.bbox.center.x
    ]  # fmt: skip
    if len(arrows) != 2:
        raise ExpertError(f"expected two arrows beside the spinner, saw {len(arrows)}")
    return sorted(arrows, key=lambda e: e.bbox.y1)


#: The month names a calendar pop-up shows in its title.
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def _choose_date(p: Player, task: Task) -> None:
    """The said date picked off the calendar that opens under the (read-only) date field:
    "Prev" until the said month shows, then its day, then Submit (the calendar closes when
    a day is picked)."""
    month, day, _year = (int(part) for part in _between(task, r"^Select (\S+) as").split("/"))
    p.click(role="textbox")
    for _ in range(12):
        if p.find(label=_MONTHS[month - 1]) is not None:
            break
        p.click(label="Prev")
    else:
        raise ExpertError(f"the calendar never showed {_MONTHS[month - 1]}")
    days = [e for e in p.obs.elements or () if e.clickable and e.label.strip() == str(day)]
    if not days:
        raise ExpertError(f"the calendar shows no day {day}")
    p.step(Action.click(*p._visible_point(days[0])))
    p.click(label="Submit")


def _copy_text(p: Player, task: Task) -> None:
    """The text of the box the instruction points at (the only one, or the n-th), typed
    into the empty field: read on the screen, not said in the instruction."""
    boxes = [e for e in p.obs.elements or () if e.editable and e.text.strip()]
    match = _ORDINAL.search(task.instruction)
    n = int(match.group(1)) if match else 1
    if not 1 <= n <= len(boxes):
        raise ExpertError(f"there is no text box #{n} with text on the screen")
    text = boxes[n - 1].text
    empty = [e for e in p.obs.elements or () if e.editable and not e.text.strip()]
    if not empty:
        raise ExpertError("no empty field to paste into")
    x, y = p._visible_point(empty[0])
    p.step(Action.click(x, y))
    p.type(text)
    p.click(label="Submit")


_NAME = re.compile(r"\b[A-Z][a-z]+(?:-[A-Z][a-z]+)?\b")
#: Where free phrasings put the sender's name: after "from"/"by", before "'s" or "wrote".
_SENDER_CUES = (r"(?:from|by) ({})", r"({})'s", r"({}) (?:wrote|sent)")
#: The inbox request of free phrasings, by the words a person reads it from (first match).
_FREE_KINDS = (
    (re.compile(r"delete|trash|remove|discard|get rid|throw", re.I), "delete"),
    (re.compile(r"\bstar|important|flag|mark", re.I), "star"),
    (re.compile(r'"', re.I), "reply"),
    (re.compile(r"fo?r?ward|send|sent to|copy|give|waiting", re.I), "forward"),
)


def _email_free(p: Player, task: Task) -> None:
    """An inbox request in free words: the sender is the name the words point at (or the
    one the inbox shows); a forward's recipient is the other name; a reply's text is the
    quoted one."""
    said = task.instruction.split('"', 1)[0]  # names inside a quoted reply are text
    names = list(dict.fromkeys(_NAME.findall(said)))
    # The first word is capitalized as any sentence's ("Forward ...", "Give ..."): a name
    # only where the sentence is about it ("Amargo is waiting", "Patsy's email").
    first = re.match(r"\s*([A-Z][a-z]+(?:-[A-Z][a-z]+)?)(\W+\w+)?", said)
    if first and first.group(1) in names[:1]:
        after = (first.group(2) or "").strip(" ")
        if not (after.startswith("'s") or after.split()[:1] in (["is"], ["wrote"], ["wants"])):
            names = names[1:]
    cued = [
        m.group(1) for cue in _SENDER_CUES
        for m in [re.search(cue.format("|".join(map(re.escape, names))), said)] if m and names
    ]  # fmt: skip
    kind = next((kind for words, kind in _FREE_KINDS if words.search(task.instruction)), None)
    if kind is None:
        raise ExpertError(f"no inbox request in {task.instruction!r}")
    candidates = cued + [n for n in names if n not in cued]
    sender = None
    for _ in range(MAX_SCROLLS):
        sender = next((n for n in candidates if p.find(label=n) is not None), None)
        if sender is not None:
            break
        p.step(Action.scroll(ScrollDirection.UP))
    if sender is None:
        raise ExpertError(f"no sender of {names} in the inbox")
    p.click(label=sender)
    if kind == "reply":
        p.click(label="Reply")
        p.click(html_id="reply-text")
        p.type(_quoted(task, 1)[0])
        p.click(html_id="send-reply")
    elif kind == "forward":
        others = [n for n in names if n != sender]
        if not others:
            raise ExpertError(f"no recipient in {task.instruction!r}")
        p.click(label="Forward")
        p.click(role="textbox")
        p.type(others[0])
        p.click(html_id="send-forward")
    else:
        p.click(label="star" if kind == "star" else "trash")


def _exact(p: Player, word: str) -> UIElement | None:
    """The clickable element written exactly as ``word`` (links differ by case alone)."""
    return next((e for e in p.obs.elements or () if e.label == word and e.clickable), None)


def _click_element(p: Player, element: UIElement) -> None:
    x, y = p._visible_point(element)
    p.step(Action.click(x, y))


def _search_by_opening(p: Player, word: str, role: str, html_id: str | None = None) -> None:
    """Open what hides content (tabs, sections, folders: ``role``/``html_id``) one at a time,
    in the order a person reads them, until ``word`` shows; then click it."""
    opened: set[str] = set()
    while (target := _exact(p, word)) is None:
        closed = [
            e for e in p.obs.elements or ()
            if e.class_name == role and (html_id is None or e.resource_id == html_id)
            and e.label not in opened
        ]  # fmt: skip
        if not closed:
            raise ExpertError(f"{word!r} is behind nothing left to open")
        opened.add(closed[0].label)
        _click_element(p, closed[0])
    _click_element(p, target)


def _find_in_tabs(p: Player, task: Task) -> None:
    _search_by_opening(p, _quoted(task, 1)[0], role="tab")


def _find_in_tree(p: Player, task: Task) -> None:
    _search_by_opening(p, _quoted(task, 1)[0], role="text", html_id=".folder")


def _close_dialog(p: Player, task: Task) -> None:
    """The dialog's "x" is its title bar's close button (named "Close" as a person's screen
    reader says it)."""
    p.click(label="Close", role="button")


#: The widget kinds click-widget names, by the role a person's screen reader says.
_WIDGET_ROLES = {"radio": "radio", "checkbox": "checkbox", "button": "button",
                 "text": "textbox", "textarea": "textbox"}  # fmt: skip


def _click_widget(p: Player, task: Task) -> None:
    """A widget of the kind the instruction quotes; a one-line field and a text area are
    both text boxes, told apart by their height (a text area is the taller)."""
    kind = _quoted(task, 1)[0]
    role = _WIDGET_ROLES.get(kind)
    if role is None:
        raise ExpertError(f"no widget kind {kind!r}")
    widgets = sorted(
        (e for e in p.obs.elements or () if e.class_name == role), key=lambda e: e.bbox.height
    )
    if not widgets:
        raise ExpertError(f"no {kind} widget on the screen")
    target = widgets[-1] if kind == "textarea" else widgets[0]
    x, y = p._visible_point(target)
    p.step(Action.click(x, y))


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
EXPERTS: dict[str, Expert] = {
    **SUITE,
    "click-checkboxes": _click_checkboxes,
    "click-checkboxes-large": _click_checkboxes,
    "click-checkboxes-transfer": _click_checkboxes,
    "click-collapsible-nodelay": _collapsible,
    # One action: the recorded step names its target by a value the instruction says.
    "click-button": _click_quoted_button,
    "unicode-test": _click_quoted_button,
    "click-dialog-2": _click_quoted_button,
    "click-link": _click_link,
    "click-test": _click_the_button,
    "click-test-2": _click_named_button,
    "click-test-transfer": _click_named_button,
    "click-tab": _click_tab,
    "focus-text": _focus_text,
    "focus-text-2": _focus_nth_text,
    # Several workflows under one page: the instruction says which.
    "email-inbox": _email_any,
    "email-inbox-noscroll": _email_any,
    "email-inbox-star-reply": _email_any,
    "email-inbox-forward-nl": _email_free,
    "email-inbox-forward-nl-turk": _email_free,
    "email-inbox-nl-turk": _email_free,
    # Date and time fields, typed as the instruction writes the value.
    "enter-date": _enter_said_value,
    "enter-time": _enter_said_value,
    # A value read off the screen and typed into another field.
    "copy-paste": _copy_text,
    "copy-paste-2": _copy_text,
    # Fields told apart by a label beside them, in any layout or order.
    "multi-layouts": _movie_search,
    "multi-orderings": _movie_search,
    # Widgets that refuse typing (a spinner that cancels keys, a read-only date field with a
    # calendar pop-up): set by clicks on the widget's own arrows and days.
    "use-spinner": _use_spinner,
    "choose-date": _choose_date,
    "choose-date-easy": _choose_date,
    "choose-date-medium": _choose_date,
    "choose-date-nodelay": _choose_date,
    # A target the instruction names, hidden until a tab, section or folder is opened: the
    # person opens them one by one until it shows.
    "click-tab-2": _find_in_tabs,
    "click-tab-2-easy": _find_in_tabs,
    "click-tab-2-medium": _find_in_tabs,
    "click-tab-2-hard": _find_in_tabs,
    "click-collapsible-2": _find_in_tabs,
    "click-collapsible-2-nodelay": _find_in_tabs,
    "navigate-tree": _find_in_tree,
    # Single-action tasks the instruction names by a mark or a kind, not by a label.
    "click-dialog": _close_dialog,
    "click-widget": _click_widget,
}


def resolve_tasks(spec: str) -> tuple[str, tuple[str, ...]]:
    """``browsergym``, ``synapse``, ``suite`` or task names: the label and the tasks."""
    from guigraph.envs.web.tasksets import resolve

    chosen = resolve(spec)
    return chosen.label, chosen.tasks


def why_not_demonstrated(name: str) -> str:
    """Why no scripted person demonstrates ``name`` (the demo counts it 0)."""
    from guigraph.envs.web.suite import left_out_reason

    return left_out_reason(name) or "no scripted demonstrator yet"


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
