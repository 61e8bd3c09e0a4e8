"""Offline GUIOdyssey replay: run a team teacher-forced over recorded episodes, write STEPS.

Each episode is played in a :class:`~guigraph.envs.replay.ReplayEnv` through the ordinary
agent loop; the prediction for every recorded step is the action the team proposed there, as
its official command string (``guigraph score`` reads the records). Two adjustments make the
loop fit the protocol without touching the agents:

- the outcome check's *recovery* is dropped: under teacher forcing the agent's action never
  took effect (the world moved to the recorded next screen), so "go back from the wrong page"
  would only steal the next step's prediction;
- steps the team never predicted (it declared the task complete or gave up early) are
  written with :data:`UNPREDICTED`, which the matcher scores wrong, so an episode is never
  silently shortened.

Writing is resumable: a whole episode is appended at once, and episodes already complete in
the output file are skipped on the next run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from guigraph.agents.loop import Budget, Callback, Team, run_episode
from guigraph.agents.roles import Outcome, OutcomeChecker, Proposal, SemanticState, SubGoal
from guigraph.data.commands import action_to_text
from guigraph.envs.replay import Prediction, ReplayEnv
from guigraph.errors import ConfigError, DatasetError
from guigraph.eval.steps import (
    PredictedStep,
    decode_line,
    parse_step_line,
    predicted_step,
    write_steps,
)
from guigraph.types import Action, Episode

if TYPE_CHECKING:
    from guigraph.data.odyssey import OdysseyDataset
    from guigraph.graph.kb import KnowledgeBase

#: The prediction written for a recorded step the team never reached.
UNPREDICTED = "NO_PREDICTION"

#: Builds a fresh team for one episode (teams hold per-episode state such as a plan cursor).
MakeTeam = Callable[[Episode], Team]


def prediction_text(action: Action) -> str:
    """The official command of an action; actions GUIOdyssey has no command for keep their
    own name (``WAIT``, ``OPEN_APP: clock``) so the matcher scores them wrong instead of failing.
    """
    return action_to_text(action)


class _NoRecovery:
    """The team's outcome check with its recovery action removed (see the module docstring)."""

    def __init__(self, inner: OutcomeChecker) -> None:
        self.inner = inner

    def check(
        self,
        before: SemanticState,
        proposal: Proposal,
        after: SemanticState,
        subgoal: SubGoal,
        error: str | None,
    ) -> Outcome:
        outcome = self.inner.check(before, proposal, after, subgoal, error)
        return replace(outcome, recovery=None) if outcome.recovery is not None else outcome


def check_kb_disjoint(kb: KnowledgeBase, episode_ids: Iterable[str]) -> None:
    """ConfigError naming every test episode the knowledge base was built from."""
    overlap = sorted(i for i in set(episode_ids) if kb.has_episode(i))
    if overlap:
        shown = ", ".join(overlap[:20]) + (
            f" and {len(overlap) - 20} more" if len(overlap) > 20 else ""
        )
        raise ConfigError(
            f"the knowledge base {kb.path} was built from {len(overlap)} of the episodes to "
            f"replay ({shown}): scoring on them would measure memorization. Build the KB from "
            "the train split only (guigraph build ... --split train)."
        )


def replay_episode(
    episode: Episode, team: Team, seed: int = 0, callbacks: Sequence[Callback] = ()
) -> list[PredictedStep]:
    """One episode teacher-forced: a STEPS record for every recorded step.

    ``callbacks`` see the loop's record of each step as it completes (``record.step`` is the
    recorded step it predicted: the replay adds no recovery steps).
    """
    team.outcome = _NoRecovery(team.outcome)
    env = ReplayEnv(episode)
    with env:
        # The env ends the episode after its last step; the budget only guards against a
        # loop that never steps (it cannot: every step consumes a recorded step).
        budget = Budget(len(episode.steps) + 1)
        run_episode(env, team, ReplayEnv.task_of(episode), seed, budget, callbacks)
    return episode_records(episode, env.predictions)


def episode_records(episode: Episode, predictions: Sequence[Prediction]) -> list[PredictedStep]:
    by_step = {p.step: p.action for p in predictions}
    return [
        predicted_step(episode, i, prediction_text(by_step[i]) if i in by_step else UNPREDICTED)
        for i in range(len(episode.steps))
    ]


def replay_episodes(
    dataset: OdysseyDataset,
    episode_ids: Sequence[str],
    make_team: MakeTeam,
    kb: KnowledgeBase | None = None,
    seed: int = 0,
) -> Iterator[list[PredictedStep]]:
    """The records of each episode in turn (one list per episode, in ``episode_ids`` order).

    With ``kb`` given, refuses (ConfigError) before replaying anything when the KB holds a
    trace of any of the episodes.
    """
    if kb is not None:
        check_kb_disjoint(kb, episode_ids)
    for episode_id in episode_ids:
        episode = dataset.load(episode_id)
        yield replay_episode(episode, make_team(episode), seed)


@dataclass
class ReplaySummary:
    out: Path
    replayed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # already complete in the output file
    steps: int = 0
    unpredicted: int = 0  # steps after the team ended its episode early


def replay_to_file(
    dataset: OdysseyDataset,
    episode_ids: Sequence[str],
    make_team: MakeTeam,
    out: Path,
    kb: KnowledgeBase | None = None,
    seed: int = 0,
    on_episode: Callable[[str], None] | None = None,
) -> ReplaySummary:
    """Replay into ``out`` (STEPS.jsonl), appending whole episodes; resumes a partial file."""
    out = Path(out)
    if kb is not None:
        check_kb_disjoint(kb, episode_ids)
    finished = load_finished(out)
    summary = ReplaySummary(out, skipped=[i for i in episode_ids if i in finished])
    todo = [i for i in episode_ids if i not in finished]
    out.parent.mkdir(parents=True, exist_ok=True)
    for records in replay_episodes(dataset, todo, make_team, seed=seed):
        append_episode(out, records)
        summary.replayed.append(records[0].episode_id)
        summary.steps += len(records)
        summary.unpredicted += sum(r.pred == UNPREDICTED for r in records)
        if on_episode is not None:
            on_episode(records[0].episode_id)
    return summary


def append_episode(out: Path, records: Sequence[PredictedStep]) -> None:
    """One episode's lines in a single write, flushed to disk before the next episode."""
    text = "".join(json.dumps(r.to_row(), ensure_ascii=False) + "\n" for r in records)
    with out.open("a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def load_finished(out: Path) -> set[str]:
    """Episodes complete in ``out``; a torn last line or a partial episode is cut away.

    A crash can only leave the *last* line incomplete (episodes are written in one go); a bad
    line anywhere else is an error naming the file and line, as ``guigraph score`` would give.
    """
    if not out.exists():
        return set()
    lines = out.read_bytes().splitlines()
    records: list[PredictedStep] = []
    for number, raw in enumerate(lines, start=1):
        try:
            text = decode_line(raw, f"{out}:{number}")
            if not text.strip():
                continue
            data = json.loads(text)
        except (DatasetError, json.JSONDecodeError) as exc:
            if number == len(lines):
                break  # torn by an interrupted write: dropped below
            if isinstance(exc, DatasetError):
                raise
            raise DatasetError(f"{out}:{number}", None, "a JSON object", exc.msg) from None
        records.append(parse_step_line(data, f"{out}:{number}", number))
    steps_of: dict[str, set[int]] = {}
    length_of: dict[str, int] = {}
    for r in records:
        steps_of.setdefault(r.episode_id, set()).add(r.step)
        length_of[r.episode_id] = r.step_length
    finished = {e for e, seen in steps_of.items() if len(seen) == length_of[e]}
    kept = [r for r in records if r.episode_id in finished]
    if len(kept) != len(lines):
        write_steps(out, kept)  # rewrite without the torn or partial episode
    return finished
