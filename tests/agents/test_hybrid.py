"""Hybrid planning rules that need no server: plan agreement, another recorded way through the
model's apps, and trimming a stitched plan."""

from __future__ import annotations

from typing import Any, cast

from guigraph.agents.hybrid import HybridPlanner, _same_apps, _trimmed
from guigraph.agents.roles import Plan, SubGoal
from guigraph.compiler.policy import GraphPolicy, PolicyState, _subgoals
from guigraph.compiler.script import ScriptStep
from guigraph.compiler.stitch import PlanChoice
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


class _Planner:
    """A planner role answering with a fixed plan (the model's, or the graph policy's own)."""

    def __init__(self, answer: Plan | None = None, policy: GraphPolicy | None = None) -> None:
        self.answer, self.policy = answer, policy

    def plan(self, task: object, context: object) -> Plan:
        if self.answer is not None:
            return self.answer
        assert self.policy is not None
        return Plan(_subgoals(self.policy.state.script), rationale="the graph's best")


def choice(score: float, *apps: str) -> PlanChoice:
    steps = [step(app, node=n) for n, app in enumerate(apps)]
    return PlanChoice(steps, [f"trace-{'-'.join(apps)}"], score, stitched=False)


def hybrid_for(model_apps: tuple[str, ...], *options: PlanChoice) -> HybridPlanner:
    best, *rest = options
    policy = GraphPolicy(
        cast(Any, None),
        state=PolicyState(script=list(best.steps), choice=best, alternatives=list(rest)),
    )
    model = _Planner(plan(*model_apps))
    return HybridPlanner(cast(Any, _Planner(policy=policy)), cast(Any, model))


def test_the_graph_follows_its_best_other_way_through_the_apps_the_model_names() -> None:
    # "I'd like to buy a kettle": the graph's best guess is a reminder to buy it; the model
    # says the task is in ShopMall, and the graph has a recorded purchase there.
    reminder = choice(6.6, "Home", "Calendar", "Calendar")
    cart = choice(4.5, "Home", "ShopMall", "ShopMall")
    buy = choice(5.9, "Home", "ShopMall", "ShopMall", "ShopMall")
    hybrid = hybrid_for(("ShopMall",), reminder, buy, cart)
    chosen = hybrid.plan(object(), object())
    assert hybrid.on_graph
    assert [g.app for g in chosen.subgoals] == ["ShopMall"]
    assert hybrid.policy.state.choice is buy and list(hybrid.policy.script) == buy.steps
    # The plan it left stays an option, where the one taken was.
    assert hybrid.policy.state.alternatives == [reminder, cart]
    assert "following trace-Home-ShopMall-ShopMall-ShopMall" in chosen.rationale


def test_with_no_recorded_way_through_the_models_apps_the_model_plans() -> None:
    reminder = choice(6.6, "Home", "Calendar")
    cart = choice(4.5, "Home", "ShopMall")
    hybrid = hybrid_for(("Gallery", "Messages"), reminder, cart)
    chosen = hybrid.plan(object(), object())
    assert not hybrid.on_graph and [g.app for g in chosen.subgoals] == ["Gallery", "Messages"]
    assert hybrid.policy.state.choice is reminder  # nothing swapped


def test_a_longer_way_through_the_models_apps_is_cut_after_them() -> None:
    notes = choice(6.0, "Home", "Notes")
    weather_then_mail = choice(3.0, "Home", "Weather", "Weather", "Home", "Mail")
    hybrid = hybrid_for(("Weather",), notes, weather_then_mail)
    chosen = hybrid.plan(object(), object())
    assert hybrid.on_graph and [g.app for g in chosen.subgoals] == ["Weather"]
    assert [s.app for s in hybrid.policy.script] == ["Home", "Weather", "Weather"]


def test_once_started_the_graph_keeps_its_plan() -> None:
    reminder = choice(6.6, "Home", "Calendar")
    buy = choice(5.9, "Home", "ShopMall")
    policy = GraphPolicy(
        cast(Any, None),
        state=PolicyState(script=list(reminder.steps), choice=reminder, alternatives=[buy],
                          started=True),
    )  # fmt: skip
    assert policy.follow_apps(["shopmall"]) is None and policy.state.choice is reminder
