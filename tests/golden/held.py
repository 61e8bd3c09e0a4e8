"""The one check every world's corpus makes: no case held is lost, and a gain is recorded."""

from __future__ import annotations

from collections.abc import Sequence

from guigraph.eval import corpus


def explain(outcomes: Sequence[corpus.Outcome]) -> str:
    return "\n".join(f"{o.case_id}: {o.why}" for o in outcomes)


def assert_held(outcomes: Sequence[corpus.Outcome], gains_too: bool = True) -> None:
    """No case held is lost. Gains are welcome, and recorded (``bench/corpus.py run FOLDER
    --record``) so that they are held from then on: an unrecorded gain fails too."""
    lost = corpus.lost(outcomes)
    assert not lost, explain(lost)
    gained = corpus.gained(outcomes) if gains_too else []
    assert not gained, "gained; record them: " + explain(gained)
