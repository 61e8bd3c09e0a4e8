"""The golden corpus: the model-free compiler's specification, as data.

Every wording the benchmarks and tests use (the generalization benchmark's development half,
the fresh sets of ``bench/fresh_pairings.py``, their lower-cased forms, the binding tests'
sentence pairs) is a case with what a right plan does: the apps it works in, in order, the
task's value for each slot it fills, and which recorded workflows it may follow. A case is
judged on the plan alone, without acting (``plan_signature``), so the whole corpus runs in
seconds on one knowledge base (``tests/golden/kb``: the demo's KB, stripped of screenshots).
A second world's cases live in a folder of their own with its KB and a ``world.json`` naming
the world (``tests/golden/dokuwiki``: DokuWiki's development splits; ``tests/golden/desktop``:
the desktop bench's development part; ``tests/golden/miniwob``: development seeds of every
demonstrated MiniWoB++ task, each with the screen it starts on, ``screens.jsonl``), planned
under the conventions that world's episodes run under.

Each case also carries whether the code that wrote the corpus held it (``held``, per KB
label), so a redesign is held to "lose no case it holds today" (``tests/golden``).

- A *plan case* is a task on a KB: ``values`` maps the task's parameters that a plan fills
  from the instruction (a city, a contact; not the wifi switch's "on", which is a control) to
  the value the task gives, ``apps`` the app order of a plan that does it, and ``donors`` the
  sets of recorded templates a plan may follow (empty: any).
- A *slot case* is one recorded value and its instruction against a new instruction: the
  value the new one gives in its place, or none (``expected`` None).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

# A count is judged as the compiler counts one: fewer taps in a row are no evidence of it.
from guigraph.compiler.counts import MIN_REPEATS
from guigraph.errors import ConfigError

if TYPE_CHECKING:
    from guigraph.compiler.index import GraphView
    from guigraph.compiler.stitch import PlanChoice
    from guigraph.envs.conventions import Conventions
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.graph.records import ActionTemplate, Edge, Trace
    from guigraph.types import Observation

PLAN_CASES = "plans.jsonl"
SLOT_CASES = "slots.jsonl"
#: Recorded episode -> the template it was recorded from (the KB keeps no template ids).
TEMPLATES_FILE = "templates.json"
#: A corpus folder's world and its own KB's label (``CorpusWorld``); none: SimPhone's demo.
WORLD_FILE = "world.json"
#: The folder's own knowledge base.
KB_FOLDER = "kb"
#: Case id -> the screen its episode starts on (``load_screens``); none: planned without one.
SCREENS_FILE = "screens.jsonl"


@dataclass(frozen=True)
class CorpusWorld:
    """The world a corpus folder's cases are in, and the label its own KB's outcomes are
    recorded under. A folder without ``world.json`` is SimPhone's, on the demo's seed-11 KB."""

    world: str = "simphone"
    label: str = "seed11"


def load_world(folder: Path) -> CorpusWorld:
    path = folder / WORLD_FILE
    if not path.exists():
        return CorpusWorld()
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON ({exc.msg})") from None
    fields = data if isinstance(data, dict) else {}
    missing = [name for name in ("world", "label") if name not in fields]
    if missing:
        raise ConfigError(f"{path}: field {missing[0]!r} expected (a world name and a KB label)")
    return CorpusWorld(str(data["world"]), str(data["label"]))


#: Corpus worlds that are web pages, planned under the web's conventions.
WEB_WORLDS = ("dokuwiki", "miniwob")


def world_conventions(world: str, skin: str = "standard") -> Conventions:
    """The conventions ``world``'s environment sets for an episode (``Env.conventions``), so
    that a plan made without the world is the one its episode makes: a SimPhone skin's, the
    web's for DokuWiki and MiniWoB++ (no home screen: the page is the only app), or the desktop's
    (``envs.desktop.conventions``: applications opened from their entries, no ids)."""
    if world == "desktop":
        from guigraph.envs.desktop.conventions import DESKTOP

        return DESKTOP
    if world == "simphone":
        from guigraph.envs.simphone.skins import skin_conventions

        return skin_conventions(skin)
    if world in WEB_WORLDS:
        from guigraph.envs.conventions import WEB

        return WEB
    known = ", ".join(("simphone", "desktop", *WEB_WORLDS))
    raise ConfigError(f"unknown corpus world {world!r}: known are {known}")


@dataclass(frozen=True)
class PlanCase:
    case_id: str
    #: Where the wording comes from: "dev", "fresh:s15", "lower:dev", ...
    source: str
    instruction: str
    template: str
    seed: int
    values: Mapping[str, str]
    apps: tuple[str, ...]
    donors: tuple[tuple[str, ...], ...] = ()
    #: KB label -> whether the code that wrote the corpus held the case on that KB.
    held: Mapping[str, bool] = field(default_factory=dict)
    #: Whether the episode succeeded on SimPhone when the corpus was written (default KB).
    episode: bool | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlanCase:
        return cls(
            str(data["case_id"]), str(data["source"]), str(data["instruction"]),
            str(data["template"]), int(data["seed"]), dict(data["values"]),
            tuple(data["apps"]), tuple(tuple(d) for d in data.get("donors", ())),
            dict(data.get("held", {})), data.get("episode"),
        )  # fmt: skip


@dataclass(frozen=True)
class SlotCase:
    case_id: str
    recorded_instruction: str
    recorded_value: str
    instruction: str
    expected: str | None
    known: tuple[str, ...] = ()
    titled: bool = False
    held: bool = True

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotCase:
        return cls(
            str(data["case_id"]), str(data["recorded_instruction"]),
            str(data["recorded_value"]), str(data["instruction"]), data.get("expected"),
            tuple(data.get("known", ())), bool(data.get("titled", False)),
            bool(data.get("held", True)),
        )  # fmt: skip


def to_line(case: PlanCase | SlotCase) -> str:
    return json.dumps(asdict(case), ensure_ascii=False, sort_keys=True)


def load_plan_cases(folder: Path) -> list[PlanCase]:
    return [PlanCase.from_dict(row) for row in _rows(folder / PLAN_CASES)]


def load_slot_cases(folder: Path) -> list[SlotCase]:
    return [SlotCase.from_dict(row) for row in _rows(folder / SLOT_CASES)]


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not a JSON object ({exc.msg})") from None
    return rows


@dataclass(frozen=True)
class PlanSignature:
    """What a plan does, as far as a case judges it: its apps in order, the templates of the
    recorded runs it follows, the texts it types (a value read off a screen left as its
    ``{slot}`` marker) and the labels it taps (with the values its results are looked up by)."""

    apps: tuple[str, ...]
    donors: tuple[str, ...]
    typed: tuple[str, ...]
    labels: tuple[str, ...]
    stitched: bool = False
    #: How many times in a row each control tapped again at once is tapped (``repeats``).
    repeats: frozenset[int] = frozenset()

    def uses(self, value: str) -> bool:
        """Whether the plan puts ``value`` in: a label it taps, words of a text it types, or
        for a whole number of at least ``MIN_REPEATS``, as many taps of one control in a row
        ("Select -7 with the spinner": seven taps of an arrow)."""
        wanted = _normal(value)
        if any(_normal(label) in (wanted, wanted + "%") for label in self.labels):
            return True
        pattern = re.compile(rf"(?<!\w){re.escape(wanted)}(?!\w)")
        return any(pattern.search(_normal(text)) for text in self.typed) or self.counts(value)

    def counts(self, value: str) -> bool:
        """Whether the plan taps one control ``value`` times in a row, a whole number of at
        least ``MIN_REPEATS``."""
        count = whole_number(value)
        return count is not None and count >= MIN_REPEATS and count in self.repeats


def repeats(taps: Iterable[ActionTemplate]) -> frozenset[int]:
    """How many times in a row each control is tapped, where it is tapped again at once: the
    same element (label, role, id and recorded point), not another of the same label (a
    spinner's two arrows)."""

    def control(template: ActionTemplate) -> tuple[object, ...]:
        return template.target_label, template.target_role, template.target_id, template.point

    runs = (len(list(run)) for _, run in itertools.groupby(taps, key=control))
    return frozenset(n for n in runs if n >= MIN_REPEATS)


def whole_number(value: str) -> int | None:
    """The size of ``value`` if it is a whole number ("-7": 7), else None."""
    text = value.strip()
    return abs(int(text)) if re.fullmatch(r"[+-]?\d+", text) else None


def _normal(value: str) -> str:
    """Case folded, spaces collapsed, a leading zero dropped ("07:30" is "7:30")."""
    return re.sub(r"(?<!\d)0(\d)", r"\1", " ".join(value.casefold().split()))


def signature(choice: PlanChoice | None, templates: Mapping[str, str]) -> PlanSignature:
    from guigraph.compiler.script import app_sequence
    from guigraph.types import ActionType

    if choice is None:
        return PlanSignature((), (), (), ())
    typed, labels = [], []
    for step in choice.steps:
        if step.template.type is ActionType.TYPE and step.text is not None:
            typed.append(step.text)
        if step.template.taps:
            labels.append(step.label)
        labels += [new for _, new in step.replacements]
    donors = tuple(templates.get(d, d) for d in choice.donors)
    taps = repeats(step.template for step in choice.steps if step.template.taps)
    return PlanSignature(
        tuple(app_sequence(choice.steps)), donors, tuple(typed), tuple(labels), choice.stitched,
        taps,
    )  # fmt: skip


def plan_signature(
    kb: KnowledgeBase, view: GraphView, instruction: str, templates: Mapping[str, str],
    screen: Observation | None = None,
) -> PlanSignature:  # fmt: skip
    """The plan the model-free team makes for ``instruction`` (retrieval, then the policy's
    ranking), before it acts: the active conventions are the caller's. With the ``screen``
    the episode starts on, the plan as the policy starts it there (``start_in``)."""
    from guigraph.agents.team import TeamOptions, rule_team
    from guigraph.choices import Memory
    from guigraph.types import Task

    team = rule_team(kb, view, TeamOptions(memory=Memory.GRAPH))
    task = Task("corpus", instruction)
    team.planner.plan(task, team.context(task))
    policy = getattr(team.planner, "policy", None)
    if policy is not None and screen is not None:
        start_on(policy, screen)
    return signature(policy.state.choice if policy is not None else None, templates)


@dataclass(frozen=True)
class Verdict:
    passed: bool
    why: str = ""


def judge(case: PlanCase, plan: PlanSignature) -> Verdict:
    """Whether ``plan`` does ``case``: its apps in order, every slot value put in, and one of
    the case's donor sets followed (when it names any)."""
    if tuple(a.lower() for a in plan.apps) != tuple(a.lower() for a in case.apps):
        return Verdict(False, f"apps {list(plan.apps)}, expected {list(case.apps)}")
    missing = {slot: value for slot, value in case.values.items() if not plan.uses(value)}
    if missing:
        return Verdict(False, f"values not put in: {missing}; typed {list(plan.typed)}")
    if case.donors and sorted(plan.donors) not in [sorted(d) for d in case.donors]:
        return Verdict(False, f"follows {list(plan.donors)}, expected one of {list(case.donors)}")
    return Verdict(True)


SlotFill = Callable[[SlotCase], "str | None"]


def rule_slot_fill(case: SlotCase) -> str | None:
    """The model-free compiler's value for a slot case."""
    from guigraph.compiler.slots import fill_slot

    return fill_slot(
        case.recorded_value, case.recorded_instruction, case.instruction, case.known,
        titled=case.titled,
    )  # fmt: skip


def judge_slot(case: SlotCase, found: str | None) -> Verdict:
    if found == case.expected:
        return Verdict(True)
    return Verdict(False, f"gave {found!r}, expected {case.expected!r}")


@dataclass(frozen=True)
class Outcome:
    case_id: str
    passed: bool
    held: bool
    why: str = ""
    #: The texts the plan types, as typed (a plan case's; case and all).
    typed: tuple[str, ...] = ()


def run_plan_cases(
    cases: Iterable[PlanCase], kb: KnowledgeBase, view: GraphView,
    templates: Mapping[str, str], label: str, screens: Mapping[str, Observation] | None = None,
) -> list[Outcome]:  # fmt: skip
    """Every case judged on this KB; ``held`` is what the case recorded for ``label``."""
    outcomes = []
    for case in cases:
        screen = (screens or {}).get(case.case_id)
        plan = plan_signature(kb, view, case.instruction, templates, screen)
        verdict = judge(case, plan)
        if verdict.passed and case.episode is False:
            # The plan looks right and its episode failed: what went wrong is not in the plan
            # (which field it reads, say). Not a case to count as gained.
            verdict = Verdict(False, "its episode failed when the corpus was written")
        held = case.held.get(label, False)
        outcomes.append(Outcome(case.case_id, verdict.passed, held, verdict.why, plan.typed))
    return outcomes


def run_on_kb(
    folder: Path, cases: Iterable[PlanCase], kb_path: Path, templates: Mapping[str, str],
    label: str, skin: str = "standard",
) -> list[Outcome]:  # fmt: skip
    """``cases`` of the corpus in ``folder`` judged on the KB at ``kb_path``, planned under
    the conventions of the folder's world."""
    from guigraph.compiler.index import GraphView
    from guigraph.envs import conventions
    from guigraph.graph.kb import KnowledgeBase

    world = load_world(folder).world
    with KnowledgeBase.open(kb_path) as kb, conventions.using(world_conventions(world, skin)):
        return run_plan_cases(cases, kb, GraphView.load(kb), templates, label, load_screens(folder))


def run_folder(folder: Path) -> list[Outcome]:
    """Every plan case of the corpus in ``folder`` on the folder's own KB, against what was
    recorded for its label."""
    cases, templates = load_plan_cases(folder), load_templates(folder)
    return run_on_kb(folder, cases, folder / KB_FOLDER, templates, load_world(folder).label)


def run_slot_cases(cases: Iterable[SlotCase], fill: SlotFill = rule_slot_fill) -> list[Outcome]:
    outcomes = []
    for case in cases:
        verdict = judge_slot(case, fill(case))
        outcomes.append(Outcome(case.case_id, verdict.passed, case.held, verdict.why))
    return outcomes


def lost(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """Cases held when the corpus was written that fail now."""
    return [o for o in outcomes if o.held and not o.passed]


def gained(outcomes: Sequence[Outcome]) -> list[Outcome]:
    return [o for o in outcomes if o.passed and not o.held]


def load_templates(folder: Path) -> dict[str, str]:
    """Episode id -> template id, from a corpus folder's ``templates.json`` or a log
    folder's ``truth/`` documents."""
    table = folder / TEMPLATES_FILE
    if table.exists():
        return dict(json.loads(table.read_text()))
    found = {}
    for path in sorted((folder / "truth").glob("*.json")):
        found[path.stem] = str(json.loads(path.read_text()).get("template_id", ""))
    return found


def trace_signature(trace: Trace, edges: Mapping[int, Edge]) -> PlanSignature:
    """What a recorded run did, as a plan's signature: its apps, the texts it typed (each
    ``{slot}`` filled with the value the run typed there) and the labels it tapped. Which of
    a task's values its demonstrations put in are the values a plan for it must put in."""
    values = {key.slot: value for key, value in trace.values.items()}
    typed, labels = [], []
    actions = [template for _, _, template in trace.recorded_actions(edges)]
    for template in actions:
        if template.text is not None:
            typed.append(re.sub(r"\{(\w+)\}", lambda m: values.get(m[1], m[0]), template.text))
        if template.taps:
            labels.append(template.target_label)
    taps = repeats(template for template in actions if template.taps)
    return PlanSignature(trace.apps, (), tuple(typed), tuple(labels), repeats=taps)


def start_on(policy: Any, screen: Observation) -> None:
    """The policy's plan as it starts on ``screen``, the way an episode's first step does
    (the page on the screen, its targets)."""
    from guigraph.agents.observer import RuleObserver

    policy.start_in(RuleObserver().observe(screen, None))


def screen_line(case_id: str, screen: Observation) -> str:
    """One line of ``screens.jsonl``: a case's first screen, its UI tree without pixels."""
    row = {
        "case_id": case_id, "app": screen.app, "size": [screen.screen.width, screen.screen.height],
        "elements": [element.to_dict() for element in screen.elements or ()],
    }  # fmt: skip
    return json.dumps(row, ensure_ascii=False, sort_keys=True)


def load_screens(folder: Path) -> dict[str, Observation]:
    """Case id -> the screen its episode starts on, from a corpus folder's ``screens.jsonl``."""
    from guigraph.geometry import ScreenSize
    from guigraph.types import Observation, UIElement

    path = folder / SCREENS_FILE
    if not path.exists():
        return {}
    return {
        str(row["case_id"]): Observation(
            ScreenSize(*row["size"]),
            elements=tuple(UIElement.from_dict(e) for e in row["elements"]),
            app=row.get("app"),
        )
        for row in _rows(path)
    }
