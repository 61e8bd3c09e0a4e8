"""Plain-dict forms of the loop's records, for trajectory files and JSON output."""

from __future__ import annotations

from typing import Any

from guigraph.agents.loop import Attempt, EpisodeResult, LoopStep
from guigraph.agents.roles import Plan, Proposal, SubGoal


def subgoal_dict(subgoal: SubGoal) -> dict[str, Any]:
    return {
        "description": subgoal.description,
        "app": subgoal.app,
        "target_node": subgoal.target_node,
        "final": subgoal.final,
    }


def plan_dict(plan: Plan) -> dict[str, Any]:
    return {"subgoals": [subgoal_dict(s) for s in plan.subgoals], "rationale": plan.rationale}


def proposal_dict(proposal: Proposal) -> dict[str, Any]:
    return {
        "action": proposal.action.to_dict(),
        "target": proposal.target.label if proposal.target else None,
        "reason": proposal.reason,
        "source": proposal.source,
        "expect_node": proposal.expect_node,
    }


def attempt_dict(attempt: Attempt) -> dict[str, Any]:
    return {
        "proposal": proposal_dict(attempt.proposal),
        "approved": attempt.verdict.approved,
        "feedback": attempt.verdict.feedback,
        "subgoal": attempt.subgoal.description,
    }


def step_dict(record: LoopStep) -> dict[str, Any]:
    return {
        "step": record.step,
        "app": record.app,
        "node_id": record.node_id,
        "subgoal": subgoal_dict(record.subgoal),
        "attempts": [attempt_dict(a) for a in record.attempts],
        "executed": proposal_dict(record.executed),
        "error": record.error,
        "outcome": {"status": record.outcome.status.value, "note": record.outcome.note},
        "narrative": record.narrative,
        "recovery": record.recovery,
        "timings_ms": {k: round(v * 1000, 3) for k, v in record.timings.items()},
    }


def result_dict(result: EpisodeResult) -> dict[str, Any]:
    return {
        "task": result.task.to_dict(),
        "finished": result.finished,
        "reason": result.reason,
        "steps": len(result.steps),
        "seconds": round(result.seconds, 3),
        "actions": [record.executed.action.to_dict() for record in result.steps],
    }
