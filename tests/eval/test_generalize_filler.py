"""``eval generalize --slot-filler model``: the model fills the model-free team's slots."""

from __future__ import annotations

import json
from pathlib import Path

from guigraph.choices import SlotFilling
from guigraph.envs.simphone.generalize import Half, item_task, load
from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
from guigraph.eval.generalize import GeneralizeConfig, plan, run_generalize
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer
from tests.eval.slot_oracle import SlotOracle


def test_the_model_filler_reaches_the_rule_fillers_sr_and_counts_its_values(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bench.toml"
    path.write_text(
        '[[reworded]]\ntemplate = "media.like"\nwordings = ["Give {song} a like, please"]\n'
    )
    benchmark, out = load(path), tmp_path / "run"
    demo = DemoConfig(episodes=4, seed=3)
    rule = GeneralizeConfig(demo, Half.DEV, reworded_seeds=1, memories=("graph",))
    by_rules = run_generalize(out, rule, benchmark=benchmark)
    assert by_rules["slot_filler"]["filler"] == "rule" and by_rules["slot_filler"]["calls"] == 0
    used_seeds, _ = prepare_kb(out, demo, SilentReporter())
    cases, items = plan(benchmark.half(Half.DEV), Half.DEV, rule, used_seeds)
    tasks = [item_task(items[c.item_id], c.seed) for c in cases]
    with FakeModelServer(SlotOracle(tasks)) as server:
        model = ModelConfig(model="test-model", base_url=server.base_url).to_dict()
        by_model = GeneralizeConfig(demo, Half.DEV, reworded_seeds=1, memories=("graph",),
                                    slot_filler=SlotFilling.MODEL, model=model)  # fmt: skip
        report = run_generalize(out, by_model, benchmark=benchmark)
    for kind in ("reworded", "recorded"):
        # at least the rules' SR (here the model finds a song the rules miss)
        assert report[kind]["graph"]["sr"] >= by_rules[kind]["graph"]["sr"], kind
        assert report[kind]["graph"]["episodes"] == 1
    filled = report["slot_filler"]
    assert filled["filler"] == "model" and filled["calls"] == 2  # one per task
    assert filled["answered"] >= 2 and filled["failed_calls"] == 0
    rows = [json.loads(line) for line in (out / "generalize-dev.jsonl").open()]
    assert sum(r["key"].startswith("model-filler|") for r in rows) == 2  # keyed apart
