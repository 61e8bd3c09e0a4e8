"""``kb check``: score a build against SimPhone's ground truth (the builder never reads it).

Truth lives in ``LOGS/truth/<episode_id>.json``: for every step the true identity of the
screen (``"<app>.<screen_type>"``) and whether the step's action moved to another identity.
- jump accuracy: the judge's verdicts against ``transition`` over steps where it is not null;
- purity: share of steps whose node's most common true screen is their own;
- ARI: adjusted Rand index between node ids and true screens (sklearn).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import DatasetError

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase

TRUTH_SCHEMA_VERSION = 1
_TRANSITIONS = {"jump", "in_page", None}


def truth_document(episode_id: str, screens: Sequence[str], **about: str) -> dict[str, Any]:
    """The truth file of an episode whose steps showed ``screens``: a step's action jumped
    when the next screen is another one (the last step has no next). ``about``: where the
    truth came from (a template id, a converter), kept for people reading the file."""
    steps = [
        {
            "step": i,
            "screen": screen,
            "transition": None
            if i == len(screens) - 1
            else ("jump" if screens[i + 1] != screen else "in_page"),
        }
        for i, screen in enumerate(screens)
    ]
    return {
        "schema_version": TRUTH_SCHEMA_VERSION, "episode_id": episode_id, **about, "steps": steps
    }  # fmt: skip


@dataclass(frozen=True)
class CheckReport:
    jump_accuracy: float
    purity: float
    ari: float
    steps: int
    judged_steps: int
    episodes: int
    nodes: int
    true_screens: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_truth(path: Path) -> list[tuple[str, str | None]]:
    """[(screen, transition)] per step of one truth file, validated."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(path, None, "a readable JSON truth file", str(exc)) from exc
    if data.get("schema_version") != TRUTH_SCHEMA_VERSION:
        raise DatasetError(
            path, "schema_version", str(TRUTH_SCHEMA_VERSION), data.get("schema_version")
        )
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise DatasetError(path, "steps", "a list", steps)
    out = []
    for position, step in enumerate(steps):
        if not isinstance(step, dict) or step.get("step") != position:
            raise DatasetError(path, f"steps[{position}].step", str(position), step)
        if step.get("transition") not in _TRANSITIONS:
            raise DatasetError(
                path,
                f"steps[{position}].transition",
                "'jump', 'in_page' or null",
                step.get("transition"),
            )
        out.append((str(step["screen"]), step.get("transition")))
    return out


def check(kb: KnowledgeBase, logs_dir: str | Path) -> CheckReport:
    from sklearn.metrics import adjusted_rand_score

    truth_dir = Path(logs_dir) / "truth"
    if not truth_dir.is_dir():
        raise DatasetError(truth_dir, None, "a folder of <episode_id>.json truth files")
    by_episode: dict[str, list[tuple[int, int, str | None]]] = defaultdict(list)
    for episode_id, step, node, verdict in kb.step_assignments():
        by_episode[episode_id].append((step, node, verdict))
    node_labels: list[int] = []
    true_labels: list[str] = []
    judged = correct = 0
    for episode_id, rows in by_episode.items():
        truth = read_truth(truth_dir / f"{episode_id}.json")
        if len(truth) != len(rows):
            raise DatasetError(
                truth_dir / f"{episode_id}.json", "steps", f"{len(rows)} steps as built", len(truth)
            )
        for (_step, node, verdict), (screen, transition) in zip(rows, truth, strict=True):
            node_labels.append(node)
            true_labels.append(screen)
            if transition is not None and verdict is not None:
                judged += 1
                correct += verdict == transition
    return CheckReport(
        jump_accuracy=correct / judged if judged else 0.0,
        purity=_purity(node_labels, true_labels),
        ari=float(adjusted_rand_score(true_labels, node_labels)) if node_labels else 0.0,
        steps=len(node_labels),
        judged_steps=judged,
        episodes=len(by_episode),
        nodes=len(set(node_labels)),
        true_screens=len(set(true_labels)),
    )


def _purity(nodes: list[int], screens: list[str]) -> float:
    if not nodes:
        return 0.0
    members: dict[int, Counter[str]] = defaultdict(Counter)
    for node, screen in zip(nodes, screens, strict=True):
        members[node][screen] += 1
    return sum(c.most_common(1)[0][1] for c in members.values()) / len(nodes)
