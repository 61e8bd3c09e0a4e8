"""MGA's team (``--team mga``): the semantic planner's replies parsed, the grounding step
(the UI tree, the grounding model, misses), the memory's verdicts, and whole SimPhone episodes
against the loopback server answering as an oracle."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PIL import Image

from guigraph.agents.grounding import (
    ACTION_OF,
    Grounder,
    GroundingCounts,
    ModelGrounder,
    TreeGrounder,
)
from guigraph.agents.loop import Budget, EpisodeResult, run_episode
from guigraph.agents.mga import EpisodeNotes, MgaMemory, MgaNarrator, render_screen
from guigraph.agents.model_acting import invalid
from guigraph.agents.model_roles import Briefing, RoleClient
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.agents.observer import RuleObserver
from guigraph.agents.roles import OutcomeStatus, Proposal, SemanticState, SubGoal
from guigraph.agents.semantic import SemanticAction, Target, Verb, parse_semantic
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.tasks import make_task
from guigraph.errors import ConfigError, ResponseParseError
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer, Reply
from guigraph.types import Action, ActionType, Task

from .helpers import button, field, screenshot_only, state, text
from .oracle import Oracle

WIFI = ("tool.wifi", 1000)
NOTE = ("info.note", 1000)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (100, 200), "white").save(out, format="PNG")
    return out.getvalue()


PNG = _png()


def pictured(screen: SemanticState, previous: SemanticState | None = None) -> SemanticState:
    """The screen with a real screenshot (the model client scales what it sends)."""
    return RuleObserver().observe(replace(screen.observation, screenshot=PNG), previous)


# -- the planner's reply, parsed into a typed semantic action ---------------------------------
def test_a_wrapped_reply_is_a_typed_semantic_action() -> None:
    reply = parse_semantic(
        'Sure.\n```json\n{"thought": "save it", "action": {"action": "click", '
        '"target": {"text": "Save", "role": "button", "ordinal": 2}}}\n```'
    )
    assert reply.thought == "save it"
    assert reply.action.action is Verb.CLICK
    assert reply.action.target == Target(text="Save", role="button", ordinal=2)
    assert reply.action.describe() == "click #2 button 'Save'"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"action": "tap", "target": "Wi-Fi"}', SemanticAction(action=Verb.CLICK, target=Target(text="Wi-Fi"))),
        ('{"action": "hotkey", "keys": ["ctrl", "s"]}', SemanticAction(action=Verb.KEY, keys="ctrl+s")),
        ('{"action": {"action": "type", "text": "milk\\n"}}', SemanticAction(action=Verb.TYPE, text="milk\n")),
        ('{"action": "swipe", "direction": "UP"}', SemanticAction(action=Verb.SCROLL, direction="up")),
        ('{"action": "complete"}', SemanticAction(action=Verb.DONE)),
        ('{"action": "launch", "app": "Notes"}', SemanticAction(action=Verb.OPEN_APP, app="Notes")),
    ],
)  # fmt: skip
def test_other_spellings_and_the_flat_shape_read_the_same(
    reply: str, expected: SemanticAction
) -> None:
    assert parse_semantic(reply).action == expected


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ('{"action": "click"}', "click needs a target"),
        ('{"action": "click", "target": {"text": ""}}', "click needs a target"),
        ('{"action": "type"}', "type needs text"),
        ('{"action": "key", "keys": " "}', "key needs keys"),
        ('{"action": "fly", "target": "moon"}', "action must be one of click, double_click"),
        ('{"action": "click", "target": {"text": "OK", "ordinal": 0}}', "ordinal"),
        ("I would press save", "no JSON object"),
    ],
)
def test_a_reply_that_does_not_fit_says_what_is_wrong(reply: str, message: str) -> None:
    with pytest.raises(ResponseParseError, match=message):
        parse_semantic(reply)


# -- the grounding step -----------------------------------------------------------------------
SAVE_DIALOG = state(
    text("Save", (10, 5, 90, 15)),  # the dialog's title says Save too
    field("File name", (10, 30, 90, 40)),
    button("Save As…", (10, 60, 40, 70)),
    button("OK", (10, 80, 40, 90)),
    button("OK", (50, 80, 90, 90)),
    button("Cancel", (10, 100, 40, 110)),
    app="editor",
)


def placed(target: Target) -> str:
    found = TreeGrounder().find(target, SAVE_DIALOG)
    return found if isinstance(found, str) else f"[{found.index}] {found.label}"


def test_a_target_is_found_by_its_words_role_and_rank() -> None:
    assert placed(Target(text="save as")) == "[2] Save As…"  # case, ellipsis
    assert placed(Target(text="Save as", role="push button")) == "[2] Save As…"
    assert placed(Target(text="File name", role="text field")) == "[1] File name"
    assert placed(Target(role="field")) == "[1] File name"  # a kind alone
    assert placed(Target(text="OK")) == "[3] OK"
    assert placed(Target(text="OK", ordinal=2)) == "[4] OK"
    assert placed(Target(text="Save", role="label")) == "[0] Save"


def test_a_miss_says_what_is_missing_and_what_is_close() -> None:
    assert placed(Target(text="Delete", role="button")).startswith(
        "no button 'Delete' on this screen (closest:"
    )
    assert placed(Target(text="OK", ordinal=3)) == "only 2 element 'OK' on this screen, not a #3"


def test_the_grounder_turns_semantic_actions_into_actions_and_counts_them() -> None:
    counts = GroundingCounts()
    grounder = Grounder(None, counts)
    cancel = grounder.place(
        SemanticAction(action=Verb.CLICK, target=Target(text="Cancel")), SAVE_DIALOG
    )
    assert cancel.action == Action(ActionType.CLICK, point=SAVE_DIALOG.elements[5].center)
    assert cancel.by == "tree" and cancel.target is SAVE_DIALOG.elements[5]
    key = grounder.place(SemanticAction(action=Verb.KEY, keys="Control+S"), SAVE_DIALOG)
    assert key.action == Action.key_chord("ctrl", "s") and key.by == ""
    # Typing into a field that is not focused clicks it first.
    typing = SemanticAction(action=Verb.TYPE, text="notes.txt", target=Target(text="File name"))
    focus = grounder.place(typing, SAVE_DIALOG)
    assert focus.action is not None and focus.action.type is ActionType.CLICK
    assert "type again" in focus.note
    missed = grounder.place(
        SemanticAction(action=Verb.CLICK, target=Target(text="Print")), SAVE_DIALOG
    )
    assert missed.action is None and "no element 'Print'" in missed.miss
    no_tree = grounder.place(
        SemanticAction(action=Verb.CLICK, target=Target(text="OK")), screenshot_only()
    )
    assert no_tree.miss == "this screen has no UI tree and no grounding model"
    assert (counts.tree, counts.model, counts.missed) == (2, 0, 2)
    assert counts.describe() == (
        "2 targets placed (2 from the UI tree, 0 by the grounding model), 2 missed"
    )


def _client(server: FakeModelServer, role: str) -> tuple[RoleClient, ModelHub]:
    config = ModelConfig(model="test-model", base_url=server.base_url, api_key="k", max_attempts=1)
    hub = ModelHub(RoleModels(default=config))
    return RoleClient(hub.client(role), role, Briefing(Task("t", "save the file")), True), hub


def test_a_screen_without_a_tree_goes_to_the_grounding_model() -> None:
    replies = iter(
        ['{"found": true, "coordinate": [500, 250]}', '{"found": false, "why": "no such button"}']
    )
    with FakeModelServer(lambda body: Reply.of(next(replies))) as server:
        client, hub = _client(server, "grounder")
        with hub:
            grounder = Grounder(ModelGrounder(client))
            screen = screenshot_only(app="paint", png=PNG)
            found = grounder.place(
                SemanticAction(action=Verb.CLICK, target=Target(text="OK")), screen
            )
            lost = grounder.place(
                SemanticAction(action=Verb.CLICK, target=Target(text="Zap")), screen
            )
            prompt = json.dumps(server.requests[0])
    assert found.by == "model" and found.action is not None
    assert found.action.point is not None and round(found.action.point.x) == 500
    assert "Role: grounder." in prompt and "element 'OK'" in prompt and "image_url" in prompt
    assert (
        lost.action is None
        and lost.miss == "the grounding model found no element 'Zap': no such button"
    )
    assert (grounder.counts.model, grounder.counts.missed) == (1, 1)


# -- the memory's verdicts --------------------------------------------------------------------
BEFORE = pictured(
    state(field("Title", (10, 10, 90, 20), focused=True), button("Save", (10, 50, 90, 60)))
)
AFTER = pictured(state(text("Saved", (10, 10, 90, 20))), BEFORE)
SAVE = Action(ActionType.CLICK, point=BEFORE.elements[1].center)


@pytest.mark.parametrize(
    ("reply", "after", "status", "line"),
    [
        ('{"verdict": "success", "change": "the note was saved"}', AFTER, "success", "-> success: the note was saved"),
        ('{"verdict": "failure", "change": "an error shows"}', AFTER, "failure", "-> failure: an error shows"),
        ('{"verdict": "failure", "change": "nothing happened"}', BEFORE, "no_effect", "-> failure: nothing happened"),
        ('{"verdict": "uncertain", "change": "cannot tell"}', AFTER, "uncertain", "-> uncertain: cannot tell"),
        ("no idea", AFTER, "uncertain", "-> uncertain: the screen changed; memory reply unusable"),
        ('{"verdict": "maybe"}', BEFORE, "uncertain", "the screen did not change; memory verdict unreadable"),
    ],
)  # fmt: skip
def test_the_memory_records_a_verdict_and_the_change_it_saw(
    reply: str, after: object, status: str, line: str
) -> None:
    with FakeModelServer(lambda body: Reply.of(reply)) as server:
        client, hub = _client(server, "memory")
        with hub:
            notes = EpisodeNotes(SemanticAction(action=Verb.CLICK, target=Target(text="Save")))
            memory, narrator = MgaMemory(client, notes), MgaNarrator(notes)
            proposal = Proposal(SAVE, BEFORE.elements[1], source="model")
            outcome = memory.check(BEFORE, proposal, after, SubGoal("save"), None)  # type: ignore[arg-type]
            history = narrator.narrate(BEFORE, SAVE, after, SubGoal("save"), outcome)  # type: ignore[arg-type]
            prompt = json.dumps(server.requests[0])
    assert outcome.status.value == status
    assert history.startswith("click element 'Save' (placed on button 'Save') ")
    assert line in history
    assert "Role: memory." in prompt and prompt.count('"type": "image_url"') == 2  # both screens
    evidence = "the two screens are identical" if after is BEFORE else "appeared: 'Saved'"
    assert evidence in prompt


def test_the_memory_needs_no_model_for_a_refusal_or_no_usable_action() -> None:
    with FakeModelServer() as server:
        client, hub = _client(server, "memory")
        with hub:
            memory = MgaMemory(client, EpisodeNotes())
            refused = memory.check(
                BEFORE,
                Proposal(SAVE, source="model"),
                BEFORE,
                SubGoal("s"),
                "a modal dialog blocks it",
            )
            nothing = memory.check(
                BEFORE, invalid("grounding missed: no button 'Print'"), BEFORE, SubGoal("s"), None
            )
        assert server.request_count == 0
    assert refused.status is OutcomeStatus.FAILURE and "a modal dialog blocks it" in refused.note
    assert nothing.status is OutcomeStatus.NO_EFFECT and "grounding missed" in nothing.note


# -- whole episodes ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle([WIFI, NOTE])


@pytest.fixture
def server(oracle: Oracle) -> Iterator[FakeModelServer]:
    oracle.overrides.clear()
    oracle.calls.clear()
    with FakeModelServer(oracle) as fake:
        yield fake


def run_mga(
    server: FakeModelServer, task_spec: tuple[str, int], counts: GroundingCounts
) -> tuple[EpisodeResult, SimPhone, ModelHub]:
    config = ModelConfig(model="test-model", base_url=server.base_url, api_key="k", max_attempts=1)
    hub = ModelHub(RoleModels(default=config))
    options = ModelTeamOptions(team="mga", use_graph=False)  # type: ignore[arg-type]
    team = model_team(None, None, hub, options, counts)
    env = SimPhone()
    result = run_episode(env, team, make_task(*task_spec), seed=task_spec[1], budget=Budget(20))
    return result, env, hub


def _prompts(server: FakeModelServer, role: str) -> list[str]:
    texts = [json.dumps(body) for body in server.requests]
    return [t for t in texts if f"Role: {role}." in t]


def test_an_episode_plans_semantically_grounds_on_the_tree_and_reads_the_verified_history(
    server: FakeModelServer, oracle: Oracle
) -> None:
    counts = GroundingCounts()
    result, env, hub = run_mga(server, NOTE, counts)
    with hub:
        roles = hub.ledger.by_role()
    assert env.task_succeeded() and result.finished
    assert set(roles) == {"planner", "memory"}  # no decider, verifier, narrator, outcome
    assert roles["planner"].calls == len(result.steps)
    assert roles["memory"].calls == len(result.steps) - 1  # "done" needs no verdict
    planned = _prompts(server, "semantic planner")
    screen = planned[0].split("Elements as", 1)[1].split("Actions you can take")[0]
    assert "[0] " in screen and " at (" not in screen  # semantic: no coordinates
    # The planner's last prompt reads every earlier step with its verdict and the change.
    assert f"Verified history ({len(result.steps) - 1} steps" in planned[-1]
    assert "-> success: on the expected path" in planned[-1]
    assert counts.missed == 0 and counts.tree == sum(
        1 for s in result.steps if s.executed.action.type is ActionType.CLICK
    )


def test_a_grounding_miss_goes_back_to_the_planner_and_is_counted(
    server: FakeModelServer, oracle: Oracle
) -> None:
    oracle.overrides["semantic planner"] = [
        '{"thought": "open settings", "action": {"action": "click", "target": {"text": "Control Panel", "role": "button"}}}'
    ]
    counts = GroundingCounts()
    result, env, hub = run_mga(server, WIFI, counts)
    hub.close()
    first = result.steps[0]
    assert [a.verdict.approved for a in first.attempts] == [False, True]
    assert first.attempts[0].verdict.feedback.startswith(
        "grounding missed: no button 'Control Panel' on this screen (closest:"
    )
    assert "grounding missed" in _prompts(server, "semantic planner")[1]
    assert counts.missed == 1 and counts.misses[0].startswith("no button 'Control Panel'")
    assert env.task_succeeded()


def test_a_failed_step_is_recorded_as_such_and_the_planner_recovers(
    server: FakeModelServer, oracle: Oracle
) -> None:
    home = oracle.rollouts[make_task(*WIFI).instruction][0].state
    assert home.find("Tunes") is not None
    oracle.overrides["semantic planner"] = [
        '{"thought": "music", "action": {"action": "click", "target": {"text": "Tunes"}}}'
    ]
    result, env, hub = run_mga(server, WIFI, GroundingCounts())
    hub.close()
    assert result.steps[0].outcome.status is OutcomeStatus.FAILURE
    assert result.steps[0].narrative.endswith("-> failure: this page is off the path")
    assert "-> failure: this page is off the path" in _prompts(server, "semantic planner")[1]
    assert env.task_succeeded()


def test_mga_is_a_model_team() -> None:
    with pytest.raises(ConfigError, match="--team mga is a model team: use --policy model"):
        ModelTeamOptions(team="mga", policy="hybrid")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="--team must be one of guigraph, mga"):
        ModelTeamOptions(team="mgx")  # type: ignore[arg-type]


def test_the_planner_sees_the_screen_without_coordinates() -> None:
    shown = render_screen(BEFORE)
    assert shown.splitlines() == ["[0] field 'Title' (focused)", "[1] button 'Save'"]


def test_every_verb_has_a_shape_the_parser_reads_back_and_the_menu_follows_the_world() -> None:
    from guigraph.agents.mga import VERB_SHAPES, verb_menu, verbs_for
    from guigraph.envs.desktop.env import DesktopEnv

    assert set(VERB_SHAPES) == set(Verb)
    assert set(ACTION_OF.values()) == set(ActionType)  # every action a world takes has a verb
    for verb, (shape, _) in VERB_SHAPES.items():
        concrete = json.dumps(shape).replace("up|down|left|right", "up").replace('"..."', '"x"')
        assert parse_semantic(concrete).action.action is verb
    desktop = verbs_for(DesktopEnv.action_space)
    assert Verb.BACK not in desktop and Verb.KEY in desktop
    assert '"back"' not in verb_menu(desktop) and len(verb_menu(desktop).splitlines()) == 10


def test_a_kind_of_element_is_read_from_its_class_too() -> None:
    from guigraph.geometry import BBox
    from guigraph.types import UIElement

    boxed = UIElement(
        BBox(10, 50, 90, 60), text="Replace all in:", class_name="check_box", clickable=True
    )
    screen = state(text("Replace all in:", (10, 10, 90, 20)), boxed, app="editor")
    assert screen.elements[1].role == "button"  # the observer's role says nothing of a box
    found = TreeGrounder().find(Target(text="Replace all in:", role="toggle"), screen)
    assert not isinstance(found, str) and found.index == 1
