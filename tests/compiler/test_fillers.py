"""The slot-filler seam: the typed rules, and a model whose values the slot types check."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from guigraph.cli.main import app
from guigraph.compiler.fillers import ModelFiller, RuleFiller, SlotRequest
from guigraph.graph.records import SlotKey, Trace
from guigraph.graph.slot_types import learn
from guigraph.llm.client import ChatClient
from guigraph.llm.config import ModelConfig
from guigraph.testing import FakeModelServer
from guigraph.testing.server import Reply

RECORDED = "Set an alarm for 06:30 called Meds"
TIME, LABEL = SlotKey(3, "text1"), SlotKey(5, "text1")
DONOR = Trace("e1", RECORDED, "tool", ("Clock",), (1, 2), (3,), 4, values={
    TIME: "06:30", LABEL: "Meds"})  # fmt: skip
TYPES = {TIME: learn(["06:30", "21:00"]), LABEL: learn(["Meds", "Laundry", "Gym"])}
TASK = "set an alarm for 07:30 called laundry"


def _request(recorded: str) -> SlotRequest:
    return SlotRequest(recorded, RECORDED, TASK)


def _filler(server: FakeModelServer) -> ModelFiller:
    client = ChatClient(ModelConfig(model="test-model", base_url=server.base_url, max_attempts=1))
    types = {key: kind for key, kind in TYPES.items() if kind is not None}
    return ModelFiller(client, types)


def test_the_model_fills_what_its_slot_types_accept_and_the_rules_the_rest() -> None:
    # slot1 is the time (first in the donor's values), slot2 the label: the model gives the
    # label as the task says it, and a time the task never says (refused: the rules' value)
    reply = json.dumps({"slot1": "08:00", "slot2": "laundry"})
    with FakeModelServer([Reply.of(reply)]) as server:
        filler = _filler(server)
        filler.prepare(TASK, [DONOR])
        filler.prepare(TASK, [DONOR])  # once per task
        assert filler.fill(_request("Meds")) == "laundry"
        assert filler.fill(_request("06:30")) == RuleFiller().fill(_request("06:30")) == "07:30"
        prompt = server.requests[0]["messages"][-1]["content"]
        schema = server.requests[0].get("response_format")
    assert len(server.requests) == 1
    assert "a time, like '06:30'" in str(prompt) and "a name of 1 word" in str(prompt)
    assert schema is not None
    assert (filler.counts.answered, filler.counts.refused, filler.counts.calls) == (1, 1, 1)


def test_the_model_filler_offers_its_value_first_then_the_rules_others() -> None:
    """For one assignment over every slot, a filler offers a slot each value it may take,
    best first: the model's own (where its type accepts it), then the rules' values it did
    not give; a refused value is no candidate."""
    task = "Set an alarm called Gym or Laundry"
    reply = json.dumps({"slot1": None, "slot2": "Laundry"})
    with FakeModelServer([Reply.of(reply)]) as server:
        filler = _filler(server)
        filler.prepare(task, [DONOR])
        request = SlotRequest("Meds", RECORDED, task, frozenset({"Meds", "Laundry", "Gym"}))
        offered = list(filler.candidates(request))
    rules = list(RuleFiller().candidates(request))
    assert [value for value, _ in rules] == ["Gym", "Laundry"]  # the rules' best is Gym
    assert [value for value, _ in offered] == ["Laundry", "Gym"]  # the model's first
    assert [rank for _, rank in offered] == sorted(rank for _, rank in offered)


def test_a_value_of_the_wrong_type_or_none_is_the_rules_to_find() -> None:
    reply = json.dumps({"slot1": "laundry", "slot2": None})  # a name for the time
    with FakeModelServer([Reply.of(reply)]) as server:
        filler = _filler(server)
        filler.prepare(TASK, [DONOR])
        assert filler.fill(_request("06:30")) == "07:30"
        assert filler.fill(_request("Meds")) == RuleFiller().fill(_request("Meds"))
    assert (filler.counts.refused, filler.counts.unanswered) == (1, 1)


def test_a_failed_call_leaves_every_slot_to_the_rules() -> None:
    with FakeModelServer([], default=Reply.error(500)) as server:
        filler = _filler(server)
        filler.prepare(TASK, [DONOR])
        assert filler.fill(_request("06:30")) == "07:30"
    counts = filler.counts
    assert (counts.failed_calls, counts.failed_server, counts.answered) == (1, 1, 0)
    assert counts.unanswered == 0  # the model was never asked: no value was withheld


@pytest.mark.parametrize(
    ("reply", "timeout_s", "kind"),
    [
        (Reply.slow(3.0, json.dumps({"slot1": "07:30"})), 0.5, "failed_timeout"),
        (Reply.of('{"slot1": "07:30", "slot2": "lau'), 30.0, "failed_unparsed"),  # cut short
        (Reply.of('["07:30", "laundry"]'), 30.0, "failed_unparsed"),  # JSON, no object
    ],
)
def test_a_failed_call_is_counted_by_what_failed(reply: Reply, timeout_s: float, kind: str) -> None:
    with FakeModelServer([reply]) as server:
        config = ModelConfig(model="test-model", base_url=server.base_url, max_attempts=1,
                             timeout_s=timeout_s)  # fmt: skip
        filler = ModelFiller(ChatClient(config), {})
        filler.prepare(TASK, [DONOR])
        assert filler.fill(_request("06:30")) == "07:30"  # the rules' value
    counts = filler.counts.to_dict()
    assert counts["failed_calls"] == counts[kind] == 1
    assert sum(v for k, v in counts.items() if k.startswith("failed_")) == 2  # the total + one


def test_a_refused_value_is_counted_by_why() -> None:
    # the label slot: a time (not its type), a word the task does not say, a value of another
    # kind where the slot is
    foreign = {"laundry"}
    for given, why in (("07:30", "refused_type"), ("Gym", "refused_unsaid"),
                       ("laundry", "refused_kind")):  # fmt: skip
        with FakeModelServer([Reply.of(json.dumps({"slot2": given}))]) as server:
            filler = _filler(server)
            filler.prepare(TASK, [DONOR])
            request = SlotRequest("Meds", RECORDED, TASK, foreign=lambda v: v.lower() in foreign)
            filler.fill(request)
        counts = filler.counts.to_dict()
        assert counts["refused"] == counts[why] == 1, (given, counts)
        assert "refused (" in filler.counts.describe()


def _oracle(body: dict[str, Any]) -> Reply:
    """A model that knows the task: for each slot, the task's words of the recorded value's
    form (a clock time for a time, the capitalized words after the recorded value's cue)."""
    prompt = str(body["messages"][-1]["content"])
    task = re.search(r'New task: "(.*)"', prompt)
    assert task is not None
    answer: dict[str, str | None] = {}
    for name, recorded in re.findall(r'(slot\d+): in ".*?" the value was "(.*?)"', prompt):
        if re.fullmatch(r"\d{1,2}:\d\d", recorded):
            found = re.search(r"\d{1,2}:\d\d", task.group(1))
        else:
            found = re.search(r"(?:called|named|labelled) (\w+)", task.group(1))
        answer[name] = found.group(found.lastindex or 0) if found else None
    return Reply.of(json.dumps(answer))


def test_run_with_the_model_filler_succeeds_and_counts_what_it_did(simphone_kb: Path) -> None:
    with FakeModelServer(_oracle) as server:
        model = ["--model", "test-model", "--base-url", server.base_url]
        args = ["run", "--task", "tool.alarm", "--seed", "900000001", "--kb", str(simphone_kb),
                "--slot-filler", "model", *model]  # fmt: skip
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "success: yes" in result.output
    assert re.search(
        r"slot filler: 1 call\(s\) \(0 failed: .*\); [1-9]\d* value\(s\) taken", result.output
    )


def test_the_model_filler_is_for_the_graph_policy() -> None:
    args = ["run", "--task", "tool.alarm", "--policy", "model", "--slot-filler", "model"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert "--slot-filler model fills the graph policy's slots" in result.output


def test_a_task_whose_donors_recorded_no_value_asks_the_model_nothing() -> None:
    plain = Trace("e2", "Open the alarms", "tool", ("Clock",), (1, 2), (3,), 2)
    with FakeModelServer([Reply.of("{}")]) as server:
        filler = _filler(server)
        filler.prepare("open the alarms", [plain])
    assert server.requests == [] and filler.counts.calls == 0


def test_a_number_the_model_gives_as_a_number_is_the_value_as_the_task_says_it() -> None:
    task = "set an alarm for 07:30 called 42"
    reply = json.dumps({"slot1": None, "slot2": 42})
    with FakeModelServer([Reply.of(reply)]) as server:
        filler = _filler(server)
        filler.prepare(task, [DONOR])
        assert filler.fill(SlotRequest("Meds", RECORDED, task)) == "42"
    assert filler.counts.answered == 1


def test_a_request_may_give_its_known_values_as_any_set() -> None:
    """A filler of one's own may build a request with a plain set of known values: the rules
    read it as they read a frozen one (they remember what they read per set of values)."""
    task = "Set an alarm called Gym"
    frozen = SlotRequest("Meds", RECORDED, task, frozenset({"Meds", "Laundry", "Gym"}))
    plain = SlotRequest("Meds", RECORDED, task, {"Meds", "Laundry", "Gym"})  # type: ignore[arg-type]
    assert list(RuleFiller().candidates(plain)) == list(RuleFiller().candidates(frozen))
    assert RuleFiller().fill(plain) == "Gym"
