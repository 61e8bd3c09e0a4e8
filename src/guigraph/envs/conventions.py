"""Platform conventions: what a world's screens mean that no UI tree says outright.

Which app is the home screen, which button words close a pop-up, which texts mean "still
loading", how an element id names the app and the field it belongs to, which screen fields a
question word asks for. These differ between Android, the web and any other world, so every
world supplies its own :class:`Conventions` (``Env.conventions``) and code above ``envs/``
reads them from there, never from constants of its own.

The team reads the conventions in force through :func:`active`; the episode loop sets them
from the environment it drives (:func:`using`), so a role deep in the planner need not be
handed them through every call.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
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
        return frozenset(w for w in re.split(r"[^a-z0-9]+", self.name.lower()) if w)


#: What a question asks for, as the words of the screen fields that answer it.
ENGLISH_QUESTION_FIELDS: Mapping[str, frozenset[str]] = {
    "who": frozenset({"artist", "author", "sender", "singer", "name", "organizer"}),
    "when": frozenset({"time", "date", "when"}),
    "where": frozenset({"location", "address", "place", "city"}),
    "how much": frozenset({"price", "cost", "total"}),
    "how many": frozenset({"count", "total", "number"}),
}


#: Number words of English: a task may spell out ("twenty-five minutes") what a screen shows
#: in digits. Compounds of a tens word and a ones word are read as their sum.
ENGLISH_NUMBER_WORDS: Mapping[str, int] = {
    **{w: n for n, w in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen",
    ))},
    **{w: 10 * n for n, w in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), start=2
    )},
    "hundred": 100,
}  # fmt: skip

#: English marks of the half of a day a 12-hour time is in -> the hours they add.
ENGLISH_DAY_HALVES: Mapping[str, int] = {"am": 0, "a.m.": 0, "pm": 12, "p.m.": 12}

#: Words of English that stand for something the task said before ("add it to the calendar").
ENGLISH_PRONOUNS = frozenset({"it", "this", "that", "them"})
#: Words before a noun phrase that are not part of a thing's name ("the trip" is "Trip").
ENGLISH_ARTICLES = ("a", "an", "the", "my", "our")
#: Prepositions that start a date, time or place detail of a thing, not part of its name
#: ("a trip to Cairo on Jul 24": the name ends before "on").
ENGLISH_DETAIL_PREPOSITIONS = ("on", "at", "for", "by", "from", "until")
#: Words that open a question.
ENGLISH_QUESTION_WORDS = frozenset({"who", "what", "when", "where", "which", "how"})
#: Verbs whose object question wants its answer passed on ("Tell Dana who sings X"), where
#: another verb would pass the question itself ("Ask Dana who sings X").
ENGLISH_ANSWER_VERBS = frozenset({"tell"})
#: Words that join the parts of a task in several steps ("open the note and text it").
ENGLISH_CLAUSE_JOINERS = ("and", "then")


@dataclass(frozen=True, slots=True)
class TaskLanguage:
    """What the model-free planner reads of the task's language as plain words: which words
    carry no meaning, how a plural is folded, which words after a number mean "%", how a
    possessive ends. Empty fields switch the rule off."""

    #: Words that carry no meaning of their own ("the", "please", "what").
    stopwords: frozenset[str] = frozenset()
    #: Folded off words longer than four letters, not when doubled ("bookmarks", "glass").
    plural_suffix: str = ""
    #: Words that, after a number, are the screens' "%" ("70 percent").
    percent_words: tuple[str, ...] = ()
    #: Endings of a possessive ("Oslo's temperature" names Oslo).
    possessive_suffixes: tuple[str, ...] = ()


ENGLISH = TaskLanguage(
    stopwords=frozenset(
        (
            "a",
            "an",
            "the",
            "and",
            "or",
            "to",
            "of",
            "in",
            "on",
            "at",
            "for",
            "by",
            "with",
            "from",
            "it",
            "its",
            "my",
            "me",
            "i",
            "is",
            "are",
            "be",
            "this",
            "that",
            "then",
            "up",
            "down",
            "into",
            "under",
            "over",
            "as",
            "please",
            "can",
            "you",
            "your",
            "what",
            "how",
            "who",
            "which",
            "about",
        )
    ),
    plural_suffix="s",
    percent_words=("percent", "per cent"),
    possessive_suffixes=("'s", "’s"),
)

#: A number joined to its unit by a hyphen ("25-minute", "70-percent"): the unit is a word.
_NUMBER_HYPHEN_UNIT = re.compile(r"(?<![\w-])(\d+)-(?=[^\W\d])")
#: Text in quotes is a value to type as written ("Text Bo 'one more thing'").
_QUOTED = re.compile(r"""(?<!\w)(['"‘“]).*?(?:['"’”])(?!\w)""")


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
    #: Question word -> field-name words that answer it.
    question_fields: Mapping[str, frozenset[str]] = field(default_factory=dict)
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
    #: Number words of the world's language -> their value (``ENGLISH_NUMBER_WORDS``).
    number_words: Mapping[str, int] = field(default_factory=dict)
    #: Marks of a 12-hour time's half of the day -> hours added (``ENGLISH_DAY_HALVES``).
    day_halves: Mapping[str, int] = field(default_factory=dict)
    #: The rest of what the model-free team reads of the task's language (``ENGLISH_*``):
    #: pronouns, articles, prepositions of a detail, question words, answer verbs. Empty
    #: means the rules that use them do not apply.
    pronouns: frozenset[str] = frozenset()
    articles: tuple[str, ...] = ()
    detail_prepositions: tuple[str, ...] = ()
    question_words: frozenset[str] = frozenset()
    answer_verbs: frozenset[str] = frozenset()
    #: Words joining a task's parts; with none, only ":", ";" and "," split a task.
    clause_joiners: tuple[str, ...] = ()
    #: The task language's words the planner reads as plain words (``ENGLISH``).
    language: TaskLanguage = TaskLanguage()

    def with_digits(self, text: str) -> str:
        """``text`` with its spelled-out numbers in digits, as screens show them ("a
        twenty-five-minute timer" -> "a 25 minute timer"); quoted text is kept as written."""
        if not self.number_words:
            return text
        return _outside_quotes(text, self._digits)

    def _digits(self, text: str) -> str:
        words = "|".join(sorted(map(re.escape, self.number_words), key=len, reverse=True))
        compound = re.compile(rf"\b({words})(?:[- ]({words}))?\b(-?)", re.IGNORECASE)

        def number(match: re.Match[str]) -> str:
            first = self.number_words[match.group(1).lower()]
            second = self.number_words[match.group(2).lower()] if match.group(2) else None
            if second is not None and first >= 20 and first % 10 == 0 and 0 < second < 10:
                value = str(first + second)
            elif second == 100 and 0 < first < 10:  # "one hundred"
                value = str(first * 100)
            elif second is not None:  # "one two": two numbers, not one
                return f"{first} {second}" + (" " if match.group(3) else "")
            else:
                value = str(first)
            return value + (" " if match.group(3) else "")

        return _NUMBER_HYPHEN_UNIT.sub(r"\1 ", compound.sub(number, text))

    def with_24_hour_clock(self, text: str) -> str:
        """``text`` with its 12-hour times on the 24-hour clock ("at 10:00 pm" -> "at
        22:00", "at 7 am" -> "at 7:00"); quoted text is kept as written. For a world whose
        screens write times on the 24-hour clock: the caller knows whether they do."""
        if not self.day_halves:
            return text
        time = _twelve_hour_time(tuple(self.day_halves))

        def clock(match: re.Match[str]) -> str:
            hours = int(match.group(1)) % 12 + self.day_halves[match.group(3).lower()]
            return f"{hours}:{match.group(2) or '00'}"

        return _outside_quotes(text, lambda part: time.sub(clock, part))

    def is_home(self, app: str | None) -> bool:
        return (app or "").strip().lower() in self.home_apps

    def is_dismissal(self, label: str) -> bool:
        return label.strip().lower() in self.dismiss_labels

    def is_loading(self, texts: tuple[str, ...] | list[str]) -> bool:
        """A screen of a few texts, one of which says it is loading."""
        lowered = [t.lower() for t in texts]
        return len(lowered) <= 4 and any(w in t for t in lowered for w in self.loading_texts)

    def is_transient(self, field_name: str) -> bool:
        return bool(ElementId("", field_name).words & self.transient_words)

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
        rid = resource_id.strip()
        if not rid or rid.startswith(ID_LESS_KEY):  # no id, or the key of an id-less element
            return ElementId("", "")
        if self.id_scheme is IdScheme.ANDROID:
            app, sep, name = rid.partition(":id/")
            if sep:
                return ElementId(app, name)
            return ElementId("", rid.rsplit("/", 1)[-1])
        if self.id_scheme is IdScheme.HTML:
            return ElementId("", rid.lstrip("#"))
        return ElementId("", "")


def _outside_quotes(text: str, rewrite: Callable[[str], str]) -> str:
    """``text`` with ``rewrite`` applied to everything outside its quoted spans."""
    out: list[str] = []
    last = 0
    for start, end in [*(m.span() for m in _QUOTED.finditer(text)), (len(text), len(text))]:
        out.append(rewrite(text[last:start]))
        out.append(text[start:end])
        last = end
    return "".join(out)


@functools.lru_cache(maxsize=8)
def _twelve_hour_time(marks: tuple[str, ...]) -> re.Pattern[str]:
    """A 12-hour time with one of ``marks`` after it ("10:00 pm", "7am")."""
    either = "|".join(sorted(map(re.escape, marks), key=len, reverse=True))
    return re.compile(rf"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*({either})(?!\w)", re.IGNORECASE)


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

#: What both platforms read of tasks written in English; each platform adds its own.
_ENGLISH_TASKS = Conventions(
    name="english",
    question_fields=ENGLISH_QUESTION_FIELDS,
    number_words=ENGLISH_NUMBER_WORDS,
    day_halves=ENGLISH_DAY_HALVES,
    pronouns=ENGLISH_PRONOUNS,
    articles=ENGLISH_ARTICLES,
    detail_prepositions=ENGLISH_DETAIL_PREPOSITIONS,
    question_words=ENGLISH_QUESTION_WORDS,
    answer_verbs=ENGLISH_ANSWER_VERBS,
    clause_joiners=ENGLISH_CLAUSE_JOINERS,
    language=ENGLISH,
)

#: Android's defaults: launcher packages and the system's own pop-up words.
ANDROID = replace(
    _ENGLISH_TASKS,
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
WEB = replace(
    _ENGLISH_TASKS,
    name="web",
    id_scheme=IdScheme.HTML,
    home_apps=frozenset({"", "about:blank"}),
    dismiss_labels=_POPUP_WORDS | {"accept", "got it", "×", "x", "reject all"},
    loading_texts=("loading", "please wait"),
    transient_words=frozenset({"modal", "dialog", "toast", "banner", "cookie", "popup"}),
    opens_apps_by="url",
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
