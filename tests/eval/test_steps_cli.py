import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.errors import DatasetError
from guigraph.eval.steps import read_steps, score_records

runner = CliRunner()


def row(episode_id: str = "e1", step: int = 0, **changes: object) -> dict:
    base = {
        "episode_id": episode_id,
        "step": step,
        "category": "Web_Shopping",
        "step_length": 2,
        "gt": "CLICK: (500, 500)",
        "pred": "CLICK: (510, 505)",
        "sam2_bbox": [450, 450, 550, 550],
    }
    base.update(changes)
    return base


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("bad", "field", "expected"),
    [
        ("{not json", None, "a JSON object"),
        ("[1, 2]", None, "a JSON object per line"),
        (row(step=1, gt=None), "gt", "a string"),
        (row(step=1, pred=3), "pred", "a string"),
        (row(step=2), "step", "less than step_length (2)"),
        (row(step=-1), "step", ">= 0"),
        (row(step=1, step_length=3), "step_length", "2 as on line 1"),
        (row(step=1, category="Multi_Apps"), "category", "'Web_Shopping' as on line 1"),
        (row(step=0), "step", "each step once (also on line 1)"),
        (row(step=1, sam2_bbox=[1, 2, 3]), "sam2_bbox", "[x1, y1, x2, y2]"),
        (row(step=1, sam2_bbox="box"), "sam2_bbox", "[x1, y1, x2, y2]"),
    ],
)
def test_bad_lines_name_file_line_and_field(
    tmp_path: Path, bad: object, field: str | None, expected: str
) -> None:
    path = write_rows(tmp_path / "steps.jsonl", [row(), "", bad])
    with pytest.raises(DatasetError) as caught:
        read_steps(path)
    assert caught.value.path == f"{path}:3"
    assert caught.value.field == field
    assert expected in str(caught.value)


def test_bad_ground_truth_is_named_with_its_line(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "s.jsonl", [row(), row(step=1, gt="CLICK: here")])
    with pytest.raises(DatasetError) as caught:
        score_records(read_steps(path), source=str(path))
    assert caught.value.path == f"{path}:2" and caught.value.field == "gt"
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert f"{path}:2" in result.output and "'gt'" in result.output


def test_cli_modes_aggregates_and_verdicts(tmp_path: Path) -> None:
    rows = [
        row("e1", 0),
        row("e1", 1, gt="TYPE: socks", pred="TYPE", sam2_bbox=[]),
        row("e2", 0, category="Multi_Apps", step_length=1, gt="COMPLETE", pred="COMPLETE"),
        row("e3", 0, category="Multi_Apps", step_length=3, pred="tap it"),
    ]
    path = write_rows(tmp_path / "steps.jsonl", rows)
    official = json.loads(runner.invoke(app, ["score", str(path), "--json"]).output)
    assert (official["ams"], official["sr"], official["episodes"]) == (75.0, 100.0, 2)
    assert official["incomplete_episodes"][0]["episode_id"] == "e3"
    assert official["per_category"]["Multi_Apps"] == {
        "ams": 50.0,
        "sr": 100.0,
        "steps": 2,
        "correct": 1,
        "episodes": 1,
        "successes": 1,
        "incomplete": 1,
    }

    verdicts = tmp_path / "v.jsonl"
    strict = runner.invoke(
        app,
        ["score", str(path), "--json", "--mode", "strict", "--aggregate", "category-mean",
         "--verdicts", str(verdicts)],
    )  # fmt: skip
    report = json.loads(strict.output)
    assert (report["mode"], report["aggregate"]) == ("strict", "category-mean")
    assert (report["ams"], report["sr"]) == (50.0, 50.0)  # Web_Shopping 50/0, Multi_Apps 50/100
    lines = [json.loads(line) for line in verdicts.read_text().splitlines()]
    assert [(v["episode_id"], v["step"], v["is_correct"], v["info"]) for v in lines] == [
        ("e1", 0, "yes", "click_correct"),
        ("e1", 1, "no", "type_fail"),
        ("e2", 0, "yes", "action_correct"),
        ("e3", 0, "no", "invalid"),
    ]

    table = runner.invoke(app, ["score", str(path)])
    assert table.exit_code == 0
    assert "incomplete episode e3" in table.output and "missing [1, 2]" in table.output


def test_cli_rejects_unknown_options(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "steps.jsonl", [row()])
    assert runner.invoke(app, ["score", str(path), "--mode", "lenient"]).exit_code == 2
    assert runner.invoke(app, ["score", str(path), "--aggregate", "macro"]).exit_code == 2
    missing = runner.invoke(app, ["score", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "nope.jsonl" in missing.output
    unwritable = runner.invoke(
        app, ["score", str(path), "--verdicts", str(tmp_path / "no" / "dir" / "v.jsonl")]
    )
    assert unwritable.exit_code == 2 and "v.jsonl" in unwritable.output


def test_help_lists_score_and_data() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "score" in result.output and "data" in result.output
    data_help = runner.invoke(app, ["data", "--help"])
    assert data_help.exit_code == 0 and "check" in data_help.output


def test_score_streams_the_file_in_bounded_memory(tmp_path: Path) -> None:
    """Memory follows the episodes, not the lines: a 4x longer file peaks no higher."""
    import tracemalloc

    from guigraph.eval.steps import score_file

    def peak(steps_per_episode: int) -> int:
        path = tmp_path / f"steps{steps_per_episode}.jsonl"
        with path.open("w") as out:
            for e in range(50):
                for i in range(steps_per_episode):
                    out.write(json.dumps(row(f"e{e}", i, step_length=steps_per_episode)) + "\n")
        tracemalloc.start()
        try:
            score_file(path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(100), peak(400)  # 5,000 and 20,000 lines
    assert large < 1.5 * small + 200_000, (small, large)


def test_an_empty_steps_file_is_an_error(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "empty.jsonl", ["", "  "])
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert str(path) in result.output and "no records" in result.output


def test_non_utf8_steps_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.jsonl"
    path.write_bytes(json.dumps(row()).encode() + b"\n" + b'{"episode_id": "caf\xe9"}\n')
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert f"{path}:2" in result.output and "UTF-8" in result.output


def test_the_score_table_shows_bracketed_text_as_written(tmp_path: Path) -> None:
    path = write_rows(
        tmp_path / "s.jsonl", [row("[red]e1[/red]", i, step_length=3) for i in (0, 1)]
    )
    result = runner.invoke(app, ["score", str(path)])
    assert result.exit_code == 0, result.output
    assert "incomplete episode [red]e1[/red]" in result.output


def test_non_utf8_files_of_replay_and_demo_name_file_and_line(tmp_path: Path) -> None:
    from guigraph.eval.demo import load_results
    from guigraph.eval.replay import load_finished

    bad = json.dumps(row()).encode() + b"\n" + b'{"key": "caf\xe9"}\n' + json.dumps(row()).encode()
    path = tmp_path / "out.jsonl"
    for load in (load_finished, load_results):
        path.write_bytes(bad + b"\n")
        with pytest.raises(DatasetError) as caught:
            load(path)
        assert caught.value.path == f"{path}:2" and "UTF-8" in str(caught.value)
