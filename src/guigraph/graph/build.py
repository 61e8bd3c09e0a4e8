"""Stage 3: write episodes into the knowledge base as nodes, condensed edges and traces.

For each episode: judge every action (stage 1), cut the episode into runs of in-page steps,
match the first screen of each run to a node or create one (stage 2), then record the edge
between consecutive nodes with the *whole* run of actions that led out of the page. Each
episode is one SQLite transaction, and episodes already in the KB are skipped, so a killed
build resumes without duplicates and adding logs later equals building from all of them.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from guigraph.errors import GuigraphError
from guigraph.geometry import NORM_MAX, CoordSpace
from guigraph.graph.judge import Judgement, JumpVerdict, PageJumpJudge, RuleJudge
from guigraph.graph.kb import KnowledgeBase
from guigraph.graph.kb_writer import EdgeRow, KBWriter, NodeRow, StepRow, TraceRow
from guigraph.graph.matcher import (
    DualThresholdVerifier,
    StateDescriptor,
    StateMatcher,
    StateVerifier,
    describe,
)
from guigraph.graph.records import ActionTemplate, Slot, SlotKey, dumps, edge_signature
from guigraph.graph.screen import ScreenView
from guigraph.graph.templates import action_template, target_element
from guigraph.types import Action, ActionType, Episode, Observation, Step

if TYPE_CHECKING:
    from guigraph.ocr import OcrEngine

logger = logging.getLogger(__name__)

#: An edge remembers at most this many source episodes (its count keeps growing).
MAX_EDGE_EPISODES = 50
THUMBNAIL_WIDTH = 160
#: Actions that end an episode rather than act on a screen.
_END_TYPES = frozenset({ActionType.COMPLETE, ActionType.IMPOSSIBLE})


class EpisodeSkipped(GuigraphError):
    """An episode that cannot be built (missing screenshot, malformed step)."""


@dataclass
class BuildSummary:
    added: int = 0
    already_built: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (episode_id, reason)
    steps: int = 0
    seconds: float = 0.0

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


#: What the builder reads: an episode id and a function that loads it (and may raise).
EpisodeSource = tuple[str, Callable[[], Episode]]


def sample_ids(ids: Sequence[str], rate: float | None, seed: int) -> list[str]:
    """A seeded random subset of ``round(rate * n)`` ids (at least one), in their given order."""
    if rate is None or rate >= 1.0:
        return list(ids)
    if rate <= 0.0:
        raise ValueError(f"sample rate must be in (0, 1], got {rate}")
    keep = set(random.Random(seed).sample(list(ids), max(1, round(rate * len(ids)))))
    return [i for i in ids if i in keep]


class GraphBuilder:
    def __init__(
        self,
        kb: KnowledgeBase,
        judge: PageJumpJudge | None = None,
        verifier: StateVerifier | None = None,
        ocr: OcrEngine | None = None,
    ):
        self.kb = kb
        self.ocr = ocr if ocr is not None else kb.ocr
        self.judge = judge or RuleJudge(kb.settings.rule_judge)
        self.verifier = verifier or DualThresholdVerifier(kb.settings.match)
        self.use_ui = kb.settings.use_ui

    def build(
        self, sources: Iterable[EpisodeSource], on_episode: Callable[[str], None] | None = None
    ) -> BuildSummary:
        summary = BuildSummary()
        started = time.perf_counter()
        for episode_id, load in sources:
            if self.kb.has_episode(episode_id):
                summary.already_built += 1
            else:
                self._build_one(episode_id, load, summary)
            if on_episode is not None:
                on_episode(episode_id)
        if summary.added:
            self.kb.learn_slot_types()
        self.kb.save_indexes()
        summary.seconds = time.perf_counter() - started
        return summary

    def _build_one(
        self, episode_id: str, load: Callable[[], Episode], summary: BuildSummary
    ) -> None:
        try:
            episode = load()
            if episode.episode_id != episode_id:  # resuming keys on the source's id
                raise EpisodeSkipped(f"its episode_id is {episode.episode_id!r}")
            self.add_episode(episode)
        except (EpisodeSkipped, GuigraphError, ValueError, OSError, KeyError, TypeError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            # Not a warning: the summary carries every skip, and the caller reports it once.
            logger.info("skipping episode %s: %s", episode_id, reason)
            summary.skipped.append((episode_id, reason))
            return
        summary.added += 1
        summary.steps += len(episode.steps)

    def add_episode(self, episode: Episode) -> None:
        """Judge, match and write one episode (all or nothing)."""
        if not episode.steps:
            raise EpisodeSkipped(f"episode {episode.episode_id} has no steps")
        world = episode.world.split("/", 1)[0]
        if world and self.kb.settings.world and world != self.kb.settings.world:
            raise EpisodeSkipped(
                f"episode {episode.episode_id} was recorded in the {world} world; this knowledge "
                f"base holds the {self.kb.settings.world} world's (its screens, ids and actions "
                "differ): build it into a knowledge base of its own"
            )
        if all(step.action.type in _END_TYPES for step in episode.steps):
            # A run that gave up at once (or only said "done"): no way through the app to learn,
            # and its trace would be a plan of no steps.
            ends = ", ".join(sorted({step.action.type.value for step in episode.steps}))
            raise EpisodeSkipped(
                f"episode {episode.episode_id} has no action before its end ({ends}): "
                "nothing to learn from a run that did not act"
            )
        episode = without_idle_taps(episode) if self.use_ui else episode
        views = self._views(episode)
        judgements = [
            self.judge.judge(views[i], episode.steps[i].action, views[i + 1])
            for i in range(len(views) - 1)
        ]
        runs = _in_page_runs(judgements, len(views))
        descriptors = describe([views[run[0]] for run in runs], self.kb.encoder)
        with self.kb.transaction() as writer:
            if world and not self.kb.settings.world:
                self.kb.settings = replace(self.kb.settings, world=world)
                writer.save_settings(self.kb.settings)
            nodes = [
                self._node_for(writer, episode, views[run[0]], d)
                for run, d in zip(runs, descriptors, strict=True)
            ]
            runs, nodes = _merge_self_loops(runs, nodes)
            values: dict[str, str] = {}
            edge_ids = []
            for k in range(len(runs) - 1):
                edge_id, slots = self._record_edge(writer, episode, runs[k], nodes[k], nodes[k + 1])
                edge_ids.append(edge_id)
                values.update(
                    {SlotKey(edge_id, slot.name).encoded(): slot.example for slot in slots}
                )
            tail, tail_slots = self._templates(episode, runs[-1])
            values.update({SlotKey(None, slot.name).encoded(): slot.example for slot in tail_slots})
            writer.add_steps(_step_rows(episode, runs, nodes, judgements))
            writer.add_trace(
                TraceRow(
                    episode_id=episode.episode_id,
                    instruction=episode.instruction,
                    category=episode.category,
                    apps=dumps(list(episode.apps)),
                    node_path=dumps(nodes),
                    edge_path=dumps(edge_ids),
                    steps=len(episode.steps),
                    tail=dumps([a.to_dict() for a in tail]),
                    slot_values=dumps(values),
                )
            )

    def _views(self, episode: Episode) -> list[ScreenView]:
        views = []
        for step in episode.steps:
            problem = _coordinate_problem(step.action) or _screenshot_problem(step.observation)
            if problem:
                raise EpisodeSkipped(f"episode {episode.episode_id} step {step.index}: {problem}")
            views.append(ScreenView(step.observation, step.description, self.use_ui, self.ocr))
        return views

    def _node_for(
        self,
        writer: KBWriter,
        episode: Episode,
        view: ScreenView,
        descriptor: StateDescriptor,
    ) -> int:
        index = self.kb.state_index
        match = StateMatcher(index, self.verifier).match(view, descriptor)
        if match is not None:
            writer.count_visit(match.node_id)
            if match.score < self.kb.settings.match.exemplar_below:
                self._add_exemplar(writer, match.node_id, descriptor)
            return match.node_id
        elements = [e.to_dict() for e in (view.elements or ())[:40]]
        path = view.observation.screenshot_path
        node_id = writer.add_node(
            NodeRow(
                app=view.app,
                # Named by what it shows when no one described it (real runs rarely are).
                description=view.description or (view.summary() if view.has_ui else ""),
                state_text=descriptor.text,
                elements=dumps(elements),
                # Absolute: the KB is read from other working directories than the build's.
                screenshot_path=str(Path(path).resolve()) if path else None,
                thumbnail=_jpeg_thumbnail(view),
                first_episode=episode.episode_id,
            )
        )
        self._add_exemplar(writer, node_id, descriptor)
        return node_id

    def _add_exemplar(self, writer: KBWriter, node_id: int, descriptor: StateDescriptor) -> None:
        vector = self.kb.state_index.add(node_id, descriptor)
        writer.add_exemplar(node_id, descriptor.app, vector.tobytes())

    def _templates(
        self, episode: Episode, run: list[int]
    ) -> tuple[tuple[ActionTemplate, ...], list[Slot]]:
        """Templates of the steps in ``run``, and the slots their typed text became."""
        slots: list[Slot] = []
        actions = tuple(
            action_template(
                episode.steps[i], episode.instruction, slots, self.use_ui, episode.steps[:i]
            )
            for i in run
        )
        return actions, slots

    def _record_edge(
        self, writer: KBWriter, episode: Episode, run: list[int], source: int, target: int
    ) -> tuple[int, list[Slot]]:
        """The edge's id, and the slots as this episode filled them."""
        actions, slots = self._templates(episode, run)
        signature = edge_signature(actions)
        found = writer.find_edge(source, target, signature)
        if found is not None:
            edge_id, episodes = found
            if len(episodes) < MAX_EDGE_EPISODES:
                episodes.append(episode.episode_id)
            writer.count_edge(edge_id, episodes)
            return edge_id, slots
        edge = EdgeRow(
            source=source,
            target=target,
            signature=signature,
            actions=dumps([a.to_dict() for a in actions]),
            slots=dumps([s.to_dict() for s in slots]),
            target_label=actions[-1].target_label,
            episodes=[episode.episode_id],
        )
        return writer.add_edge(edge), slots


def _step_rows(
    episode: Episode, runs: list[list[int]], nodes: list[int], judgements: list[Judgement]
) -> list[StepRow]:
    """Each step's node, and the judge's verdict on its action (none for the last step)."""
    rows = []
    for run, node in zip(runs, nodes, strict=True):
        for i in run:
            judgement = judgements[i] if i < len(judgements) else None
            verdict = judgement.verdict.value if judgement else None
            rows.append(
                StepRow(episode.episode_id, i, node, verdict, judgement.reason if judgement else "")
            )
    return rows


#: What image files start with; a screenshot is decoded only when pixels are needed, so its
#: header is checked up front (a cheap read) to refuse a broken episode before writing it.
_IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


def _coordinate_problem(action: Action) -> str | None:
    """Points off the 0..1000 grid come from another coordinate space or a broken file;
    stored, they would send the agents to places that do not exist."""
    for point in (action.point, action.end):
        if point is None or point.space is not CoordSpace.NORM:
            continue
        if not (0 <= point.x <= NORM_MAX and 0 <= point.y <= NORM_MAX):
            return f"{action.type.value} at ({point.x:g}, {point.y:g}) is outside 0..1000"
    return None


def _screenshot_problem(observation: Observation) -> str | None:
    if observation.screenshot is not None:
        head = observation.screenshot[:8]
        where = "in-memory screenshot"
    elif observation.screenshot_path is not None:
        path = observation.screenshot_path
        try:
            with open(path, "rb") as file:
                head = file.read(8)
        except OSError:
            return f"screenshot {path} is missing"
        where = f"screenshot {path}"
    elif observation.elements:
        return None  # a world that keeps no pixels: the UI tree is the screen
    else:
        return "no screenshot (and no UI elements to build from)"
    if not head.startswith(_IMAGE_MAGIC):
        return f"{where} is not a readable PNG (or JPEG) image"
    return None


def without_idle_taps(episode: Episode) -> Episode:
    """``episode`` without the taps that touched nothing: a person's click on a margin of a
    screen whose UI tree shows no element there is not a step of the workflow (replayed, it
    has no target to find). The last step (the episode's end) always stays."""
    steps = [
        step for i, step in enumerate(episode.steps)
        if i == len(episode.steps) - 1 or not _touches_nothing(step)
    ]  # fmt: skip
    if len(steps) == len(episode.steps):
        return episode
    renumbered = tuple(replace(step, index=i) for i, step in enumerate(steps))
    return replace(episode, steps=renumbered)


def _touches_nothing(step: Step) -> bool:
    action, elements = step.action, step.observation.elements
    if action.type not in (ActionType.CLICK, ActionType.LONG_PRESS) or not elements:
        return False
    if action.point is None or not action.point.in_bounds():
        return False  # off the screen: a broken record, which the build reports, not a margin
    return target_element(elements, action) is None


def _in_page_runs(judgements: list[Judgement], n_steps: int) -> list[list[int]]:
    """Step indices grouped by state: a run ends with the step whose action jumped."""
    runs: list[list[int]] = [[]]
    for i in range(n_steps):
        runs[-1].append(i)
        if i < len(judgements) and judgements[i].verdict is JumpVerdict.JUMP:
            runs.append([])
    return runs


def _merge_self_loops(runs: list[list[int]], nodes: list[int]) -> tuple[list[list[int]], list[int]]:
    """A "jump" back onto the same node was an in-page change after all: join the runs."""
    merged_runs, merged_nodes = [list(runs[0])], [nodes[0]]
    for run, node in zip(runs[1:], nodes[1:], strict=True):
        if node == merged_nodes[-1]:
            merged_runs[-1].extend(run)
        else:
            merged_runs.append(list(run))
            merged_nodes.append(node)
    return merged_runs, merged_nodes


def _jpeg_thumbnail(view: ScreenView) -> bytes | None:
    import io

    if not view.observation.has_screenshot:
        return None
    with view.observation.image() as image:
        if image.format == "JPEG":
            # Decode at reduced size (1/8 of a phone's screenshot is about the thumbnail's).
            image.draft("RGB", (THUMBNAIL_WIDTH // 2, THUMBNAIL_WIDTH // 2))
        rgb = image.convert("RGB")
        height = max(1, round(rgb.height * THUMBNAIL_WIDTH / rgb.width))
        small = rgb.resize((THUMBNAIL_WIDTH, height))
    out = io.BytesIO()
    small.save(out, format="JPEG", quality=70)
    return out.getvalue()
