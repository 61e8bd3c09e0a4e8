import random

import numpy as np
import pytest

from guigraph.eval.metrics import (
    ScoredStep,
    action_matching_score,
    category_mean,
    episode_outcomes,
    per_category,
    summarize,
)


def episode(
    episode_id: str, category: str, verdicts: str, length: int | None = None
) -> list[ScoredStep]:
    """Steps from a string of verdict letters: c=correct click, f=failed click, a=action_fail,
    t=type_correct, x=type_fail, i=invalid, -=missing step."""
    names = {
        "c": "click_correct",
        "f": "click_fail",
        "a": "action_fail",
        "t": "type_correct",
        "x": "type_fail",
        "i": "invalid",
    }
    n = length if length is not None else len(verdicts)
    return [
        ScoredStep(episode_id, i, category, n, names[v].endswith("_correct"), names[v])
        for i, v in enumerate(verdicts)
        if v != "-"
    ]


def test_ams_and_sr_pooled() -> None:
    steps = episode("e1", "Web_Shopping", "cct") + episode("e2", "Web_Shopping", "cfa")
    summary = summarize(steps)
    assert summary.ams == round(4 / 6 * 100, 2) == 66.67
    assert (summary.successes, summary.episodes, summary.sr) == (1, 2, 50.0)
    assert action_matching_score(steps) == 66.67


def test_missing_steps_are_reported_not_hidden() -> None:
    steps = (
        episode("full", "General_Tool", "cc")
        + episode("gap", "General_Tool", "c-c")  # step 1 missing
        + episode("short", "General_Tool", "cc", length=4)  # steps 2, 3 missing
    )
    outcomes, incomplete = episode_outcomes(steps)
    assert outcomes == {"full": True}
    assert [(e.episode_id, e.present, e.missing) for e in incomplete] == [
        ("gap", 2, (1,)),
        ("short", 2, (2, 3)),
    ]
    summary = summarize(steps)
    # AMS counts every step present; SR can only judge the complete episode.
    assert (summary.steps, summary.ams) == (6, 100.0)
    assert (summary.episodes, summary.sr) == (1, 100.0)
    assert len(summary.incomplete_episodes) == 2
    assert summary.to_dict()["incomplete_episodes"][0]["missing"] == [1]
    assert summary.per_category["General_Tool"].incomplete == 2


def test_contradictory_records_raise() -> None:
    with pytest.raises(ValueError, match="twice"):
        episode_outcomes(episode("e", "Multi_Apps", "cc") + episode("e", "Multi_Apps", "c", 2))
    with pytest.raises(ValueError, match="step lengths"):
        episode_outcomes(episode("e", "Multi_Apps", "c") + episode("e", "Multi_Apps", "-c", 3))


def test_category_mean_differs_from_pooled() -> None:
    steps = episode("a", "General_Tool", "cc") + [
        s for i in range(3) for s in episode(f"b{i}", "Social_Sharing", "cf" if i else "cccccc")
    ]
    pooled = summarize(steps, "pooled")
    mean = summarize(steps, "category-mean")
    tool, social = per_category(steps)["General_Tool"], per_category(steps)["Social_Sharing"]
    assert (tool.ams, tool.sr) == (100.0, 100.0)
    assert (social.ams, social.sr) == (80.0, 33.33)
    # (100 + 33.33) / 2 is 66.66499... in binary: numpy (and we) round it to 66.66.
    assert (mean.ams, mean.sr) == (90.0, 66.66)
    assert (pooled.ams, pooled.sr) == (round(10 / 12 * 100, 2), 50.0)


def test_category_mean_rounds_like_numpy() -> None:
    """The official overall = np.round(np.mean(per-category values rounded to 2), 2)."""
    rng = random.Random(3)
    for _ in range(300):
        steps = []
        for c, category in enumerate(["A", "B", "C", "D", "E", "F"]):
            for e in range(rng.randint(1, 5)):
                steps += episode(f"{c}-{e}", category, "".join(rng.choice("cf") for _ in "xyz"))
        categories = per_category(steps)
        ams, sr = category_mean(categories)
        assert ams == float(np.round(np.mean([c.ams for c in categories.values()]), 2))
        assert sr == float(np.round(np.mean([c.sr for c in categories.values()]), 2))


def test_action_type_and_text_accuracy() -> None:
    steps = episode("e", "Web_Shopping", "ctxai")
    official = summarize(steps, mode="official")
    strict = summarize(steps, mode="strict")
    # Official counts an invalid step as type-correct (only action_fail is a type miss).
    assert (official.action_type_correct, official.action_type_accuracy) == (4, 80.0)
    assert (strict.action_type_correct, strict.action_type_accuracy) == (3, 60.0)
    assert (official.text_correct, official.text_total, official.text_accuracy) == (1, 2, 50.0)
    assert official.verdict_counts["invalid"] == 1
    assert summarize(episode("e", "Web_Shopping", "cc")).text_accuracy is None


def test_bad_aggregate_and_empty_input() -> None:
    with pytest.raises(ValueError, match="aggregate"):
        summarize([], "macro")  # type: ignore[arg-type]
    empty = summarize([])
    assert (empty.ams, empty.sr, empty.steps, empty.episodes) == (0.0, 0.0, 0, 0)
