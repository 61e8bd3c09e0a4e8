"""The generalization benchmark's items: reworded seen tasks and new pairings, as data.

``generalize.toml`` (next to this module) was written once; this module reads it into typed
items, renders a wording for a seeded task, and splits the items into a development half and
a frozen evaluation half. The split depends on nothing but the items' ids, so it cannot be
steered by outcomes: a reworded template's wordings are ranked by a hash of their ids and dealt
alternately to the halves (every template has wordings in both), and the pairings are dealt
whole the same way (a frozen pairing's apps are never paired in the development half).
"""

from __future__ import annotations

import calendar
import hashlib
import random
import string
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path

from guigraph.envs.simphone.pairings import PAIRINGS, READINGS, USES, pairing_template
from guigraph.envs.simphone.templates import TEMPLATES, Params
from guigraph.envs.simphone.world import World
from guigraph.errors import ConfigError
from guigraph.types import Task

BENCHMARK_FILE = "generalize.toml"


class Half(StrEnum):
    DEV = "dev"
    FROZEN = "frozen"


class Kind(StrEnum):
    """What an item tests: a recorded template in new words, the same tasks in the recorded
    wording (the reference the reworded ones are held to), or a new pairing."""

    REWORDED = "reworded"
    RECORDED = "recorded"
    PAIRING = "pairing"


@dataclass(frozen=True)
class Item:
    """One wording of one task template: the unit the benchmark runs on several seeds."""

    item_id: str
    kind: Kind
    template_id: str
    wording: str
    #: What the split deals as a whole: the template (reworded) or the pairing.
    group: str


# Rendering ------------------------------------------------------------------------------------
_ONES = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
#: ``Jun`` -> ``June`` (the English month names, as the suite's dates are written).
_MONTHS = dict(zip(calendar.month_abbr[1:], calendar.month_name[1:], strict=True))


def spell_number(number: int) -> str:
    """English words for 0-999, hyphenated as written (``25`` -> ``twenty-five``)."""
    if not 0 <= number < 1000:
        raise ValueError(f"can only spell 0-999, got {number}")
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    hundreds, rest = divmod(number, 100)
    return f"{_ONES[hundreds]} hundred" + (f" and {spell_number(rest)}" if rest else "")


def _twelve_hour(time: str) -> str:
    hours, minutes = (int(part) for part in time.split(":"))
    suffix = "am" if hours < 12 else "pm"
    return f"{(hours - 1) % 12 + 1}:{minutes:02d} {suffix}"


#: Format specs a wording may put on a placeholder: another form of the same parameter.
FORMS: Mapping[str, Callable[[str], str]] = {
    "words": lambda v: spell_number(int(v)),
    "hour": lambda v: f"{int(v.split(':')[0])}:{v.split(':')[1]}",
    "12h": _twelve_hour,
    "month": lambda v: " ".join(_MONTHS.get(w, w) for w in v.split()),
    "switch": lambda v: {"on": "enable", "off": "disable"}[v],
    "lower": str.lower,
}


class _WordingFormatter(string.Formatter):
    def format_field(self, value: object, format_spec: str) -> str:
        if not format_spec:
            return str(value)
        return FORMS[format_spec](str(value))


def render(wording: str, params: Params) -> str:
    """The instruction: ``wording`` filled with ``params`` (first letter upper-cased, as a
    sentence starts)."""
    text = _WordingFormatter().format(wording, **params)
    return text[:1].upper() + text[1:]


def _placeholders(wording: str) -> list[tuple[str, str]]:
    return [(name, spec or "") for _, name, spec, _ in string.Formatter().parse(wording) if name]


# Loading ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Benchmark:
    items: tuple[Item, ...]
    source: str

    def half(self, half: Half) -> list[Item]:
        return [item for item in self.items if split(self.items)[item.item_id] is half]


def load(path: Path | None = None) -> Benchmark:
    """The benchmark in ``path`` (default: the packaged ``generalize.toml``), validated: a
    wording may only use its template's parameters and the known forms."""
    if path is None:
        text = resources.files("guigraph.envs.simphone").joinpath(BENCHMARK_FILE).read_text()
        source = BENCHMARK_FILE
    else:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the benchmark ({exc.strerror})") from None
        source = str(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from None
    items = [
        *_reworded(data.get("reworded", []), source),
        *_pairings(data.get("pairing", []), source),
    ]
    ids = [item.item_id for item in items]
    if len(set(ids)) != len(ids):
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        raise ConfigError(f"{source}: items listed twice: {duplicated}")
    return Benchmark(tuple(items), source)


@cache
def packaged() -> Benchmark:
    """The packaged benchmark, read once (it also registers the pairing templates)."""
    return load()


def _entry_wordings(entry: Mapping[str, object], where: str) -> list[str]:
    wordings = entry.get("wordings")
    if (
        not isinstance(wordings, list)
        or not wordings
        or not all(isinstance(w, str) and w.strip() for w in wordings)
    ):
        raise ConfigError(f"{where}.wordings: expected a non-empty list of non-empty strings")
    return wordings


def _check_placeholders(wording: str, allowed: Iterable[str], where: str) -> None:
    allowed = set(allowed)
    try:
        fields = _placeholders(wording)
    except ValueError as exc:
        raise ConfigError(f"{where}: {wording!r} is not a valid wording ({exc})") from None
    for name, spec in fields:
        if name not in allowed:
            raise ConfigError(
                f"{where}: {wording!r} uses {{{name}}}; this task has {sorted(allowed)}"
            )
        if spec and spec not in FORMS:
            raise ConfigError(
                f"{where}: {wording!r}: unknown form {spec!r}; known: {sorted(FORMS)}"
            )


def _reworded(entries: list[dict[str, object]], source: str) -> list[Item]:
    items = []
    for n, entry in enumerate(entries):
        where = f"{source}: reworded[{n}]"
        template_id = str(entry.get("template", ""))
        template = TEMPLATES.get(template_id)
        if template is None or template.recombines:
            raise ConfigError(
                f"{where}.template: expected a recorded SimPhone template, got {template_id!r}"
            )
        params = _parameter_names(template.sample)
        for k, wording in enumerate(_entry_wordings(entry, where)):
            _check_placeholders(wording, params, f"{where}.wordings[{k}]")
            items.append(
                Item(f"{template_id}#{k}", Kind.REWORDED, template_id, wording, template_id)
            )
    return items


def _pairings(entries: list[dict[str, object]], source: str) -> list[Item]:
    items = []
    for n, entry in enumerate(entries):
        where = f"{source}: pairing[{n}]"
        pairing_id = str(entry.get("id", ""))
        if not pairing_id.isidentifier():
            raise ConfigError(
                f"{where}.id: expected a name of letters, digits and _, got {pairing_id!r}"
            )
        reading = READINGS.get(str(entry.get("reading", "")))
        use = USES.get(str(entry.get("use", "")))
        if reading is None or use is None:
            raise ConfigError(
                f"{where}: reading must be one of {sorted(READINGS)} and use one of "
                f"{sorted(USES)}, got {entry.get('reading')!r} and {entry.get('use')!r}"
            )
        wordings = _entry_wordings(entry, where)
        template = pairing_template(pairing_id, reading, use, tuple(wordings))
        params = _parameter_names(template.sample)
        for k, wording in enumerate(wordings):
            _check_placeholders(wording, params, f"{where}.wordings[{k}]")
            items.append(
                Item(
                    f"{template.template_id}#{k}",
                    Kind.PAIRING,
                    template.template_id,
                    wording,
                    pairing_id,
                )
            )
        PAIRINGS[template.template_id] = template
    return items


def _parameter_names(sample: Callable[[random.Random, World], Params]) -> set[str]:
    """The parameters a template's sampler gives (the same names for every world)."""
    return set(sample(random.Random(0), World(0)))


# The split ---------------------------------------------------------------------------------------
def _rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def split(items: Iterable[Item]) -> dict[str, Half]:
    """Item id -> half. Reworded items are dealt within their template, pairings whole (all
    wordings of a pairing in one half); in both, by the rank of a hash of the id, alternately
    starting with the development half."""
    items = list(items)
    halves: dict[str, Half] = {}
    by_template: dict[str, list[Item]] = {}
    for item in items:
        if item.kind is Kind.REWORDED:
            by_template.setdefault(item.group, []).append(item)
    for group in by_template.values():
        for n, item in enumerate(sorted(group, key=lambda i: _rank(i.item_id))):
            halves[item.item_id] = Half.DEV if n % 2 == 0 else Half.FROZEN
    pairings = sorted({i.group for i in items if i.kind is Kind.PAIRING}, key=_rank)
    pairing_half = {p: Half.DEV if n % 2 == 0 else Half.FROZEN for n, p in enumerate(pairings)}
    for item in items:
        if item.kind is Kind.PAIRING:
            halves[item.item_id] = pairing_half[item.group]
    return halves


# Tasks -------------------------------------------------------------------------------------------
def item_task(item: Item, seed: int) -> Task:
    """The seeded task of ``item``: the template's parameters for world ``seed`` (as
    ``make_task`` samples them), with the item's wording as the instruction."""
    from guigraph.envs.simphone.tasks import get_template, make_task

    template = get_template(item.template_id)
    if item.kind is Kind.PAIRING:
        params = template.sample(random.Random(f"{item.template_id}/{seed}"), World(seed))
        base = Task(
            task_id="", instruction="", category=template.category, apps=template.apps,
            template_id=template.template_id, params=params,
        )  # fmt: skip
    else:
        base = make_task(item.template_id, seed)
    if item.kind is Kind.RECORDED:
        return base
    return Task(
        task_id=f"{item.item_id}/{seed}",
        instruction=render(item.wording, dict(base.params)),
        category=base.category,
        apps=base.apps,
        template_id=base.template_id,
        params=base.params,
    )


def recorded_item(template_id: str) -> Item:
    """The recorded wording of a template: ``make_task``'s own instruction."""
    return Item(f"{template_id}#recorded", Kind.RECORDED, template_id, "", template_id)
