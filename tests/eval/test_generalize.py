"""The generalization benchmark's protocol: a fixed split, a guarded frozen half, world-judged
items (reworded tasks and new pairings)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.generalize import (
    Half,
    Item,
    Kind,
    item_task,
    load,
    packaged,
    render,
    spell_number,
    split,
)
from guigraph.envs.simphone.pairings import PAIRINGS
from guigraph.envs.simphone.tasks import make_task, plan_for
from guigraph.errors import ConfigError
from guigraph.eval.generalize import GeneralizeConfig, run_generalize
from guigraph.types import Task


def _expert_succeeds(task: Task, seed: int) -> bool:
    env = SimPhone("Pixel 7 Pro")
    try:
        env.reset(task, seed)
        expert = Expert(env, plan_for(task, env.world), seed)
        for _ in range(80):
            if env.step(expert.next_action()).done:
                break
        verdict = env.evaluate()
        return verdict is not None and verdict.success
    finally:
        env.close()


def _untouched_succeeds(task: Task, seed: int) -> bool:
    env = SimPhone("Pixel 7 Pro")
    try:
        env.reset(task, seed)
        verdict = env.evaluate()
        return verdict is not None and verdict.success
    finally:
        env.close()


def test_split_is_deterministic_disjoint_and_order_free() -> None:
    items = list(packaged().items)
    halves = split(items)
    shuffled = items[:]
    random.Random(3).shuffle(shuffled)
    assert split(shuffled) == halves
    assert set(halves) == {item.item_id for item in items}
    dev = {i for i, h in halves.items() if h is Half.DEV}
    frozen = {i for i, h in halves.items() if h is Half.FROZEN}
    assert dev and frozen and not dev & frozen
    # every reworded template has wordings in both halves; a pairing is in one half whole
    for kind, whole in ((Kind.REWORDED, False), (Kind.PAIRING, True)):
        groups: dict[str, set[Half]] = {}
        for item in items:
            if item.kind is kind:
                groups.setdefault(item.group, set()).add(halves[item.item_id])
        assert all(len(h) == (1 if whole else 2) for h in groups.values()), kind
    benchmark = packaged()
    assert {i.item_id for i in benchmark.half(Half.DEV)} == dev


def test_frozen_half_is_refused_without_the_explicit_flag(tmp_path: Path) -> None:
    config = GeneralizeConfig(half=Half.FROZEN)
    with pytest.raises(ConfigError, match="frozen half"):
        run_generalize(tmp_path / "run", config)
    assert not (tmp_path / "run").exists()  # refused before recording or building anything


def test_a_reworded_task_is_the_template_task_in_other_words_judged_by_the_world() -> None:
    item = next(
        i for i in packaged().items if i.template_id == "tool.timer" and "words" in i.wording
    )
    seed = 424_242
    recorded, reworded = make_task("tool.timer", seed), item_task(item, seed)
    assert reworded.params == recorded.params and reworded.template_id == recorded.template_id
    assert reworded.instruction != recorded.instruction
    assert recorded.params["minutes"] not in reworded.instruction  # the number is spelled out
    assert _expert_succeeds(reworded, seed)
    assert not _untouched_succeeds(reworded, seed)


def test_every_pairing_is_doable_and_never_done_by_doing_nothing() -> None:
    items = {i.group: i for i in packaged().items if i.kind is Kind.PAIRING}
    assert len(items) >= 12
    for item in items.values():
        task = item_task(item, 17)
        assert item.template_id in PAIRINGS
        assert _expert_succeeds(task, 17), item.item_id
        assert not _untouched_succeeds(task, 17), item.item_id


def test_a_pairing_checker_wants_the_read_value_not_another(tmp_path: Path) -> None:
    item = next(i for i in packaged().items if i.group == "temperature_post")
    task = item_task(item, 23)
    env = SimPhone("Pixel 7 Pro")
    try:
        env.reset(task, 23)
        right = env.world.catalog.weather[task.params["city"]].temperature
        env.world.data.posts.append(f"It is {right + 1}°C there")
        assert not env.evaluate().success  # type: ignore[union-attr]
        env.world.data.posts.append(f"It is {right}°C there")
        assert env.evaluate().success  # type: ignore[union-attr]
    finally:
        env.close()


def test_wording_forms() -> None:
    assert spell_number(25) == "twenty-five" and spell_number(70) == "seventy"
    assert spell_number(100) == "one hundred"
    assert render("{t:12h} / {t:hour}", {"t": "19:30"}) == "7:30 pm / 19:30"
    assert render("{t:hour}", {"t": "07:05"}) == "7:05"
    assert render("{d:month}", {"d": "Jun 14"}) == "June 14"
    assert render("{s:switch} wifi", {"s": "off"}) == "Disable wifi"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '[[reworded]]\ntemplate = "tool.timer"\nwordings = ["Set {seconds}"]',
            r"wordings\[0\].*\{seconds\}",
        ),
        (
            '[[reworded]]\ntemplate = "tool.timer"\nwordings = ["Set {minutes:roman}"]',
            "unknown form 'roman'",
        ),
        (
            '[[reworded]]\ntemplate = "multi.price_message"\nwordings = ["x"]',
            "recorded SimPhone template",
        ),
        ('[[pairing]]\nid = "p"\nreading = "price"\nuse = "fax"\nwordings = ["x"]', "use one of"),
        ('[[pairing]]\nid = "p"\nreading = "price"\nuse = "post"\nwordings = []', "non-empty list"),
        ("[[reworded]\n", "not valid TOML"),
    ],
)
def test_a_bad_benchmark_file_is_named_with_the_field_at_fault(
    tmp_path: Path, entry: str, message: str
) -> None:
    path = tmp_path / "bench.toml"
    path.write_text(entry)
    with pytest.raises(ConfigError, match=message) as raised:
        load(path)
    assert str(path) in str(raised.value)


def test_items_are_unique_and_cover_every_recorded_template() -> None:
    from guigraph.eval.demo import evaluated_templates

    seen, _ = evaluated_templates()
    items: list[Item] = list(packaged().items)
    assert {i.template_id for i in items if i.kind is Kind.REWORDED} == set(seen)
    assert len({i.item_id for i in items}) == len(items)


#: (reading, use) of the suite's multi-app templates, recorded or held out for the demo.
SUITE_PAIRS = {
    ("temperature", "note"), ("note_body", "message"), ("temperature", "message"),
    ("price", "note"), ("price", "message"), ("first_lyric", "post"), ("event_time", "alarm"),
    ("headline", "mail"), ("artist", "message"), ("last_message", "note"),
}  # fmt: skip


def test_pairings_are_combinations_the_suite_never_has() -> None:
    import tomllib
    from importlib import resources

    text = resources.files("guigraph.envs.simphone").joinpath("generalize.toml").read_text()
    pairs = [(p["reading"], p["use"]) for p in tomllib.loads(text)["pairing"]]
    assert len(set(pairs)) == len(pairs)
    assert not set(pairs) & SUITE_PAIRS


def test_a_run_records_its_half_resumes_and_logs_every_frozen_run(tmp_path: Path) -> None:
    from guigraph.eval.demo import DemoConfig

    path = tmp_path / "bench.toml"
    path.write_text(
        '[[reworded]]\ntemplate = "tool.wifi"\n'
        'wordings = ["Wi-Fi {state}, please", "Please turn the Wi-Fi {state} now"]\n'
        '[[pairing]]\nid = "tiny"\nreading = "price"\nuse = "post"\n'
        'wordings = ["Post the price of the {product} on Chirp"]\n'
    )
    benchmark = load(path)
    demo = DemoConfig(episodes=4, seed=3)
    small = {"reworded_seeds": 1, "pairing_seeds": 1}
    dev = GeneralizeConfig(demo, Half.DEV, **small)
    report = run_generalize(tmp_path / "run", dev, benchmark=benchmark)
    assert report["half"] == "dev" and report["setup"]["frozen_runs"] == 0
    # one reworded wording and its recorded wording, one pairing wording; both memories
    assert [report[k]["graph"]["episodes"] for k in ("reworded", "recorded", "pairing")] == [
        1, 1, 1,
    ]  # fmt: skip
    assert report["pairing"]["trace"]["episodes"] == 1
    lines = (tmp_path / "run" / "generalize-dev.jsonl").read_text().splitlines()
    assert len(lines) == 6
    # each case names the world it ran on, so a re-run (bench/generalize_cases.py) uses it too
    first = json.loads(lines[0])
    assert (first["device"], first["skin"]) == ("Pixel 7 Pro", "standard")
    again = run_generalize(tmp_path / "run", dev, benchmark=benchmark)  # resumed: nothing rerun
    assert (tmp_path / "run" / "generalize-dev.jsonl").read_text().splitlines() == lines
    assert {k: again[k] for k in ("reworded", "pairing")} == {
        k: report[k] for k in ("reworded", "pairing")
    }
    frozen = GeneralizeConfig(demo, Half.FROZEN, **small)
    report = run_generalize(tmp_path / "run", frozen, allow_frozen=True, benchmark=benchmark)
    assert report["half"] == "frozen" and report["setup"]["frozen_runs"] == 1
    # the frozen half's failures are counted, never shown: reading them would be tuning to them
    rows = [json.loads(x) for x in (tmp_path / "run" / "generalize-frozen.jsonl").open()]
    failed = sum(r["memory"] == "graph" and not r["success"] for r in rows)
    assert report["failures"] == [] and report["failures_count"] == failed
    assert report["pairing"]["graph"]["episodes"] == 0  # the one pairing is in the dev half


def test_the_same_cases_run_on_a_kb_built_with_another_encoder(tmp_path: Path) -> None:
    from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
    from guigraph.eval.generalize import plan, run_cases
    from guigraph.graph.from_logs import build_from_logs
    from guigraph.graph.kb import KnowledgeBase

    path = tmp_path / "bench.toml"
    path.write_text(
        '[[reworded]]\ntemplate = "tool.wifi"\nwordings = ["Please turn the Wi-Fi {state} now"]\n'
    )
    config = GeneralizeConfig(DemoConfig(episodes=4, seed=3), Half.DEV, reworded_seeds=1)
    used_seeds, _ = prepare_kb(tmp_path / "demo", config.demo, SilentReporter())
    other_kb = tmp_path / "kb-hashing-64"
    build_from_logs(tmp_path / "demo" / "logs", other_kb, encoder="hashing:64")
    with KnowledgeBase.open(other_kb) as kb:
        assert kb.settings.encoder == "hashing:64"  # the KB records which encoder built it
    cases, items = plan(load(path).half(Half.DEV), Half.DEV, config, used_seeds)
    assert len(cases) == 4  # the wording and its recorded wording, on one world, both memories
    # results beside no kb/ folder: the cases can only have run on the KB passed in
    results = tmp_path / "elsewhere" / "results.jsonl"
    results.parent.mkdir()
    rows = run_cases(results, other_kb, cases, items, config, SilentReporter())
    assert sorted(row["key"] for row in rows) == sorted(case.key for case in cases)
    lines = results.read_text().splitlines()
    # resumed: nothing rerun, and only the cases asked for are returned
    again = run_cases(results, other_kb, cases[:1], items, config, SilentReporter())
    assert results.read_text().splitlines() == lines
    assert [row["key"] for row in again] == [cases[0].key]


def test_a_model_policy_runs_the_model_team_keyed_apart_and_counts_its_calls(
    tmp_path: Path,
) -> None:
    from guigraph.choices import Policy
    from guigraph.eval.demo import DemoConfig, SilentReporter, prepare_kb
    from guigraph.eval.generalize import plan
    from guigraph.llm.config import ModelConfig
    from guigraph.testing import FakeModelServer
    from tests.agents.oracle import Oracle

    path = tmp_path / "bench.toml"
    path.write_text(
        '[[reworded]]\ntemplate = "tool.wifi"\nwordings = ["Please turn the Wi-Fi {state} now"]\n'
    )
    benchmark, out = load(path), tmp_path / "run"
    graph = GeneralizeConfig(DemoConfig(episodes=4, seed=3), Half.DEV, reworded_seeds=1,
                             memories=("graph",))  # fmt: skip
    first = run_generalize(out, graph, benchmark=benchmark)
    assert first["policy"] == "graph" and "usage" not in first
    assert first["reworded"]["trace"]["episodes"] == 0  # one memory asked for
    used_seeds, _ = prepare_kb(out, graph.demo, SilentReporter())  # the KB is there: reused
    cases, items = plan(benchmark.half(Half.DEV), Half.DEV, graph, used_seeds)
    tasks = [(item_task(items[c.item_id], c.seed), c.seed) for c in cases]
    with FakeModelServer(Oracle([], worded=tasks), models=("oracle",)) as server:
        model = ModelConfig(model="oracle", base_url=server.base_url).to_dict()
        hybrid = GeneralizeConfig(graph.demo, Half.DEV, reworded_seeds=1, policy=Policy.HYBRID,
                                  model=model, memories=("graph",))  # fmt: skip
        report = run_generalize(out, hybrid, benchmark=benchmark)
        calls = server.request_count
        # the model-free rows of the same cases are not the hybrid team's: both ran
        assert report["policy"] == "hybrid"
        assert [report[k]["graph"]["successes"] for k in ("reworded", "recorded")] == [1, 1]
        rows = [json.loads(line) for line in (out / "generalize-dev.jsonl").open()]
        assert sorted((r["policy"], r["key"].startswith("hybrid|")) for r in rows) == [
            ("graph", False), ("graph", False), ("hybrid", True), ("hybrid", True),
        ]  # fmt: skip
        # the run's calls, as the server counted them, in the usage file the report names
        usage = report["usage"]
        assert usage["calls"] > 0 and calls >= usage["calls"]
        saved = json.loads(Path(usage["file"]).read_text())
        assert saved["run"]["calls"] == usage["calls"] and saved["run"]["failed_calls"] == 0
        assert report["model"] == {"model": "oracle", "base_url": server.base_url, "vision": True}
        again = run_generalize(out, hybrid, benchmark=benchmark)  # resumed: no call made
        assert server.request_count == calls and again["usage"]["calls"] == 0


def test_a_model_policy_against_no_server_is_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from guigraph.cli.main import app

    result = CliRunner().invoke(app, [
        "eval", "generalize", "--out", str(tmp_path / "run"), "--policy", "hybrid",
        "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--max-attempts", "1",
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()  # nothing started


def test_a_run_resumed_within_the_same_second_gets_a_usage_file_of_its_own(
    tmp_path: Path,
) -> None:
    """The usage file is named by the second a run starts; the run resumed right after a
    first one (as the test above does) reported the first run's calls as its own."""
    from guigraph.choices import Policy
    from guigraph.eval.demo import DemoConfig
    from guigraph.eval.generalize import _usage_path

    config = GeneralizeConfig(DemoConfig(episodes=4, seed=3), Half.DEV, policy=Policy.HYBRID)
    first = _usage_path(tmp_path, config)
    first.parent.mkdir(parents=True)
    first.write_text("{}")
    second = _usage_path(tmp_path, config)
    assert second != first and not second.exists()
    assert second.parent == first.parent and second.name.startswith("generalize-dev-hybrid-")
