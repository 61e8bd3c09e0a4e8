"""DroidBot output folders made from SimPhone logs, with the quirks of real explorations.

Test support for ``guigraph import droidbot`` and for developing the graph builder against
the shape of real Android data. It reads a logs folder the SimPhone recorder wrote (episodes,
screenshots and ``truth/``) and writes what DroidBot would have written exploring those
screens on a phone:

- ``states/state_<tag>.json`` (``to_dict`` of a device state: a flat ``views`` list whose
  ``children``/``parent`` are indices, ``state_str``, ``state_str_content_free``,
  ``foreground_activity``...) and ``states/screen_<tag>.jpg``, written only the first time a
  state is seen;
- ``events/event_<tag>.json`` (``start_state``, ``stop_state``, ``event``, ``event_str``,
  ``tag``) and ``utg.js`` (``var utg = {...}``).

Every quirk the importer and the builder must survive is in there: each screen is a deep tree
of unnamed framework containers; toolbars hold their title in a TextView without an id; the
settings app is made of preference rows sharing framework ids, told apart only by titles;
list rows share one id; dialogs are a second window root over most of the page below, with
the ids every dialog has; tab pages sit in one pager activity and are reached by sideways
swipes; some views have inverted or off-screen bounds; screenshots are 1080x2340 JPEGs whose
EXIF says 2340x1080; the app is killed and restarted every episode (a few events) and
sometimes started by an intent; a lost event breaks the state chain now and then.

SimPhone's true screen identities are used only to give screens plausible activities (one per
page, a shared one for pager tabs and settings sub-pages), as an app's code would.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from guigraph.data.odyssey import OdysseyDataset
from guigraph.geometry import NORM_MAX
from guigraph.types import Action, ActionType, Episode, ScrollDirection, Step, UIElement

#: The phone the screens are written for (a common 1080x2340 Android phone).
WIDTH, HEIGHT = 1080, 2340
LAUNCHER = "com.android.launcher3"
#: Share of screens with a view of inverted bounds and one (partly) off screen.
BAD_VIEW_SCREENS = 0.15
_ROW_SUFFIX = re.compile(r"_(?:\d+|[A-Z][a-z]+)$")
_DIALOG_BUTTONS = {"rate_now": 1, "allow": 1, "dismiss": 2, "deny": 2}
#: Finger direction (GUIOdyssey) -> DroidBot's scroll direction (the content's way).
_DROIDBOT_DIRECTION = {
    ScrollDirection.UP: "DOWN",
    ScrollDirection.DOWN: "UP",
    ScrollDirection.LEFT: "RIGHT",
    ScrollDirection.RIGHT: "LEFT",
}


@dataclass
class WriterSettings:
    episodes_per_folder: int = 25
    seed: int = 0
    #: Share of episodes whose first step (tap the app's icon) is an ``am start`` intent.
    intent_start_rate: float = 0.5
    #: Share of events lost (not written), which breaks the state chain.
    lost_event_rate: float = 0.02
    jpeg_quality: int = 80


@dataclass
class _Folder:
    root: Path
    rng: random.Random
    settings: WriterSettings
    clock: datetime = field(default_factory=lambda: datetime(2024, 3, 1, 9, 0, 0))
    states: dict[str, dict[str, Any]] = field(default_factory=dict)  # state_str -> utg node
    edges: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    events: int = 0
    package: str = ""
    skeletons: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def tag(self) -> str:
        self.clock += timedelta(seconds=3)
        return self.clock.strftime("%Y-%m-%d_%H%M%S")


def write_droidbot(logs: Path, out: Path, settings: WriterSettings | None = None) -> list[Path]:
    """One DroidBot output folder per ``episodes_per_folder`` episodes of ``logs``."""
    settings = settings or WriterSettings()
    dataset = OdysseyDataset(Path(logs))
    ids = dataset.episode_ids()
    folders = []
    for start in range(0, len(ids), settings.episodes_per_folder):
        root = Path(out) / f"droidbot_{start // settings.episodes_per_folder:03d}"
        folder = _Folder(root, random.Random(f"{settings.seed}/{start}"), settings)
        (root / "states").mkdir(parents=True, exist_ok=True)
        (root / "events").mkdir(parents=True, exist_ok=True)
        previous: str | None = None
        chunk = ids[start : start + settings.episodes_per_folder]
        screens = {
            episode_id: [
                s["screen"]
                for s in json.loads((Path(logs) / "truth" / f"{episode_id}.json").read_text())[
                    "steps"
                ]
            ]
            for episode_id in chunk
        }
        folder.skeletons = _skeletons(dataset, chunk, screens)
        for episode_id in chunk:
            episode = dataset.load(episode_id)
            previous = _write_episode(folder, episode, screens[episode_id], previous)
        _write_utg(folder)
        folders.append(root)
    return folders


def _write_episode(
    folder: _Folder, episode: Episode, screens: list[str], previous: str | None
) -> str | None:
    """Events of one episode after a restart; returns the last state's ``state_str``."""
    below: dict[str, tuple[list[UIElement], str]] = {}
    states = [
        _state(folder, step, screen, below)
        for step, screen in zip(episode.steps, screens, strict=True)
    ]
    if not folder.package:
        folder.package = _package(next((s for s in screens if s != "system.home"), screens[0]))
    if previous is not None:  # DroidBot restarts the app: kill it, back at the launcher
        kill = {"event_type": "kill_app", "stop_intent": f"am force-stop {folder.package}"}
        _write_event(folder, previous, states[0], kill, "KillAppEvent()")
    for i, step in enumerate(episode.steps[:-1]):
        if step.action.type is ActionType.COMPLETE:
            break
        event = _event(folder, step, screens[i], states[i], i == 0)
        if event is None or folder.rng.random() < folder.settings.lost_event_rate:
            continue  # a lost event: the chain of states breaks here
        _write_event(folder, states[i], states[i + 1], event, _event_str(event, states[i]))
    return states[-1]


def _write_event(
    folder: _Folder, start: str, stop: str, event: dict[str, Any], event_str: str
) -> None:
    tag = folder.tag()
    data = {
        "tag": tag,
        "event": event,
        "start_state": start,
        "stop_state": stop,
        "event_str": event_str,
    }
    (folder.root / "events" / f"event_{tag}.json").write_text(json.dumps(data, indent=2))
    folder.events += 1
    edge = folder.edges.setdefault(
        (start, stop), {"from": start, "to": stop, "id": f"{start}-->{stop}", "events": []}
    )
    edge["events"].append(
        {"event_str": event_str, "event_id": folder.events, "event_type": event["event_type"]}
    )


def _event_str(event: dict[str, Any], state: str) -> str:
    kind = event["event_type"]
    if kind == "intent":
        return f"IntentEvent(intent='{event['intent']}')"
    if kind == "key":
        return f"KeyEvent(state={state}, name={event['name']})"
    view = event.get("view")
    name = {"touch": "TouchEvent", "long_touch": "LongTouchEvent", "scroll": "ScrollEvent"}
    label = name.get(kind, "SetTextEvent")
    if view is not None:
        return f"{label}(view={view['view_str']})"
    return f"{label}(state={state}, x={event.get('x')}, y={event.get('y')})"


# Events -----------------------------------------------------------------------------------


def _event(
    folder: _Folder, step: Step, screen: str, state: str, first: bool
) -> dict[str, Any] | None:
    action, views = step.action, folder.states[state]["_views"]
    kind = action.type
    starts_app = first and screen == "system.home" and kind is ActionType.CLICK
    if starts_app and folder.rng.random() < folder.settings.intent_start_rate:
        target = _view_at(views, action)
        app = (target or {}).get("text") or ""
        package = f"com.simphone.{_APP_BY_LABEL.get(app, app.lower())}"
        return {"event_type": "intent", "intent": f"am start -n {package}/.MainActivity"}
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        target = _view_at(views, action)
        if kind is ActionType.CLICK and target is not None and "TabView" in target["class"]:
            return _tab_swipe(views, target)
        event_type = "touch" if kind is ActionType.CLICK else "long_touch"
        if target is None:
            assert action.point is not None
            x, y = _pixels(action.point.x, action.point.y)
            return {"event_type": event_type, "x": x, "y": y, "view": None}
        return {"event_type": event_type, "x": None, "y": None, "view": _event_view(target)}
    if kind is ActionType.SCROLL:
        assert action.direction is not None
        scroller = next((v for v in views if v["scrollable"]), None)
        return {
            "event_type": "scroll",
            "x": None,
            "y": None,
            "view": _event_view(scroller) if scroller else None,
            "direction": _DROIDBOT_DIRECTION[action.direction],
        }
    if kind is ActionType.TYPE:
        field_view = next((v for v in views if v["focused"] and v["editable"]), None)
        field_view = field_view or next((v for v in views if v["editable"]), None)
        return {
            "event_type": "set_text",
            "x": None,
            "y": None,
            "view": _event_view(field_view) if field_view else None,
            "text": action.text,
        }
    keys = {ActionType.PRESS_BACK: "BACK", ActionType.PRESS_HOME: "HOME"}
    if kind in keys:
        return {"event_type": "key", "name": keys[kind]}
    if kind is ActionType.PRESS_RECENT:
        return {"event_type": "key", "name": "APP_SWITCH"}
    return None


_APP_BY_LABEL = {
    "ShopMall": "shop",
    "Tunes": "music",
    "ViewTube": "video",
    "Chirp": "social",
}


def _tab_swipe(views: list[dict[str, Any]], tab: dict[str, Any]) -> dict[str, Any]:
    """A tap on another tab, done as a sideways swipe on the pager (as users do)."""
    selected = next((v for v in views if "TabView" in v["class"] and v["selected"]), tab)
    pager = next((v for v in views if "ViewPager" in v["class"]), None)
    # The finger moves left to reach a tab on the right: DroidBot calls that scrolling RIGHT.
    direction = "RIGHT" if tab["bounds"][0][0] > selected["bounds"][0][0] else "LEFT"
    return {
        "event_type": "scroll",
        "x": None,
        "y": None,
        "view": _event_view(pager) if pager else None,
        "direction": direction,
    }


def _view_at(views: list[dict[str, Any]], action: Action) -> dict[str, Any] | None:
    """The smallest clickable view under the action's point."""
    assert action.point is not None
    x, y = _pixels(action.point.x, action.point.y)
    hits = [
        v
        for v in views
        if v["clickable"]
        and v["bounds"][0][0] <= x <= v["bounds"][1][0]
        and v["bounds"][0][1] <= y <= v["bounds"][1][1]
    ]
    return min(hits, key=_area, default=None)


def _area(view: dict[str, Any]) -> int:
    (x1, y1), (x2, y2) = view["bounds"]
    return (x2 - x1) * (y2 - y1)


def _event_view(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("class", "resource_id", "text", "content_description", "bounds", "temp_id")
    return {**{k: view[k] for k in keys}, "view_str": view["view_str"]}


# States -----------------------------------------------------------------------------------


def _package(screen: str) -> str:
    app = screen.split(".", 1)[0]
    return LAUNCHER if app == "system" else f"com.simphone.{app}"


def _activity(screen: str, elements: list[UIElement]) -> str:
    app, _, page = screen.partition(".")
    if app == "system":
        return f"{LAUNCHER}/.Launcher"
    package = _package(screen)
    if any(e.class_name.endswith("TabWidget") for e in elements):
        return f"{package}/.MainActivity"  # tabs are pages of one pager
    if app == "settings":
        return f"{package}/.Settings" if page == "main" else f"{package}/.SubSettings"
    words = "".join(w.capitalize() for w in page.split("_"))
    return f"{package}/.{words}Activity"


def _tree(
    step: Step, screen: str, below: dict[str, tuple[list[UIElement], str]]
) -> tuple[str, list[dict[str, Any]]]:
    """The step's foreground activity and DroidBot views."""
    elements = [
        e for e in step.observation.elements or () if "kb_" not in e.resource_id
    ]  # the keyboard is another window, not in the app's dump
    app = screen.split(".", 1)[0]
    dialog = ".popup_" in screen
    if not dialog:
        below[app] = (elements, _activity(screen, elements))
    page, activity = below.get(app, ([], _activity(screen, elements)))
    tree = _Tree(_package(screen))
    _page_tree(tree, page, app)
    if dialog:  # the page stays below the dialog, in the dialog's activity
        _dialog_tree(tree, elements)
    if int(_md5(screen), 16) % 100 < 100 * BAD_VIEW_SCREENS:
        tree.broken_views(int(_md5(screen), 16))
    return activity, tree.views


def _content_free(view: dict[str, Any]) -> str:
    return f"[class]{view['class']}[resource_id]{view['resource_id']}"


def _skeletons(
    dataset: OdysseyDataset, ids: list[str], screens: dict[str, list[str]]
) -> dict[tuple[str, str], set[str]]:
    """Every (class, id) each screen ever shows, by activity and screen.

    DroidBot's ``state_str_content_free`` hashes the (class, id) pairs of a dump. An app
    whose empty lists and hidden views are in the dump gives one screen one hash whatever
    its content; SimPhone leaves out what is not shown, so the hash is taken over everything
    the screen shows in any of its states, as that app would dump it.
    """
    out: dict[tuple[str, str], set[str]] = {}
    for episode_id in ids:
        below: dict[str, tuple[list[UIElement], str]] = {}
        episode = dataset.load(episode_id)
        for step, screen in zip(episode.steps, screens[episode_id], strict=True):
            activity, views = _tree(step, screen, below)
            out.setdefault((activity, screen), set()).update(_content_free(v) for v in views)
    return out


def _state(
    folder: _Folder, step: Step, screen: str, below: dict[str, tuple[list[UIElement], str]]
) -> str:
    """Write the step's state the first time it is seen; returns its ``state_str``."""
    activity, views = _tree(step, screen, below)
    state_str = _md5(activity + "{" + ",".join(sorted({_signature(v) for v in views})) + "}")
    if state_str in folder.states:
        return state_str  # DroidBot saves a state only the first time it sees it
    content_free = sorted(folder.skeletons[(activity, screen)])
    tag = folder.tag()
    for view in views:
        view["view_str"] = _md5(f"{activity}/{_signature(view)}/{view['temp_id']}")
    data = {
        "tag": tag,
        "state_str": state_str,
        "state_str_content_free": _md5(activity + "{" + ",".join(content_free) + "}"),
        "foreground_activity": activity,
        "activity_stack": [activity],
        "background_services": [],
        "width": WIDTH,
        "height": HEIGHT,
        "views": views,
    }
    states = folder.root / "states"
    (states / f"state_{tag}.json").write_text(json.dumps(data, indent=2))
    _write_jpeg(step, states / f"screen_{tag}.jpg", folder.settings.jpeg_quality)
    folder.states[state_str] = {
        "id": state_str,
        "shape": "image",
        "image": f"states/screen_{tag}.jpg",
        "label": activity.rsplit(".", 1)[-1],
        "package": activity.split("/", 1)[0],
        "activity": activity,
        "state_str": state_str,
        "structure_str": data["state_str_content_free"],
        "_views": views,
    }
    return state_str


def _write_jpeg(step: Step, path: Path, quality: int) -> None:
    """A 1080x2340 JPEG whose EXIF claims 2340x1080 and a rotation (as some phones write)."""
    from PIL import Image

    with step.observation.image() as image:
        big = image.convert("RGB").resize((WIDTH, HEIGHT), Image.Resampling.BILINEAR)
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 (the pixels are already upright)
    exif[0xA002] = HEIGHT  # PixelXDimension, swapped
    exif[0xA003] = WIDTH  # PixelYDimension
    out = io.BytesIO()
    big.save(out, format="JPEG", quality=quality, exif=exif.tobytes())
    path.write_bytes(out.getvalue())


def _signature(view: dict[str, Any]) -> str:
    text = view["text"] if view["text"] and len(view["text"]) <= 50 else "None"
    flags = [k if view.get(k) else "" for k in ("enabled", "checked", "selected")]
    return (
        f"[class]{view['class']}[resource_id]{view['resource_id']}[text]{text}[{','.join(flags)}]"
    )


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def _pixels(x: float, y: float) -> tuple[int, int]:
    return round(x / NORM_MAX * WIDTH), round(y / NORM_MAX * HEIGHT)


class _Tree:
    """A DroidBot ``views`` list under construction (flat; children and parent by index)."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.views: list[dict[str, Any]] = []

    def add(
        self,
        parent: int,
        cls: str,
        box: tuple[int, int, int, int],
        rid: str | None = None,
        **flags: Any,
    ) -> int:
        index = len(self.views)
        x1, y1, x2, y2 = box
        view = {
            "class": cls,
            "resource_id": rid,
            "text": flags.pop("text", None) or None,
            "content_description": flags.pop("content_description", None) or None,
            "bounds": [[x1, y1], [x2, y2]],
            "size": f"{x2 - x1}*{y2 - y1}",
            "children": [],
            "parent": parent,
            "temp_id": index,
            "package": self.package,
            "visible": True,
            "enabled": True,
            "focusable": False,
            **{k: False for k in ("clickable", "long_clickable", "checkable", "checked")},
            **{k: False for k in ("scrollable", "selected", "focused", "editable", "is_password")},
        }
        view.update(flags)
        self.views.append(view)
        if parent >= 0:
            self.views[parent]["children"].append(index)
        return index

    def broken_views(self, seed: int) -> None:
        """A view with inverted bounds and one off screen, as real dumps have."""
        root = 0
        self.add(root, "android.view.View", (700, 1900, 600, 1800))
        if seed % 2:
            self.add(root, "android.widget.ImageView", (1100, 2400, 1300, 2600))
        else:
            self.add(root, "android.widget.ImageView", (-40, 900, 300, 1000))


def _box(element: UIElement) -> tuple[int, int, int, int]:
    b = element.bbox
    x1, y1 = _pixels(b.x1, b.y1)
    x2, y2 = _pixels(b.x2, b.y2)
    return x1, y1, x2, y2


def _union(boxes: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    if not boxes:
        return 0, 0, WIDTH, HEIGHT
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _window(tree: _Tree, box: tuple[int, int, int, int]) -> int:
    """A window's framework containers: decor, its linear layout, ``android:id/content``."""
    decor = tree.add(-1, "android.widget.FrameLayout", box)
    linear = tree.add(decor, "android.widget.LinearLayout", box)
    return tree.add(linear, "android.widget.FrameLayout", box, "android:id/content")


def _app_id(package: str, element: UIElement) -> str | None:
    name = element.resource_id.partition(":id/")[2] or element.resource_id
    if not name:
        return None
    return f"{package}:id/{_ROW_SUFFIX.sub('', name)}"  # rows of a list share one id


def _page_tree(tree: _Tree, elements: list[UIElement], app: str) -> None:
    package = tree.package
    content = _window(tree, (0, 0, WIDTH, HEIGHT))
    if app == "system":
        grid = tree.add(content, "android.view.ViewGroup", (0, 80, WIDTH, HEIGHT))
        for element in elements:
            cell = tree.add(grid, "android.widget.FrameLayout", _box(element))
            _leaf(tree, cell, element, None)
        return
    coordinator = tree.add(
        content, "androidx.coordinatorlayout.widget.CoordinatorLayout", (0, 0, WIDTH, HEIGHT)
    )
    titles = [e for e in elements if e.resource_id.endswith(":id/title")]
    navs = [e for e in elements if e.resource_id.endswith(":id/nav_up")]
    tabs = [e for e in elements if e.class_name.endswith("TabWidget")]
    rest = [e for e in elements if e not in titles and e not in navs and e not in tabs]
    bar_box = _union([_box(e) for e in titles + navs]) if titles or navs else (0, 72, WIDTH, 228)
    toolbar_id = "android:id/action_bar" if app == "settings" else f"{package}:id/toolbar"
    appbar = tree.add(coordinator, "com.google.android.material.appbar.AppBarLayout", bar_box)
    toolbar = tree.add(appbar, "androidx.appcompat.widget.Toolbar", bar_box, toolbar_id)
    for nav in navs:
        tree.add(
            toolbar,
            "android.widget.ImageButton",
            _box(nav),
            content_description="Navigate up",
            clickable=True,
        )
    for title in titles:  # the title has no id: only where it sits says it is the title
        tree.add(toolbar, "android.widget.TextView", _box(title), text=title.text)
    body_box = (0, bar_box[3], WIDTH, HEIGHT)
    if tabs:
        strip = tree.add(
            coordinator,
            "com.google.android.material.tabs.TabLayout",
            _union([_box(t) for t in tabs]),
            f"{package}:id/tabs",
        )
        for tab in tabs:
            tree.add(
                strip,
                "com.google.android.material.tabs.TabLayout$TabView",
                _box(tab),
                text=tab.text,
                clickable=True,
                selected=tab.checked,
            )
        pager = "androidx.viewpager.widget.ViewPager"
        body = tree.add(coordinator, pager, body_box, f"{package}:id/pager", scrollable=True)
    else:
        body = tree.add(
            coordinator, "android.widget.FrameLayout", body_box, f"{package}:id/fragment"
        )
    holder = tree.add(body, "android.widget.LinearLayout", body_box)
    for element in rest:
        if app == "settings":
            _preference(tree, holder, element)
        else:
            wrapper = tree.add(holder, "android.widget.LinearLayout", _box(element))
            _leaf(tree, wrapper, element, _app_id(package, element))


def _leaf(tree: _Tree, parent: int, element: UIElement, rid: str | None) -> int:
    return tree.add(
        parent,
        element.class_name or "android.view.View",
        _box(element),
        rid,
        text=element.text,
        content_description=element.content_desc,
        clickable=element.clickable,
        long_clickable=element.clickable,
        editable=element.editable,
        focusable=element.clickable or element.editable,
        focused=element.focused,
        checkable=element.class_name.endswith(("Switch", "CompoundButton")),
        checked=element.checked,
        scrollable=element.scrollable,
    )


def _preference(tree: _Tree, parent: int, element: UIElement) -> None:
    """A settings row: framework ids only, as every preference screen has them."""
    box = _box(element)
    row = tree.add(parent, "android.widget.LinearLayout", box, clickable=element.clickable)
    frame = tree.add(row, "android.widget.RelativeLayout", box)
    label = element.text or element.content_desc or element.resource_id.rsplit("/", 1)[-1]
    tree.add(frame, "android.widget.TextView", box, "android:id/title", text=label)
    if element.class_name.endswith(("Switch", "CompoundButton")):
        widget = tree.add(row, "android.widget.LinearLayout", box, "android:id/widget_frame")
        tree.add(
            widget,
            "android.widget.Switch",
            box,
            "android:id/switch_widget",
            checkable=True,
            checked=element.checked,
            clickable=element.clickable,
        )


def _dialog_tree(tree: _Tree, elements: list[UIElement]) -> None:
    """A dialog: a second window root over the page, with the ids every dialog has."""
    box = _union([_box(e) for e in elements])
    content = _window(tree, box)
    panel = tree.add(content, "android.widget.LinearLayout", box, "android:id/parentPanel")
    buttons = None
    listing = None
    for element in elements:
        name = element.resource_id.rsplit("/", 1)[-1]
        if name == "dialog_title":
            tree.add(panel, "android.widget.TextView", _box(element), "android:id/alertTitle",
                     text=element.text)  # fmt: skip
        elif name == "dialog_message":
            scroll = tree.add(panel, "android.widget.ScrollView", _box(element),
                              "android:id/scrollView")  # fmt: skip
            tree.add(scroll, "android.widget.TextView", _box(element), "android:id/message",
                     text=element.text)  # fmt: skip
        elif element.class_name.endswith("Button"):
            if buttons is None:
                buttons = tree.add(panel, "android.widget.LinearLayout", _box(element),
                                   "android:id/buttonPanel")  # fmt: skip
            number = _DIALOG_BUTTONS.get(name, 3)
            tree.add(buttons, "android.widget.Button", _box(element), f"android:id/button{number}",
                     text=element.text, clickable=True)  # fmt: skip
        else:
            if listing is None:
                listing = tree.add(panel, "android.widget.ListView", _box(element),
                                   "android:id/select_dialog_listview",
                                   scrollable=True)  # fmt: skip
            tree.add(listing, "android.widget.TextView", _box(element), "android:id/text1",
                     text=element.text or element.content_desc, clickable=True)  # fmt: skip


def _write_utg(folder: _Folder) -> None:
    nodes = [{k: v for k, v in node.items() if k != "_views"} for node in folder.states.values()]
    utg = {
        "nodes": nodes,
        "edges": list(folder.edges.values()),
        "num_nodes": len(nodes),
        "num_edges": len(folder.edges),
        "num_effective_events": folder.events,
        "num_input_events": folder.events,
        "test_date": "2024-03-01 09:00:00",
        "time_spent": 3 * folder.events,
        "device_serial": "emulator-5554",
        "device_model_number": "Pixel 6",
        "device_sdk_version": 33,
        "app_package": folder.package,
        "app_main_activity": f"{folder.package}/.MainActivity",
    }
    text = "var utg = \n" + json.dumps(utg, indent=2)
    (folder.root / "utg.js").write_text(text)
