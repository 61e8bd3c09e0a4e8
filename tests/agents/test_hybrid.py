"""Hybrid planning rules that need no server: plan agreement and trimming a stitched plan."""

from __future__ import annotations

from typing import Any

from guigraph.agents.hybrid import _same_apps, _trimmed
from guigraph.agents.roles import Plan, SubGoal
from guigraph.compiler.policy import GraphPolicy, PolicyState
from guigraph.compiler.script import ScriptStep
from guigraph.graph.records import ActionTemplate


def step(app: str, kind: str = "click", node: int = 0) -> ScriptStep:
    return ScriptStep(node, ActionTemplate(kind, target_label="x"), None, app, "t1")


def plan(*apps: str | None) -> Plan:
    return Plan(tuple(SubGoal(f"in {a}", a) for a in apps))


def policy_with(script: list[ScriptStep]) -> GraphPolicy:
    view: Any = None  # trimming reads the script only
    return GraphPolicy(view, state=PolicyState(script=list(script)))


def test_a_stitch_past_the_models_apps_is_cut_before_leaving_the_last_one() -> None:
    script = [
        step("Home"), step("Weather"), step("Weather", "type"), step("Weather", "press_home"),
        step("Home"), step("Messages"), step("Messages", "type"), step("Messages", "press_home"),
        step("Home"), step("Mail"), step("Mail"),
    ]  # fmt: skip
    policy = policy_with(script)
    graph = plan("Weather", "Messages", "Mail")
    trimmed = _trimmed(policy, graph, plan("Weather", "Messages"))
    assert [g.app for g in trimmed.subgoals] == ["Weather", "Messages"]
    assert list(policy.script) == script[:7]  # ends typing in Messages: no home, no Mail
    assert "cut after messages" in trimmed.rationale
    assert _same_apps(trimmed, plan("Weather", "Messages"))


def test_plans_that_disagree_are_left_alone() -> None:
    script = [step("Home"), step("Notes"), step("Home"), step("Messages")]
    policy = policy_with(script)
    graph = plan("Notes", "Messages")
    assert _trimmed(policy, graph, plan("Calendar")) is graph and list(policy.script) == script
    assert not _same_apps(graph, plan("Calendar"))
    assert _same_apps(graph, plan(None))  # a model plan naming no app agrees
