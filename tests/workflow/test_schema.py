"""The workflow file: one line naming file, line and field for each kind of mistake; types
of parameters learned from recorded values."""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.errors import DatasetError
from guigraph.workflow.schema import dump_workflow, load_workflow, parse_workflow
from guigraph.workflow.values import learn_type, type_problem

GOOD = """\
schema_version: 1
name: send-a-note
world:
  env: simphone
parameters:
- name: title
  examples: [Trip plan]
steps:
- action: tap
  target:
    id: notes:id/new_note
    text: New
- action: type
  value: '{title}'
- action: tap
  target:
    text: Save
  read:
    saved:
      id: notes:id/title
checks:
- shows: '{saved}'
"""


def _problem(text: str, tmp_path: Path) -> str:
    path = tmp_path / "wf.yaml"
    path.write_text(text)
    with pytest.raises(DatasetError) as caught:
        load_workflow(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_good_file_loads_and_dumps_to_the_same_workflow() -> None:
    workflow = parse_workflow(GOOD)
    assert [p.name for p in workflow.parameters] == ["title"]
    assert workflow.steps[0].target is not None
    assert workflow.steps[0].target.locator_order() == ["id", "text"]
    assert parse_workflow(dump_workflow(workflow)) == workflow


def test_an_unknown_key_names_its_line_and_field(tmp_path: Path) -> None:
    message = _problem(GOOD.replace("    text: New", "    txt: New"), tmp_path)
    assert "wf.yaml:12:" in message and "steps[0].target.txt" in message
    assert "a known key" in message and "text" in message


def test_a_wrong_type_names_its_line_and_field(tmp_path: Path) -> None:
    text = GOOD.replace("  target:\n    text: Save", "  target:\n    text: Save\n    box: high")
    message = _problem(text, tmp_path)
    assert "steps[2].target.box" in message and "wf.yaml:18:" in message
    assert "expected a valid tuple, got 'high'" in message


def test_an_undefined_placeholder_names_its_line(tmp_path: Path) -> None:
    message = _problem(GOOD.replace("value: '{title}'", "value: '{titel}'"), tmp_path)
    assert "wf.yaml:14:" in message and "steps[1].value" in message and "{titel}" in message
    assert "parameters: title" in message


def test_a_variable_is_known_only_after_the_step_that_reads_it(tmp_path: Path) -> None:
    message = _problem(GOOD.replace("value: '{title}'", "value: '{saved}'"), tmp_path)
    assert "steps[1].value" in message


def test_a_tap_without_target_is_refused(tmp_path: Path) -> None:
    message = _problem(GOOD.replace("  target:\n    text: Save\n", ""), tmp_path)
    assert "steps[2]" in message and "needs a target" in message


def test_bad_yaml_names_the_line(tmp_path: Path) -> None:
    message = _problem(GOOD.replace("- action: type", "- action: [type"), tmp_path)
    assert "wf.yaml:" in message


@pytest.mark.parametrize(
    ("examples", "options", "kind"),
    [
        (["12", "3.5"], [], "number"),
        (["07:30", "7 pm"], [], "time"),
        (["2026-12-04", "2026-12-05"], [], "date"),
        (["30%", "50%"], ["30%", "50%", "70%"], "choice"),
        (["Trip plan", "Work"], [], "text"),
        (["12", "Work"], [], "text"),
    ],
)
def test_a_parameter_type_is_learned_from_its_recorded_values(
    examples: list[str], options: list[str], kind: str
) -> None:
    assert learn_type(examples, options).value == kind


def test_a_value_of_the_wrong_type_is_named() -> None:
    workflow = parse_workflow(
        GOOD.replace("  examples: [Trip plan]", "  type: choice\n  options: [A, B]")
    )
    assert type_problem(workflow.parameters[0], "A") is None
    assert "one of 'A', 'B'" in (type_problem(workflow.parameters[0], "C") or "")


def test_otherwise_steps_are_checked_like_steps_and_only_for_a_tap(tmp_path: Path) -> None:
    base = GOOD.replace(
        "- action: type\n  value: '{title}'\n",
        "- action: type\n  value: '{title}'\n  otherwise:\n  - action: back\n",
    )
    message = _problem(base, tmp_path)
    assert "wf.yaml:13:" in message and "only a tap or long_press step" in message
    tap = GOOD.replace(
        "    text: New\n",
        "    text: New\n  otherwise:\n  - action: type\n    value: '{titel}'\n",
    )
    message = _problem(tap, tmp_path)
    assert "steps[0].otherwise[0].value" in message and "{titel}" in message


def test_a_row_of_a_task_file_world_is_the_tasks_own_values_and_is_checked() -> None:
    from guigraph.workflow.session import Session

    text = GOOD.replace(
        "world:\n  env: simphone\n",
        "world:\n  env: web\n  task: create_page\n  values: {title: Trip plan}\n"
        "  task_params: {page: '{title}', text: '{title}.'}\n",
    ).replace("  examples: [Trip plan]\n", "  examples: [Trip plan]\n  default: Trip plan\n")
    session = Session(parse_workflow(text), "web", {"params": {"base": "http://127.0.0.1:1"}})
    options = session._options_for({"title": "Garden"})
    assert options["params"] == {"base": "http://127.0.0.1:1", "page": "Garden", "text": "Garden."}

    class World:
        def make_task(self, name: str, seed: int) -> str:
            return name

    assert session._task(World(), {"title": "Garden"}) == ("create_page", True)
