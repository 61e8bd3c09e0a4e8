"""A recording whose screen was read late credits a state change to the key pressed before
the one that made it; the team takes the next key where it is instead of giving up.

Measured on the desktop suite (galculator/sum-to-note, seed 1000004 on runs/bench-desktop):
under load the recorder read the screen before "alt+tab" after alt+tab had already brought the
editor up, so the recording says "ctrl+c" left the calculator and "alt+tab" was pressed in the
editor. Following it, ctrl+c changed nothing, the step counted as failed, the policy pressed
back (refused on a desktop) and declared the task impossible after 4 steps."""

from __future__ import annotations

import networkx as nx
import pytest

from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.values import ValueIndex
from guigraph.focus import FocusMemory
from guigraph.geometry import ScreenSize
from guigraph.graph.records import ActionTemplate, Node
from guigraph.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    OutcomeStatus,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.types import Action, Observation

CALC, NOTES = "Calc", "Notes"


def key(node: int, chord: str, app: str, jumps_to: int | None = None) -> ScriptStep:
    keys = tuple(chord.split("+"))
    return ScriptStep(node, ActionTemplate("key", keys=keys), jumps_to, app, "late")


def tap(node: int, label: str, app: str) -> ScriptStep:
    template = ActionTemplate("click", target_label=label, target_role="button")
    return ScriptStep(node, template, None, app, "late", label=label)


def screen(node: int, app: str) -> SemanticState:
    observation = Observation(ScreenSize(1000, 1000), app=app)
    return SemanticState(observation, app, (), (), f"screen-{node}", node_id=str(node))


def policy(script: list[ScriptStep], mode: str) -> GraphPolicy:
    nodes = {n: Node(n, app, app, "", (), None, 1, "late") for n, app in ((1, CALC), (2, NOTES))}
    view = GraphView(nodes, {}, nx.DiGraph(), ValueIndex(), {})
    return GraphPolicy(view, mode=mode, state=PolicyState(script=script))


def no_effect(proposal: Proposal, history: list[HistoryEntry], feedback: Feedback) -> None:
    """The proposed action was executed and the screen did not change."""
    outcome = Outcome(OutcomeStatus.NO_EFFECT, "the screen did not change")
    history.append(
        HistoryEntry(len(history), SubGoal("step"), proposal.action, "", outcome, "s", "s")
    )
    feedback.add("no effect", proposal.action)


@pytest.mark.parametrize("mode", ["graph", "trace"])
def test_the_key_after_a_key_that_changed_nothing_is_pressed_where_the_team_is(mode: str) -> None:
    # As recorded: copy "leaves" the calculator, alt+tab is pressed in the editor.
    script = [key(1, "ctrl+c", CALC, jumps_to=2), key(2, "alt+tab", NOTES), key(2, "ctrl+v", NOTES)]
    chosen, history, feedback, memory = policy(script, mode), [], Feedback(), FocusMemory()
    first = chosen.decide(screen(1, CALC), history, feedback, memory)
    assert first.action == Action.key_chord("ctrl+c")
    no_effect(first, history, feedback)
    second = chosen.decide(screen(1, CALC), history, feedback, memory)
    assert second.action == Action.key_chord("alt+tab")
    assert chosen.state.cursor == 1
    # alt+tab now is the step that leaves the calculator for the editor.
    assert chosen.state.script[1].node == 1 and chosen.state.script[1].jumps_to == 2
    assert second.expect_node == "2" and second.expect_app == NOTES
    assert chosen.subgoal().app == NOTES


def test_a_step_that_should_leave_and_is_followed_by_a_tap_still_failed() -> None:
    # The next step needs an element of the screen it was recorded on: nothing to mend.
    script = [key(1, "ctrl+s", CALC, jumps_to=2), tap(2, "Save", NOTES)]
    chosen, history, feedback, memory = policy(script, "graph"), [], Feedback(), FocusMemory()
    first = chosen.decide(screen(1, CALC), history, feedback, memory)
    no_effect(first, history, feedback)
    chosen.decide(screen(1, CALC), history, feedback, memory)
    assert chosen.state.cursor == 0
    assert chosen.state.script[0].jumps_to == 2 and chosen.state.script[1].node == 2


def test_a_last_step_that_should_leave_and_changed_nothing_failed() -> None:
    # No key follows it to credit the change to: the step is not done.
    script = [key(1, "ctrl+c", CALC, jumps_to=2)]
    chosen, history, feedback, memory = policy(script, "graph"), [], Feedback(), FocusMemory()
    first = chosen.decide(screen(1, CALC), history, feedback, memory)
    no_effect(first, history, feedback)
    chosen.advance(history)
    assert chosen.state.cursor == 0 and not chosen.done
    assert chosen.state.script[0].jumps_to == 2
