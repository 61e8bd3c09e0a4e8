"""BENCHMARKS.md is generated: bench results in, Markdown out; bad files named in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import benchrun  # noqa: E402
import render  # noqa: E402

CATALOG = """
[[figure]]
name = "loop"
title = "Loop overhead"
command = ".venv/bin/python bench/loop.py --nodes 100000"
about = "What an episode spends outside the world."

[[figure]]
name = "web"
title = "The web demo"
command = ".venv/bin/python bench/demo.py --world web"

[[headline]]
label = "Loop overhead, ms"
figure = "loop"
keys = ["overhead_ms"]
format = ".2f"

[[headline]]
label = "Web SR"
figure = "web"
keys = ["sr"]
"""


def a_result(**changes: Any) -> dict[str, Any]:
    result = {
        "schema_version": 1, "name": "loop",
        "command": ".venv/bin/python bench/loop.py --nodes 100000",
        "argv": ["bench/loop.py", "--nodes", "100000"], "date": "2026-12-04T10:11:12+00:00",
        "commit": "abc1234", "dirty": False, "nice": 10, "cpus": 2,
        "load_start": [1.5, 1.0, 0.5], "load_end": [2.25, 1.0, 0.5],
        "wall_s": 212.4, "cpu_s": 180.2, "figures": {"overhead_ms": 9.7},
        "tables": [{"title": "Per step", "columns": ["what", "ms"],
                    "rows": [["overhead", 9.7], ["plan | decide", 24.0]]}],
        "notes": ["9 of 10 episodes succeeded"],
    }  # fmt: skip
    result.update(changes)
    return result


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "results").mkdir()
    (tmp_path / "catalog.toml").write_text(CATALOG)
    (tmp_path / "results" / "loop.json").write_text(json.dumps(a_result()))
    return tmp_path


def rendered(folder: Path) -> str:
    catalog = render.load_catalog(folder / "catalog.toml")
    return render.render_benchmarks(catalog, render.load_results(folder / "results"))


def test_a_measured_figure_is_a_table_with_its_command_date_commit_and_load(folder: Path) -> None:
    text = rendered(folder)
    section = text[text.index("## Loop overhead") : text.index("## The web demo")]
    assert "What an episode spends outside the world." in section
    assert (
        "| `nice -n 10 .venv/bin/python bench/loop.py --nodes 100000` | 2026-12-04 10:11:12+00:00 "
        "| `abc1234` | 1.50 → 2.25 (2 CPUs) | 212.4 s | 180.2 s |" in section
    )
    assert "| what | ms |" in section and "| plan \\| decide | 24.0 |" in section
    assert "- 9 of 10 episodes succeeded" in section
    assert "| Loop overhead | 2026-12-04, abc1234 |" in text  # the index


def test_a_missing_figure_is_listed_with_the_command_that_measures_it(folder: Path) -> None:
    text = rendered(folder)
    assert "| The web demo | not measured |" in text
    assert "Not measured. To measure: `.venv/bin/python bench/demo.py --world web`" in text


def test_a_result_the_catalog_does_not_list_is_shown_not_dropped(folder: Path) -> None:
    extra = a_result(name="desktop-demo", dirty=True)
    (folder / "results" / "desktop-demo.json").write_text(json.dumps(extra))
    text = rendered(folder)
    assert "## desktop-demo" in text and "(not in bench/catalog.toml)" in text
    assert "`abc1234` + uncommitted changes" in text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (json.dumps(a_result(tables=[{"title": "t", "columns": ["a", "b"], "rows": [[1]]}])),
         "loop.json: tables.0: Value error, rows[0] has 1 cells, expected 2 (the columns)"),
        (json.dumps(a_result(load_start="high")),
         "loop.json: load_start: Input should be a valid list"),
        (json.dumps(a_result(schema_version=2)), "loop.json: schema_version: Input should be 1"),
        (json.dumps(a_result(name="other")), "loop.json: name: 'other', expected the file's stem"),
        ('{"schema_version": 1,', "loop.json: not a JSON result file"),
    ],
)  # fmt: skip
def test_a_malformed_result_is_named_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    (folder / "results" / "loop.json").write_text(content)
    out = folder / "BENCHMARKS.md"
    code = render.main(
        ["--catalog", str(folder / "catalog.toml"), "--results", str(folder / "results"),
         "--benchmarks", str(out), "--readme", str(folder / "README.md")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 1 and not out.exists()
    assert len(err.splitlines()) == 1 and expected in err, err


def test_readme_headline_table_is_replaced_between_its_markers(folder: Path) -> None:
    readme = folder / "README.md"
    readme.write_text(
        f"# Tool\n\nIntro.\n\n{render.HEADLINE_START}\nold table\n{render.HEADLINE_END}\n\nMore.\n"
    )
    out = folder / "BENCHMARKS.md"
    args = ["--catalog", str(folder / "catalog.toml"), "--results", str(folder / "results"),
            "--benchmarks", str(out), "--readme", str(readme)]  # fmt: skip
    assert render.main([*args, "--check"]) == 1  # stale before the first render
    assert render.main(args) == 0
    text = readme.read_text()
    assert "old table" not in text and text.startswith("# Tool\n\nIntro.\n\n")
    assert "| Loop overhead, ms | 9.70 | 2026-12-04, abc1234 |" in text
    assert "| Web SR | not measured | `.venv/bin/python bench/demo.py --world web` |" in text
    assert text.endswith(f"{render.HEADLINE_END}\n\nMore.\n")
    assert render.main([*args, "--check"]) == 0


def test_a_headline_reading_a_figure_the_result_lacks_is_named(folder: Path) -> None:
    (folder / "results" / "loop.json").write_text(json.dumps(a_result(figures={})))
    catalog = render.load_catalog(folder / "catalog.toml")
    with pytest.raises(render.RenderError, match=r"loop\.json: figures\.overhead_ms: missing"):
        render.render_headline(catalog, render.load_results(folder / "results"))


def test_the_helper_writes_a_result_the_renderer_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GUIGRAPH_BENCH_RESULTS", str(tmp_path))
    run = benchrun.start("envs", argv=[str(ROOT / "bench" / "envs.py"), "--steps", "60"])
    sum(i * i for i in range(200_000))  # some CPU to account for
    run.figure("web_observe_ms", 30.5)
    run.table("Median per step", ["world", "observe (ms)"], [["web", 30.5]])
    with pytest.raises(ValueError, match="2 cells, 1 columns"):
        run.table("bad", ["world"], [["web", 1]])
    path = run.save()
    assert path == tmp_path / "envs.json"
    result = render.load_result(path)
    assert result.command.endswith("bench/envs.py --steps 60")
    assert result.figures == {"web_observe_ms": 30.5}
    assert len(result.commit) >= 7 and result.cpus >= 1 and result.cpu_s > 0
    assert result.wall_s > 0 and len(result.load_start) == 3 and result.date.startswith("20")


def test_benchmarks_md_and_readme_are_what_the_stored_results_render() -> None:
    files = render.render_files(
        ROOT / "bench" / "catalog.toml", ROOT / "bench" / "results",
        ROOT / "BENCHMARKS.md", ROOT / "README.md",
    )  # fmt: skip
    for path, text in files.items():
        assert path.read_text() == text, f"{path.name} is out of date: run `make benchmarks`"


GRID = """
[[grid]]
marker = "per-step"
figure = "loop"
table = "Per step"
columns = ["what"]
per_row = 2
summary = "Every step"
"""


def test_a_grid_folds_every_row_of_a_result_table_into_readme(folder: Path) -> None:
    (folder / "catalog.toml").write_text(CATALOG + GRID)
    readme = folder / "README.md"
    markers = "<!-- benchmarks:per-step -->\nold\n<!-- /benchmarks:per-step -->\n"
    readme.write_text(f"# Tool\n\n{markers}")
    args = ["--catalog", str(folder / "catalog.toml"), "--results", str(folder / "results"),
            "--benchmarks", str(folder / "BENCHMARKS.md"), "--readme", str(readme)]  # fmt: skip
    assert render.main(args) == 0
    text = readme.read_text()
    assert "old" not in text and "<details><summary>Every step</summary>" in text
    # Both rows of the table, side by side, the pipe in a cell escaped.
    assert "| what | what |" in text and "| overhead | plan \\| decide |" in text
    assert text.endswith("</details>\n<!-- /benchmarks:per-step -->\n")


def test_a_grid_naming_a_column_the_table_lacks_is_named(folder: Path) -> None:
    (folder / "catalog.toml").write_text(CATALOG + GRID.replace('["what"]', '["task"]'))
    catalog = render.load_catalog(folder / "catalog.toml")
    with pytest.raises(render.RenderError, match=r"loop\.json: table 'Per step': no column 'task'"):
        render.render_grid(catalog.grid[0], render.load_results(folder / "results"))
