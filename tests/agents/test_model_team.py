"""The model-backed team on SimPhone against the loopback server answering as an oracle."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from guigraph.agents.loop import Budget, EpisodeResult, run_episode
from guigraph.agents.model_team import ModelTeamOptions, model_team
from guigraph.agents.roles import OutcomeStatus
from guigraph.compiler.index import GraphView
from guigraph.compiler.script import is_home
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.tasks import make_task
from guigraph.errors import ConfigError
from guigraph.graph.kb import KnowledgeBase
from guigraph.llm.config import ModelConfig, RoleModels
from guigraph.llm.hub import ModelHub
from guigraph.testing import FakeModelServer
from guigraph.types import ODYSSEY_ACTIONS, ActionType

from .oracle import Oracle

WIFI = ("tool.wifi", 1000)
NOTE = ("info.note", 1000)


@pytest.fixture(scope="module")
def kb(simphone_kb: Path) -> Iterator[KnowledgeBase]:
    opened = KnowledgeBase.open(simphone_kb)  # the run's shared KB (tests/conftest.py)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def view(kb: KnowledgeBase) -> GraphView:
    return GraphView.load(kb)


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    return Oracle([WIFI, NOTE])


@pytest.fixture
def server(oracle: Oracle) -> Iterator[FakeModelServer]:
    oracle.overrides.clear()
    with FakeModelServer(oracle) as fake:
        yield fake


def hub_for(server: FakeModelServer) -> ModelHub:
    config = ModelConfig(model="test-model", base_url=server.base_url, api_key="k", max_attempts=1)
    return ModelHub(RoleModels(default=config))


def run(
    server: FakeModelServer,
    kb: KnowledgeBase | None,
    view: GraphView | None,
    task_spec: tuple[str, int],
    budget: int = 20,
    **options: object,
) -> tuple[EpisodeResult, SimPhone, ModelHub]:
    task = make_task(*task_spec)
    env = SimPhone()
    hub = hub_for(server)
    team = model_team(kb, view, hub, ModelTeamOptions(**options))  # type: ignore[arg-type]
    result = run_episode(env, team, task, seed=task_spec[1], budget=Budget(budget))
    return result, env, hub


def test_model_policy_completes_an_episode_and_accounts_usage_per_role(
    server: FakeModelServer, kb: KnowledgeBase, view: GraphView
) -> None:
    result, env, hub = run(server, kb, view, NOTE, policy="model", verify="always")
    assert env.task_succeeded() and result.finished
    assert {r.executed.source for r in result.steps} == {"model"}
    roles = hub.ledger.by_role()
    assert {"planner", "progress", "decider", "verifier", "narrator"} <= set(roles)
    assert roles["planner"].calls == 1
    assert roles["decider"].calls == len(result.steps)
    total = hub.ledger.total()
    assert total.calls == server.request_count
    assert total.prompt_tokens == sum(p for p, _ in server.reported_usage)
    assert total.completion_tokens == sum(c for _, c in server.reported_usage)
    assert total.images >= len(result.steps)  # the decider sees every screenshot
    episode_steps = hub.ledger.by_step(result.task.task_id)
    assert set(episode_steps) == set(range(len(result.steps)))
    # The retrieved graph context reached the planner's prompt.
    assert "Trace 1" in json.dumps(server.requests[0])


def test_garbled_reply_goes_back_to_the_decider_as_feedback(
    server: FakeModelServer, oracle: Oracle
) -> None:
    oracle.overrides["decider"] = ["Let me think. I would tap the settings icon, I guess."]
    result, env, _ = run(server, None, None, WIFI, use_graph=False)
    first = result.steps[0]
    assert [a.verdict.approved for a in first.attempts] == [False, True]
    assert "unparseable reply" in first.attempts[0].verdict.feedback
    assert "settings icon" in first.attempts[0].proposal.reason  # the raw reply is kept
    second_prompt = json.dumps(_requests(server, "decider")[1])
    assert "unparseable reply" in second_prompt
    assert env.task_succeeded()


def test_action_outside_the_space_is_rejected_and_retried(
    server: FakeModelServer, oracle: Oracle
) -> None:
    oracle.overrides["decider"] = ['{"action": {"action": "open_app", "app_name": "Settings"}}']
    result, env, _ = run(server, None, None, WIFI, use_graph=False, action_space=ODYSSEY_ACTIONS)
    rejected = result.steps[0].attempts[0]
    assert not rejected.verdict.approved
    assert "open_app is not an action this environment can execute" in rejected.verdict.feedback
    assert result.steps[0].executed.action.type is ActionType.CLICK
    assert env.task_succeeded()


def test_verifier_rejection_refines_the_next_attempt(
    server: FakeModelServer, oracle: Oracle
) -> None:
    home = oracle.rollouts[make_task(*WIFI).instruction][0].state
    browser = home.find("Browser")
    assert browser is not None
    wrong = {"action": "click", "coordinate": [round(browser.center.x), round(browser.center.y)]}
    oracle.overrides["decider"] = [json.dumps({"action": wrong})]
    result, env, _ = run(server, None, None, WIFI, use_graph=False, verify="always")
    first = result.steps[0]
    assert [a.verdict.approved for a in first.attempts] == [False, True]
    assert first.attempts[0].verdict.feedback.startswith("wrong: the step needs")
    assert first.attempts[0].proposal.target is not None
    assert first.attempts[0].proposal.target.label == "Browser"
    assert "wrong: the step needs" in json.dumps(_requests(server, "decider")[1])
    assert env.task_succeeded()


def test_failed_outcome_runs_the_recovery_and_the_episode_goes_on(
    server: FakeModelServer, oracle: Oracle
) -> None:
    home = oracle.rollouts[make_task(*WIFI).instruction][0].state
    tunes = home.find("Tunes")
    assert tunes is not None
    wrong = {"action": "click", "coordinate": [round(tunes.center.x), round(tunes.center.y)]}
    oracle.overrides["decider"] = [json.dumps({"action": wrong})]
    result, env, _ = run(server, None, None, WIFI, use_graph=False, verify="never")
    failed, recovery = result.steps[0], result.steps[1]
    assert failed.outcome.status is OutcomeStatus.FAILURE
    assert failed.outcome.note == "this page is off the path"
    assert recovery.recovery and recovery.executed.action.type is ActionType.PRESS_BACK
    assert result.steps[2].app == "Home"
    assert env.task_succeeded()


def test_attempts_are_bounded_and_a_hopeless_step_does_not_crash(
    server: FakeModelServer, oracle: Oracle
) -> None:
    oracle.overrides["decider"] = ["no idea"] * 8
    result, _, _ = run(server, None, None, WIFI, use_graph=False, verify="never", budget=2)
    for step in result.steps:
        assert len(step.attempts) == 4 and not any(a.verdict.approved for a in step.attempts)
        assert step.executed.action.type is ActionType.WAIT  # the harmless placeholder
    assert len(result.steps) == 2 and result.reason == "step budget of 2 exhausted"


def test_hybrid_adaptive_acts_from_the_graph_with_fewer_calls(
    server: FakeModelServer, kb: KnowledgeBase, view: GraphView
) -> None:
    model, model_env, model_hub = run(server, kb, view, NOTE, policy="model", verify="always")
    hybrid, hybrid_env, hybrid_hub = run(server, kb, view, NOTE, policy="hybrid", verify="adaptive")
    assert model_env.task_succeeded() and hybrid_env.task_succeeded()
    sources = [r.executed.source for r in hybrid.steps]
    assert "graph" in sources
    model_calls = model_hub.ledger.total().calls / len(model.steps)
    hybrid_calls = hybrid_hub.ledger.total().calls / len(hybrid.steps)
    assert hybrid_calls < model_calls / 2
    # Typed values are the model's to check, even on graph steps.
    per_step = hybrid_hub.ledger.by_step(hybrid.task.task_id)
    typed = [r.step for r in hybrid.steps if r.executed.action.type is ActionType.TYPE]
    assert typed and all(per_step[step].calls >= 1 for step in typed)
    # Adaptive: no model verification of graph steps.
    verified = hybrid_hub.ledger.by_role().get("verifier")
    model_made = sum(1 for r in hybrid.steps for a in r.attempts if a.proposal.source == "model")
    assert (verified.calls if verified else 0) <= model_made


def test_a_small_models_echoed_template_and_refused_value_leave_the_graph_acting(
    server: FakeModelServer, oracle: Oracle, kb: KnowledgeBase, view: GraphView
) -> None:
    # What SmolLM2-135M answered on llama.cpp: a plan that copies the reply template it was
    # shown, and "impossible" where it was asked for the value of a field the graph reached.
    oracle.overrides["global planner"] = [
        '{"subgoals": [{"description": "<what to achieve>", "app": "<app name or null>"}], '
        '"rationale": "<one sentence>"}'
    ]
    oracle.overrides["decider"] = [json.dumps({"thought": "x", "action": {"action": "impossible"}})]
    oracle.overrides["verifier"] = ['{"approved": true, "feedback": ""}']  # and approved it
    result, env, _ = run(server, kb, view, NOTE, policy="hybrid", verify="adaptive")
    assert result.plan is not None
    assert result.plan.rationale.startswith("graph plan agrees with the model's")
    assert not any("<" in goal.description for goal in result.plan.subgoals)
    typed = [r.executed for r in result.steps if r.executed.action.type is ActionType.TYPE]
    assert typed[0].source == "graph"  # the refusal was no value: the graph's step stood
    assert ActionType.IMPOSSIBLE not in {r.executed.action.type for r in result.steps}
    assert env.task_succeeded()


def _requests(server: FakeModelServer, role: str) -> list[dict[str, object]]:
    return [r for r in server.requests if f"Role: {role}." in json.dumps(r)]


def test_each_role_can_have_its_own_model(oracle: Oracle) -> None:
    with FakeModelServer(oracle, models=("big-model", "small-model")) as server:
        big = ModelConfig(model="big-model", base_url=server.base_url, max_attempts=1)
        small = ModelConfig(model="small-model", base_url=server.base_url, max_attempts=1)
        models = RoleModels(default=big, roles={"narrator": small, "verifier": small})
        with ModelHub(models) as hub:
            team = model_team(None, None, hub, ModelTeamOptions(use_graph=False))
            env = SimPhone()
            run_episode(env, team, make_task(*WIFI), seed=WIFI[1], budget=Budget(20))
            by_model = hub.ledger.by(lambda r: (r.tags.role, r.model))
        assert env.task_succeeded()
        for (role, model), _ in by_model.items():
            assert model == ("small-model" if role in ("narrator", "verifier") else "big-model")
        assert {role for role, _ in by_model} >= {"planner", "decider", "narrator", "verifier"}


def test_model_observer_describes_each_screen_once_for_the_decider(
    server: FakeModelServer,
) -> None:
    result, env, hub = run(server, None, None, WIFI, use_graph=False, describe_screens=True)
    assert env.task_succeeded()
    described = hub.ledger.by_role()["observer"].calls
    screens = {r.step for r in result.steps}
    assert 1 <= described <= len(screens)
    assert all("A phone screen with a few buttons." in json.dumps(r)
               for r in _requests(server, "decider"))  # fmt: skip


def test_graph_policy_uses_the_model_only_to_verify(
    server: FakeModelServer, kb: KnowledgeBase, view: GraphView
) -> None:
    result, _, hub = run(server, kb, view, NOTE, policy="graph", verify="always")
    roles = set(hub.ledger.by_role())
    assert roles == {"verifier"}
    instruction = make_task(*NOTE).instruction
    assert all(instruction in json.dumps(r) for r in _requests(server, "verifier"))
    assert {r.executed.source for r in result.steps} <= {"graph", "rule"}
    with pytest.raises(ConfigError, match="--policy hybrid needs a knowledge base"):
        model_team(None, None, hub_for(server), ModelTeamOptions(policy="hybrid"))
    with pytest.raises(ConfigError, match="--verify must be one of"):
        ModelTeamOptions(verify="sometimes")


def _app_schema(server: FakeModelServer) -> dict[str, object]:
    [request] = _requests(server, "global planner")
    schema = request["response_format"]["json_schema"]["schema"]  # type: ignore[index]
    return schema["properties"]["subgoals"]["items"]["properties"]["app"]  # type: ignore[no-any-return]


def test_the_hybrid_planner_names_only_apps_the_graph_can_follow(
    server: FakeModelServer, kb: KnowledgeBase, view: GraphView
) -> None:
    """Under guided decoding the schema is what a small model can say: the hybrid team follows
    recorded workflows, so its plan's apps are the KB's (SmolLM2-135M otherwise names apps no
    run visited, and the graph is dropped); the model team alone may need any app."""
    _, env, _ = run(server, kb, view, WIFI, policy="hybrid", verify="never")
    assert env.task_succeeded()
    app = _app_schema(server)
    recorded = {n.app for n in view.nodes.values() if n.app and not is_home(n.app)}
    assert set(app["enum"]) == recorded | {"none"}  # type: ignore[call-overload]
    server.requests.clear()
    run(server, kb, view, WIFI, policy="model", verify="never")
    assert _app_schema(server) == {"type": "string"}
