"""``guigraph demo`` on a small scale: JSON shape, consistent numbers, resume without rework."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import ConfigError
from guigraph.eval import demo as demo_module
from guigraph.eval.demo import DemoConfig, held_out_templates, load_results, run_demo
from guigraph.eval.suite import CONDITIONS, MEMORIES, Sizes, resolve_task, summarize

#: Seen templates that the 40-episode logs' train split holds (a KB this small covers only some).
SEEN = ("info.weather", "media.video", "shop.cart")
HELD = ("multi.price_message", "multi.weather_message")
SIZES = (1, 2, 1)
#: cases = memories x (seen x 1 + held x 2 + seen x 1 on the tablet)
EXPECTED_CASES = 2 * (3 * 1 + 2 * 2 + 3 * 1)


def small_config() -> DemoConfig:
    return DemoConfig(episodes=40, seed=11, sizes=Sizes(*SIZES), templates=SEEN + HELD)


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("demo") / "run"
    args = ["demo", "--out", str(out), "--json", "--episodes", "40", "--seed", "11"]
    args += ["--instances", ",".join(map(str, SIZES)), "--templates", ",".join(SEEN + HELD)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_json_has_every_condition_and_memory_with_consistent_numbers(
    demo_run: tuple[Path, dict[str, Any]],
) -> None:
    _, report = demo_run
    expected_episodes = {"seen": 3, "unseen_templates": 4, "other_device": 3}
    for condition in CONDITIONS:
        for memory in MEMORIES:
            cell = report[condition][memory]
            assert cell["episodes"] == expected_episodes[condition]
            assert 0.0 <= cell["sr"] <= 1.0
            assert cell["sr"] == pytest.approx(cell["successes"] / cell["episodes"])
            per_category = cell["per_category"]
            assert sum(c["episodes"] for c in per_category.values()) == cell["episodes"]
            assert sum(c["successes"] for c in per_category.values()) == cell["successes"]
            for rate in per_category.values():
                assert rate["sr"] == pytest.approx(rate["successes"] / rate["episodes"])
    assert set(report["unseen_templates"]["graph"]["per_category"]) == {"Multi_Apps"}
    assert sorted(report["setup"]["held_out_templates"]) == sorted(HELD)


def test_folder_holds_logs_without_held_out_templates_kb_and_one_line_per_episode(
    demo_run: tuple[Path, dict[str, Any]],
) -> None:
    out, report = demo_run
    manifest = json.loads((out / "logs" / "simphone.json").read_text())
    assert len(manifest["episodes"]) == 40
    recorded = {episode["task"]["template_id"] for episode in manifest["episodes"]}
    assert recorded.isdisjoint(held_out_templates())
    assert report["setup"]["kb"]["traces"] == 32  # the train part: 80% of 40
    rows = load_results(out / "results.jsonl")
    assert len(rows) == EXPECTED_CASES == len({row["key"] for row in rows})
    # Evaluation instances are new: no seed of the logs is reused.
    assert {row["seed"] for row in rows}.isdisjoint(e["seed"] for e in manifest["episodes"])
    assert {row["device"] for row in rows if row["condition"] == "other_device"} == {"Pixel Tablet"}
    assert summarize(rows) == {k: report[k] for k in CONDITIONS}


def test_seen_templates_mostly_succeed_with_the_graph(
    demo_run: tuple[Path, dict[str, Any]],
) -> None:
    _, report = demo_run
    assert report["seen"]["graph"]["successes"] >= 2


def test_the_logs_test_split_is_replayed_and_scored_for_both_memories(
    demo_run: tuple[Path, dict[str, Any]],
) -> None:
    out, report = demo_run
    split = report["setup"]["test_split"]
    assert set(split) == set(MEMORIES)
    test_steps = sum(1 for _ in (out / "replay-graph.jsonl").open())
    for memory, scores in split.items():
        assert scores["episodes"] == 8  # the test part: 20% of 40
        assert scores["steps"] == test_steps > scores["episodes"]
        assert 0.0 <= scores["sr"] <= 100.0
        # 32 train episodes cover few of the test episodes' templates: some actions match.
        assert 0.0 < scores["ams"] <= 100.0, memory
    # The same scores as `guigraph score` on the written file.
    scored = CliRunner().invoke(app, ["score", str(out / "replay-trace.jsonl"), "--json"])
    assert json.loads(scored.stdout)["ams"] == pytest.approx(split["trace"]["ams"])


class CountingReporter:
    def __init__(self) -> None:
        self.stages: dict[str, int] = {}
        self.notes: list[str] = []

    def stage(self, description: str, total: int, done: int = 0) -> Callable[[], None]:
        self.stages[description] = 0

        def advance() -> None:
            self.stages[description] += 1

        return advance

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_a_killed_demo_resumes_without_redoing_finished_work(
    demo_run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source, report = demo_run
    out = tmp_path / "run"
    shutil.copytree(source, out)
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    kept = EXPECTED_CASES - 4
    # As a kill leaves it: some finished lines, then half a line.
    (out / "results.jsonl").write_text("".join(lines[:kept]) + lines[kept][:20])
    ran: list[str] = []
    real_run_case = demo_module.run_case

    def counting_run_case(case: Any, *args: Any) -> dict[str, Any]:
        ran.append(case.key)
        return real_run_case(case, *args)

    monkeypatch.setattr(demo_module, "run_case", counting_run_case)
    reporter = CountingReporter()
    resumed = run_demo(out, small_config(), reporter)
    assert len(ran) == EXPECTED_CASES - kept
    assert not {json.loads(line)["key"] for line in lines[:kept]} & set(ran)
    assert "recording logs" not in reporter.stages  # the finished logs were kept
    assert reporter.stages["building the knowledge base"] == 32  # all found already built
    assert any(f"resuming: {kept} finished episodes" in note for note in reporter.notes)
    rows = load_results(out / "results.jsonl")
    assert len(rows) == len({row["key"] for row in rows}) == EXPECTED_CASES
    assert resumed.summary == {k: report[k] for k in CONDITIONS}  # deterministic per seed

    assert resumed.setup["test_split"] == report["setup"]["test_split"]
    assert reporter.stages["test split · graph"] == 0  # every test episode already replayed

    ran.clear()
    again = run_demo(out, small_config(), CountingReporter())
    assert ran == [] and again.summary == resumed.summary


def test_results_of_other_code_are_not_reused(
    demo_run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source, _ = demo_run
    out = tmp_path / "run"
    shutil.copytree(source, out)
    marker = json.loads((out / "demo.json").read_text())
    assert marker["code"] == demo_module.code_fingerprint()
    monkeypatch.setattr(demo_module, "code_fingerprint", lambda: "changed-code")
    reporter = CountingReporter()
    demo_module._claim_folder(out, small_config(), reporter)
    assert any("code changed" in note for note in reporter.notes)
    assert not (out / "logs").exists() and not (out / "kb").exists()
    assert not (out / "results.jsonl").exists()
    assert json.loads((out / "demo.json").read_text())["code"] == "changed-code"
    demo_module._claim_folder(out, small_config(), reporter)  # same code now: nothing to do
    assert len(reporter.notes) == 1


def test_a_folder_made_with_other_logs_settings_is_refused(
    demo_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    source, _ = demo_run
    out = tmp_path / "run"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("logs", "kb", "results.jsonl"))
    other = DemoConfig(episodes=50, seed=11, templates=SEEN)
    with pytest.raises(ConfigError, match="episodes=40"):
        run_demo(out, other)
    assert not (out / "logs").exists()


def test_bad_demo_options_give_clear_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    bad_sizes = runner.invoke(app, ["demo", "--out", str(tmp_path), "--instances", "3,x,2"])
    assert bad_sizes.exit_code == 2 and "SEEN,HELD_OUT,OTHER_DEVICE" in bad_sizes.output
    bad_template = runner.invoke(app, ["demo", "--out", str(tmp_path), "--templates", "nope"])
    assert bad_template.exit_code == 2 and "unknown SimPhone templates" in bad_template.output
    assert not (tmp_path / "logs").exists()


def test_resolve_task_tells_templates_free_text_and_typos_apart() -> None:
    task, checkable = resolve_task("tool.wifi", 3)
    assert checkable and task.template_id == "tool.wifi" and task.task_id == "tool.wifi/3"
    free, checkable = resolve_task("Turn on the flashlight", 3)
    assert not checkable and free.template_id == "" and free.instruction.startswith("Turn")
    with pytest.raises(ValueError, match=r"unknown SimPhone template 'tool\.wify'"):
        resolve_task("tool.wify", 3)


def test_a_second_demo_in_the_same_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from guigraph.locks import folder_lock

    def must_not_record(*_: object) -> set[int]:
        raise AssertionError("the second demo touched the folder")

    monkeypatch.setattr(demo_module, "_ensure_logs", must_not_record)
    out = tmp_path / "demo"
    with folder_lock(out, demo_module.DEMO_LOCK, "held by this test"):
        result = CliRunner().invoke(app, ["demo", "--out", str(out), "--episodes", "4", "--fresh"])
    assert result.exit_code == 2, result.output
    assert "another demo is running in this folder" in result.output
    assert isinstance(result.exception, SystemExit)


def test_the_kb_is_built_with_the_chosen_encoder_and_a_folder_keeps_its_own(
    demo_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    from guigraph.eval.demo import SilentReporter, prepare_kb
    from guigraph.graph.kb import KnowledgeBase

    config = DemoConfig(episodes=12, seed=5, templates=SEEN, encoder="hashing:64")
    prepare_kb(tmp_path / "other", config, SilentReporter())
    with KnowledgeBase.open(tmp_path / "other" / "kb") as kb:
        assert kb.settings.encoder == "hashing:64"
        assert kb.encoder.encode(["a phrase"]).shape == (1, 64)
    source, report = demo_run
    assert report["setup"]["encoder"] == "hashing:256"
    out = tmp_path / "run"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("logs", "kb", "results.jsonl"))
    with pytest.raises(ConfigError, match="encoder="):
        run_demo(out, DemoConfig(episodes=40, seed=11, templates=SEEN, encoder="hashing:64"))
    assert not (out / "logs").exists()


def test_a_folder_whose_encoder_is_not_the_default_names_it_to_a_default_run(
    demo_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """The folder names its encoder and the default run names none: the refusal says which
    setting differs, not an empty list."""
    source, _ = demo_run
    out = tmp_path / "run"
    shutil.copytree(source, out, ignore=shutil.ignore_patterns("logs", "kb", "results.jsonl"))
    marker = json.loads((out / "demo.json").read_text())
    (out / "demo.json").write_text(json.dumps({**marker, "encoder": "minilm"}))
    with pytest.raises(ConfigError, match="encoder='minilm' where this run asks None"):
        run_demo(out, DemoConfig(episodes=40, seed=11, templates=SEEN))
    assert not (out / "logs").exists()


def test_an_encoder_that_cannot_load_is_told_before_any_work(tmp_path: Path) -> None:
    runner = CliRunner()
    unknown = runner.invoke(app, ["demo", "--out", str(tmp_path / "a"), "--encoder", "bogus"])
    assert unknown.exit_code == 2 and "unknown encoder spec 'bogus'" in unknown.output
    bad = runner.invoke(
        app, ["eval", "generalize", "--out", str(tmp_path / "b"), "--encoder", "hashing:3"]
    )
    assert bad.exit_code == 2 and "--encoder hashing:3" in bad.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
