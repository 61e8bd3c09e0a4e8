"""``eval generalize --slot-filler model``: the model fills the model-free team's slots."""

from __future__ import annotations

import json
from pathlib import Path

from guigraph.choices import SlotFilling
from guigraph.compiler.fillers import ModelFiller, RuleFiller, SlotRequest
from guigraph.envs.simphone.generalize import Half, item_task, load
from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
from guigraph.eval.generalize import GeneralizeConfig, plan, run_generalize
from guigraph.graph.records import SlotKey, Trace
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer
from guigraph.types import Task
from tests.eval.slot_oracle import SlotOracle, recorded_tasks


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
    with FakeModelServer(SlotOracle(tasks, recorded_tasks(out / "logs"))) as server:
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


def test_the_oracle_gives_a_slot_the_new_tasks_value_of_its_meaning_or_none() -> None:
    """The oracle is a right model: a recorded value takes the new task's parameter meaning
    what it meant (the contact, the product); a meaning the task lacks (an email's subject, a
    note's title) is null, the rules' to fill, though the task's product has its form."""
    mail = Task("r1", "Email Hiro with the subject Yoga class", apps=("Mail",),
                params={"contact": "Hiro", "subject": "Yoga class"})  # fmt: skip
    note = Task("r2", "Find the price of the Lumen camera bag and note it down under Trip plan",
                apps=("ShopMall", "Notes"), params={"product": "Lumen camera bag",
                                                    "title": "Trip plan"})  # fmt: skip
    task = Task("t", "Email Dana the price of the Zephyr kettle", apps=("ShopMall", "Mail"),
                params={"product": "Zephyr kettle", "contact": "Dana"})  # fmt: skip
    donors = [
        Trace("e1", mail.instruction, "social", ("Mail",), (1, 2), (3,), 4, values={
            SlotKey(3, "text1"): "Hiro", SlotKey(3, "text2"): "Yoga class"}),
        Trace("e2", note.instruction, "multi", ("ShopMall", "Notes"), (1, 2), (3,), 4, values={
            SlotKey(5, "text1"): "Lumen camera bag", SlotKey(6, "text1"): "Trip plan"}),
    ]  # fmt: skip
    with FakeModelServer(SlotOracle([task], [mail, note])) as server:
        client = ChatClient(ModelConfig(model="test-model", base_url=server.base_url))
        filler = ModelFiller(client, {})
        filler.prepare(task.instruction, donors)

        def fill(recorded: str, donor: Task) -> str | None:
            return filler.fill(SlotRequest(recorded, donor.instruction, task.instruction))

        assert fill("Hiro", mail) == "Dana"
        assert fill("Lumen camera bag", note) == "Zephyr kettle"
        for recorded, donor in (("Yoga class", mail), ("Trip plan", note)):
            rules = RuleFiller().fill(SlotRequest(recorded, donor.instruction, task.instruction))
            assert fill(recorded, donor) == rules != "Zephyr kettle"
    counts = filler.counts
    assert (counts.calls, counts.answered, counts.unanswered, counts.refused) == (1, 2, 2, 0)
