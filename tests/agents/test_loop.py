"""The episode loop on a toy world: success, verification retries, recovery, loops, budgets."""

from __future__ import annotations

from guigraph.agents.loop import Budget, EpisodeResult, LoopStep, run_episode
from guigraph.agents.roles import OutcomeStatus, Plan
from guigraph.types import Action, ActionType, Observation, Task

from .scripted import ScriptDecider, make_team
from .toyworld import ToyWorld

TASK = Task("toy-1", "Search the shop for mouse", "Web_Shopping", ("shop",))


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []

    def on_start(self, task: Task, plan: Plan, context: object) -> None:
        self.events.append("start")

    def on_step(self, record: LoopStep, observation: Observation) -> None:
        self.events.append(f"step{record.step}")

    def on_end(self, result: EpisodeResult) -> None:
        self.events.append("end")


def test_happy_path_completes_with_narrative_and_callbacks() -> None:
    env, recorder = ToyWorld(), Recorder()
    decider = ScriptDecider(["Shop", "Search", "type:mouse", "Go"])
    result = run_episode(env, make_team(decider), TASK, seed=1, callbacks=[recorder])
    assert result.finished and env.succeeded()
    assert [a.type for a in result.actions][-1] is ActionType.COMPLETE
    assert recorder.events == ["start", *(f"step{i}" for i in range(5)), "end"]
    assert all(record.narrative for record in result.steps)
    assert "typed 'mouse'" in result.steps[2].narrative
    assert set(result.steps[0].timings) == {"plan", "decide", "act", "reflect"}


def test_verifier_rejects_typing_without_focus_and_decider_retries() -> None:
    env = ToyWorld()
    decider = ScriptDecider(["Shop", "type:mouse", "Search", "type:mouse", "Go"])
    result = run_episode(env, make_team(decider), TASK, seed=1)
    assert result.finished and env.succeeded()
    typing_step = result.steps[1]
    assert [a.verdict.approved for a in typing_step.attempts] == [False, True]
    assert "no text field is focused" in typing_step.attempts[0].verdict.feedback
    assert any("no text field is focused" in m for m in decider.seen_feedback)


def test_after_m_rejections_the_last_proposal_is_executed() -> None:
    env = ToyWorld()
    attempts = ["type:mouse", "type:mice", "type:a mouse", "type:mouse pad"]
    decider = ScriptDecider(["Shop", *attempts, "Search", "type:mouse", "Go"])
    team = make_team(decider)
    result = run_episode(env, team, TASK, seed=1)
    stubborn = result.steps[1]
    assert len(stubborn.attempts) == team.max_attempts == 4
    assert not any(a.verdict.approved for a in stubborn.attempts)
    assert stubborn.error == "no focused field"  # executed anyway, refused by the world
    assert stubborn.outcome.status is OutcomeStatus.FAILURE
    assert result.finished and env.succeeded()


def test_wrong_page_is_detected_and_recovered_with_back() -> None:
    env = ToyWorld()
    decider = ScriptDecider(["Shop", "Sponsored", "Search", "type:mouse", "Go"])
    # A locator that knows the graph says the Sponsored tap was meant to reach the results.
    team = make_team(decider, locate=lambda s: ("ad" if "Buy now!" in s.texts else "other", 1.0))
    original = decider._to_proposal

    def expect_results(entry, state):  # type: ignore[no-untyped-def]
        proposal = original(entry, state)
        return proposal.__class__(
            proposal.action, proposal.target, expect_node="results", expect_app="shop"
        )

    decider._to_proposal = expect_results  # type: ignore[method-assign]
    result = run_episode(env, team, TASK, seed=1)
    wrong, recovery = result.steps[1], result.steps[2]
    assert wrong.outcome.status is OutcomeStatus.FAILURE and "reached browser" in wrong.outcome.note
    assert recovery.recovery and recovery.executed.action.type is ActionType.PRESS_BACK
    assert result.finished and env.succeeded()


def test_popup_is_dismissed_and_run_continues() -> None:
    env = ToyWorld(popup_after_shop=True)
    decider = ScriptDecider(["Shop", "Not now", "Search", "type:mouse", "Go"])
    result = run_episode(env, make_team(decider), TASK, seed=1)
    assert "'Not now'" in result.steps[0].narrative or "Not now" in result.steps[1].narrative
    assert result.finished and env.succeeded()


def test_no_effect_is_reported_and_the_action_banned() -> None:
    env = ToyWorld()
    dead = "Dead button"
    decider = ScriptDecider(["Shop", dead, dead, "Search", "type:mouse", "Go"])
    result = run_episode(env, make_team(decider), TASK, seed=1)
    assert result.steps[1].outcome.status is OutcomeStatus.NO_EFFECT
    # The second identical tap was banned by the monitor, so the decider moved on.
    assert [r.executed.target.label for r in result.steps[1:3] if r.executed.target] == [
        dead,
        "Search",
    ]
    assert result.finished


def test_stuck_team_gives_up() -> None:
    env = ToyWorld()
    taps = [Action.click(500, 550 + i) for i in range(20)]  # all on the dead button
    result = run_episode(env, make_team(ScriptDecider(["Shop", *taps])), TASK, seed=1)
    assert result.reason == "stuck: no progress" and not result.finished
    assert len(result.steps) == 1 + 6


def test_an_action_refused_again_and_again_ends_the_episode_with_the_worlds_reason() -> None:
    env = ToyWorld()
    env.action_space = env.action_space - {ActionType.PRESS_BACK}
    back = Action(ActionType.PRESS_BACK)
    # Refusals in between other steps: each would reset a streak of no-effect steps.
    script = ["Shop", back, "Search", back, "type:mouse", back, "Go"]
    result = run_episode(env, make_team(ScriptDecider(script)), TASK, seed=1, budget=Budget(30))
    assert result.reason.startswith("stuck: the world refused press_back 3 times")
    assert "is not supported" in result.reason and not result.finished
    assert len(result.steps) == 6


def test_step_budget() -> None:
    env = ToyWorld()
    taps = [Action(ActionType.PRESS_BACK), Action.click(200, 150)] * 10
    result = run_episode(env, make_team(ScriptDecider(taps)), TASK, seed=1, budget=Budget(5))
    assert len(result.steps) == 5 and result.reason == "step budget of 5 exhausted"


def test_trajectory_writer_records_every_step(tmp_path) -> None:
    import json

    from guigraph.agents.trajectory import TrajectoryWriter

    env = ToyWorld()
    decider = ScriptDecider(["Shop", "type:mouse", "Search", "type:mouse", "Go"])
    run_dir = tmp_path / "run"
    result = run_episode(
        env, make_team(decider), TASK, seed=1, callbacks=[TrajectoryWriter(run_dir)]
    )
    lines = [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]
    assert [line["step"] for line in lines] == list(range(len(result.steps)))
    assert lines[1]["attempts"][0]["approved"] is False
    assert lines[-1]["executed"]["action"] == {"type": "complete"}
    assert len(list((run_dir / "screens").glob("*.png"))) == len(result.steps)
    saved = json.loads((run_dir / "result.json").read_text())
    assert saved["finished"] is True and saved["schema_version"] == 1
    assert json.loads((run_dir / "task.json").read_text())["plan"]["subgoals"][0]["app"] == "shop"
