import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from guigraph.data.odyssey import write_episode
from guigraph.eval.metrics import summarize
from guigraph.eval.steps import predicted_step, score_records
from guigraph.types import Episode

BENCH = Path(__file__).resolve().parents[2] / "bench" / "score.py"


def test_episode_steps_become_records(tmp_path: Path) -> None:
    from tests.data.conftest import make_v2_episode

    episode: Episode = make_v2_episode()
    write_episode(tmp_path, episode)
    records = [predicted_step(episode, i, pred) for i, pred in enumerate(
        ["CLICK: (280, 250)", "TYPE: gym", "SCROLL: UP", "LONG_PRESS: (12, 990)", "PRESS_HOME",
         "COMPLETE"])]  # fmt: skip
    assert records[0].gt == "CLICK: (287, 259)" and records[0].sam2_bbox == (271, 233, 298, 277)
    assert records[1].gt == "TYPE: gym: near me" and records[1].sam2_bbox == ()
    summary = summarize(score_records(records))
    assert (summary.ams, summary.sr, summary.episodes) == (100.0, 100.0, 1)


def test_bench_generator_and_script_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH.parent))  # its helper, bench/benchrun.py
    monkeypatch.setenv("GUIGRAPH_BENCH_RESULTS", str(tmp_path))  # not bench/results
    spec = importlib.util.spec_from_file_location("bench_score", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    records = module.synthetic_records(500, seed=1)
    assert len(records) == 500
    assert {r.episode_id for r in records if r.gt == "COMPLETE"} == {r.episode_id for r in records}
    out = subprocess.run(
        [sys.executable, str(BENCH), "--steps", "2000", "--repeat", "1", "--jsonl"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "2,000 steps" in out.stdout and "end to end" in out.stdout
    result = json.loads((tmp_path / "score-official.json").read_text())
    assert result["figures"]["steps"] == 2000 and result["command"].endswith("--jsonl")
