"""The roles' records and protocols, as the agents' code names them: they live in
``guigraph.roles``, below the compiler, which reads them too."""

from guigraph.roles import (
    ACTIONABLE_ROLES,
    Decider,
    ElementView,
    Feedback,
    GlobalPlanner,
    HistoryEntry,
    Narrator,
    Observer,
    Outcome,
    OutcomeChecker,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
    SubgoalPlanner,
    Verifier,
    VerifierVerdict,
)

__all__ = [
    "ACTIONABLE_ROLES",
    "Decider",
    "ElementView",
    "Feedback",
    "GlobalPlanner",
    "HistoryEntry",
    "Narrator",
    "Observer",
    "Outcome",
    "OutcomeChecker",
    "OutcomeStatus",
    "Plan",
    "Proposal",
    "SemanticState",
    "SubGoal",
    "SubgoalPlanner",
    "Verifier",
    "VerifierVerdict",
]
