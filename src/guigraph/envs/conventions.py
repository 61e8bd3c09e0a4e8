"""Platform conventions: what a world's screens mean that no UI tree says outright.

Which app is the home screen, which button words close a pop-up, which texts mean "still
loading", how an element id names the app and the field it belongs to. These differ between
Android, the web and any other world, so every
world supplies its own :class:`Conventions` (``Env.conventions``) and code above ``envs/``
reads them from there, never from constants of its own. The task's language is no platform
convention: it is the task's (``guigraph.language``).

The team reads the conventions in force through :func:`active`; the episode loop sets them
from the environment it drives (:func:`using`), so a role deep in the planner need not be
handed them through every call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum

from guigraph.types import ID_LESS_KEY


class IdScheme(StrEnum):
    """How a world writes element ids."""

    ANDROID = "android"  # ``package:id/name`` (``com.example.app:id/price``, ``shop:id/price``)
    HTML = "html"  # a DOM id (``#price``, ``price``); the page is the "app"
    NONE = "none"  # no ids at all: elements carry text, role and bounds only


@dataclass(frozen=True, slots=True)
class ElementId:
    """An element id split into the app it belongs to and its field name (both may be "")."""

    app: str
    name: str

    @property
    def words(self) -> frozenset[str]:
        """The lower-case words of the field name (``total_price`` -> total, price)."""
        return _name_words(self.name)


# Remembered: planning reads the ids of the same few hundred elements hundreds of thousands of
# times a task set.
@functools.lru_cache(maxsize=65536)
def _name_words(name: str) -> frozenset[str]:
    return frozenset(w for w in re.split(r"[^a-z0-9]+", name.lower()) if w)


@functools.lru_cache(maxsize=65536)
def _split_id(scheme: IdScheme, resource_id: str) -> ElementId:
    rid = resource_id.strip()
    if not rid or rid.startswith(ID_LESS_KEY):  # no id, or the key of an id-less element
        return ElementId("", "")
    if scheme is IdScheme.ANDROID:
        app, sep, name = rid.partition(":id/")
        if sep:
            return ElementId(app, name)
        return ElementId("", rid.rsplit("/", 1)[-1])
    if scheme is IdScheme.HTML:
        return ElementId("", rid.lstrip("#"))
    return ElementId("", "")


@dataclass(frozen=True, slots=True)
class Conventions:
    """One platform's conventions. Compare words lower-cased and stripped."""

    name: str
    id_scheme: IdScheme = IdScheme.ANDROID
    #: App names that mean "the home screen / launcher" ("" is no app at all).
    home_apps: frozenset[str] = frozenset({""})
    #: Button labels that close a pop-up without doing the task's work.
    dismiss_labels: frozenset[str] = frozenset()
    #: Texts a screen shows while it is still loading.
    loading_texts: tuple[str, ...] = ()
    #: Id words of transient surfaces (dialogs, toasts) whose text is never a workflow value.
    transient_words: frozenset[str] = frozenset()
    #: How the world opens an app: by launcher label / package, or by URL.
    opens_apps_by: str = "launcher"
    #: Element classes (roles) one types into, beside any with "edit" in the name (EditText).
    field_classes: frozenset[str] = frozenset()
    #: Apps whose ids are the platform's own, shared by every app's screens (Android's
    #: ``android:id/content``, ``android:id/title``): they tell screens apart little.
    framework_apps: frozenset[str] = frozenset()
    #: Class-name endings of layout containers; one with no id and no text is scaffolding.
    container_classes: tuple[str, ...] = ()
    #: Field names of ids that hold a page's title (in the app's own ids, not the framework's).
    title_names: frozenset[str] = frozenset()
    #: Class-name endings and id names of title bars: the first text inside one is the title.
    title_bar_classes: tuple[str, ...] = ()
    title_bar_names: frozenset[str] = frozenset()
    #: Full ids that only a dialog's (or another overlay window's) tree has.
    window_ids: frozenset[str] = frozenset()
    #: Full ids of dialog titles (a dialog's name).
    dialog_title_ids: frozenset[str] = frozenset()
    #: Class-name endings of pagers and tab strips: a sideways swipe on one may change page.
    pager_classes: tuple[str, ...] = ()
    #: Whether a home screen leads to other apps (a phone's); a web page or a desktop window
    #: stays the app its task began in.
    home_screen: bool = True

    def is_home(self, app: str | None) -> bool:
        return (app or "").strip().lower() in self.home_apps

    def is_dismissal(self, label: str) -> bool:
        return label.strip().lower() in self.dismiss_labels

    def is_loading(self, texts: tuple[str, ...] | list[str]) -> bool:
        """A screen of a few texts, one of which says it is loading."""
        lowered = [t.lower() for t in texts]
        return len(lowered) <= 4 and any(w in t for t in lowered for w in self.loading_texts)

    def is_transient(self, field_name: str) -> bool:
        return bool(_name_words(field_name) & self.transient_words)

    def is_field_class(self, class_name: str) -> bool:
        """Whether an element of this class (``android.widget.EditText``, ``textbox``) is a
        text field."""
        name = class_name.rsplit(".", 1)[-1].strip().lower()
        return "edit" in name or name in self.field_classes

    def is_framework_id(self, resource_id: str) -> bool:
        return bool(resource_id) and self.parse_id(resource_id).app in self.framework_apps

    def is_container(self, class_name: str) -> bool:
        return bool(self.container_classes) and class_name.endswith(self.container_classes)

    def parse_id(self, resource_id: str) -> ElementId:
        """``shop:id/price`` -> (shop, price) on Android; ``#price`` -> ("", price) on the web."""
        return _split_id(self.id_scheme, resource_id)


_POPUP_WORDS = frozenset(
    {
        "not now",
        "no thanks",
        "no, thanks",
        "later",
        "maybe later",
        "deny",
        "don't allow",
        "close",
        "skip",
        "dismiss",
    }
)

#: Names a launcher goes by on Android: its package, or the label a recorder gives it.
_LAUNCHERS = frozenset(
    {"", "home", "launcher", "com.android.launcher3", "com.google.android.apps.nexuslauncher"}
)

#: Android's defaults: launcher packages and the system's own pop-up words.
ANDROID = Conventions(
    name="android",
    id_scheme=IdScheme.ANDROID,
    home_apps=_LAUNCHERS,
    dismiss_labels=_POPUP_WORDS,
    loading_texts=("loading", "please wait"),
    transient_words=frozenset({"dialog", "popup", "alert", "toast", "snackbar"}),
    framework_apps=frozenset({"android"}),
    container_classes=(
        "Layout",
        "ViewGroup",
        "ViewPager",
        "ViewPager2",
        "ScrollView",
        "RecyclerView",
        "ListView",
        "GridView",
        "android.view.View",
        "ViewStub",
        "ViewAnimator",
        "ViewFlipper",
    ),
    title_names=frozenset({"title", "toolbar_title", "action_bar_title", "page_title"}),
    title_bar_classes=("Toolbar", "ActionBar", "ActionBarContainer"),
    title_bar_names=frozenset({"toolbar", "action_bar", "app_bar", "action_bar_container"}),
    window_ids=frozenset(
        {
            "android:id/parentPanel",
            "android:id/alertTitle",
            "android:id/buttonPanel",
            "android:id/contentPanel",
            "android:id/select_dialog_listview",
        }
    ),
    dialog_title_ids=frozenset({"android:id/alertTitle"}),
    pager_classes=("ViewPager", "ViewPager2", "TabLayout", "TabWidget", "TabLayout$TabView"),
)

#: A web profile: the page is the app, DOM ids, cookie banners and modal close buttons.
WEB = Conventions(
    name="web",
    id_scheme=IdScheme.HTML,
    home_apps=frozenset({"", "about:blank"}),
    dismiss_labels=_POPUP_WORDS | {"accept", "got it", "×", "x", "reject all"},
    loading_texts=("loading", "please wait"),
    transient_words=frozenset({"modal", "dialog", "toast", "banner", "cookie", "popup"}),
    opens_apps_by="url",
    home_screen=False,
    # ARIA roles of fields (a <select> is typed into too: its option's label).
    field_classes=frozenset({"textbox", "searchbox", "combobox", "spinbutton", "listbox"}),
)

_ACTIVE: ContextVar[Conventions] = ContextVar("guigraph_conventions", default=ANDROID)


def active() -> Conventions:
    """The conventions of the world being acted in or built from (Android by default)."""
    return _ACTIVE.get()


@contextmanager
def using(conventions: Conventions) -> Iterator[Conventions]:
    """Make ``conventions`` the active ones for the duration of a block."""
    token = _ACTIVE.set(conventions)
    try:
        yield conventions
    finally:
        _ACTIVE.reset(token)
