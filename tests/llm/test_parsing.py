"""Real-world-shaped replies: what Qwen-VL, UI-TARS, thinking models and GPT-style chat
models actually send back, including the broken ones."""

import pytest

from guigraph.errors import ResponseParseError
from guigraph.geometry import Point, ScreenSize
from guigraph.llm.actions import parse_action
from guigraph.llm.coords import ModelCoords
from guigraph.llm.parsing import extract_json, extract_tool_calls, strip_thinking
from guigraph.types import Action, ActionType, ScrollDirection

PHONE = ScreenSize(1080, 2400)
QWEN3 = ModelCoords.from_name("qwen3-vl")

JSON_REPLIES = [
    ('{"jump": true}', {"jump": True}),
    (
        '```json\n{"jump": false, "reason": "same list"}\n```',
        {"jump": False, "reason": "same list"},
    ),
    ('```\n{"node": 3}\n```', {"node": 3}),
    (
        'Here is my answer:\n```json\n{"match": "s12"}\n```\nLet me know if you need more.',
        {"match": "s12"},
    ),
    (
        'The screen changed. {"jump": true, "confidence": 0.9} I am fairly sure.',
        {"jump": True, "confidence": 0.9},
    ),
    (
        '{"plan": ["open Chrome", "search"]}\n\nNote: the plan assumes Chrome is installed.',
        {"plan": ["open Chrome", "search"]},
    ),
    (
        '<think>\nThe user wants JSON. The page {looks} the same.\n</think>\n\n{"jump": false}',
        {"jump": False},
    ),
    (
        "Okay, the first screenshot shows settings; the second shows Wi-Fi.\n</think>\n"
        '{"jump": true}',
        {"jump": True},
    ),
    ("{'jump': True, 'reason': None}", {"jump": True, "reason": None}),
    ('{"steps": ["a", "b",],}', {"steps": ["a", "b"]}),
    ('Answer: [{"id": 1}, {"id": 2}]', [{"id": 1}, {"id": 2}]),
    ('I think [the answer] is {"ok": 1}', {"ok": 1}),
    ('{"text": "a } inside a string", "n": 2} trailing', {"text": "a } inside a string", "n": 2}),
    (
        '```JSON\n{\n  "verdict": "pass",\n  "feedback": ""\n}\n```',
        {"verdict": "pass", "feedback": ""},
    ),
    ('<thinking>compare both</thinking>```json\n{"same": true}\n```', {"same": True}),
    ('```json\n{"open": "fence never closed"}', {"open": "fence never closed"}),
]


@pytest.mark.parametrize(("reply", "expected"), JSON_REPLIES)
def test_extract_json(reply: str, expected: object) -> None:
    assert extract_json(reply) == expected


BROKEN_JSON = [
    ('{"jump": tru', "cut off"),
    ('```json\n{"plan": ["open Chrome", "sea', "cut off"),
    ("The page did change, so the answer is yes.", "no JSON"),
    ("<think>\nLet me compare the two screenshots carefully. The first", "inside its thinking"),
    ("", "no JSON"),
]


@pytest.mark.parametrize(("reply", "why"), BROKEN_JSON)
def test_broken_json_raises_with_raw_text(reply: str, why: str) -> None:
    with pytest.raises(ResponseParseError, match=why) as caught:
        extract_json(reply)
    assert caught.value.raw == reply


def tool_call(arguments: str) -> str:
    return f'<tool_call>\n{{"name": "mobile_use", "arguments": {arguments}}}\n</tool_call>'


ACTION_REPLIES = [
    # Qwen3-VL mobile_use tool calls (0..1000 relative coordinates).
    (tool_call('{"action": "click", "coordinate": [540, 120]}'), Action.click(540, 120)),
    (
        "I will open the search bar.\n" + tool_call('{"action": "click", "coordinate": [500, 80]}'),
        Action.click(500, 80),
    ),
    (
        "<think>The Wi-Fi toggle is at the top.</think>\n"
        + tool_call('{"action": "long_press", "coordinate": [300, 450], "time": 2}'),
        Action.long_press(300, 450),
    ),
    (
        tool_call('{"action": "type", "text": "weather in Paris"}'),
        Action.type_text("weather in Paris"),
    ),
    (tool_call('{"action": "system_button", "button": "Back"}'), Action(ActionType.PRESS_BACK)),
    (tool_call('{"action": "system_button", "button": "Home"}'), Action(ActionType.PRESS_HOME)),
    (tool_call('{"action": "terminate", "status": "success"}'), Action(ActionType.COMPLETE)),
    (tool_call('{"action": "terminate", "status": "failure"}'), Action(ActionType.IMPOSSIBLE)),
    (tool_call('{"action": "open", "text": "Chrome"}'), Action.open_app("Chrome")),
    (tool_call('{"action": "wait", "time": 3}'), Action(ActionType.WAIT, seconds=3.0)),
    (
        tool_call('{"action": "swipe", "coordinate": [500, 800], "coordinate2": [500, 200]}'),
        Action.swipe(Point(500, 800), Point(500, 200)),
    ),
    (
        '<tool_call>\n{"name": "mobile_use", "arguments": "{\\"action\\": \\"click\\", '
        '\\"coordinate\\": [10, 20]}"}\n</tool_call>',
        Action.click(10, 20),
    ),
    # JSON actions in prose and fences.
    ('```json\n{"action_type": "click", "x": 250, "y": 750}\n```', Action.click(250, 750)),
    (
        'Thought: scroll to see more.\n{"action": "scroll", "direction": "down"}',
        Action.scroll(ScrollDirection.DOWN),
    ),
    ('{"thought": "go back", "action": {"action": "press_back"}}', Action(ActionType.PRESS_BACK)),
    ('{"action": "CLICK", "point": [100, 900]}', Action.click(100, 900)),
    ('{"action_type": "open_app", "app_name": "Gmail"}', Action.open_app("Gmail")),
    ('{"action_type": "status", "action": "complete"}', Action(ActionType.COMPLETE)),
    ('{"action": "input_text", "text": "hello"}', Action.type_text("hello")),
    ('{"action": "navigate_home"}', Action(ActionType.PRESS_HOME)),
    ('{"action": "click", "coordinate": [100, 200, 300, 400]}', Action.click(200, 300)),
    # UI-TARS.
    ("Thought: Tap the search icon.\nAction: click(start_box='(500,100)')", Action.click(500, 100)),
    ("Action: type(content='coffee near me')", Action.type_text("coffee near me")),
    (
        "Thought: open the menu\nAction: click(start_box='<|box_start|>(235,512)<|box_end|>')",
        Action.click(235, 512),
    ),
    ("Action: long_press(point='<point>120 340</point>')", Action.long_press(120, 340)),
    (
        "Action: drag(start_box='(500,800)', end_box='(500,200)')",
        Action.swipe(Point(500, 800), Point(500, 200)),
    ),
    ("Action: press_home()", Action(ActionType.PRESS_HOME)),
    ("Thought: done.\nAction: finished(content='all set')", Action(ActionType.COMPLETE)),
    ("Action: scroll(start_box='(500,500)', direction='left')", Action.scroll("left")),
    # GUIOdyssey command strings, as models fine-tuned on it answer.
    ("CLICK: (540, 120)", Action.click(540, 120)),
    ("The search box is at the top.\nAction: LONG_PRESS: (300, 450)", Action.long_press(300, 450)),
    ("<think>list is long</think>\nSCROLL: UP", Action.scroll(ScrollDirection.UP)),
    ("TYPE: {weather} in Paris: today", Action.type_text("{weather} in Paris: today")),
    ("**PRESS_BACK**", Action(ActionType.PRESS_BACK)),
    ("`PRESS_RECENT`", Action(ActionType.PRESS_RECENT)),
    ("Everything is done.\nCOMPLETE", Action(ActionType.COMPLETE)),
    ("IMPOSSIBLE", Action(ActionType.IMPOSSIBLE)),
]


@pytest.mark.parametrize(("reply", "expected"), ACTION_REPLIES)
def test_parse_action(reply: str, expected: Action) -> None:
    assert parse_action(reply, QWEN3, PHONE) == expected


BROKEN_ACTIONS = [
    (
        '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [54',
        "cut off",
    ),
    (tool_call('{"action": "click"}'), "needs a coordinate"),
    (tool_call('{"action": "fly", "coordinate": [1, 2]}'), "unknown action 'fly'"),
    (tool_call('{"action": "system_button", "button": "Power"}'), "unsupported button"),
    ('{"action": "scroll", "direction": "sideways"}', "direction"),
    ("I would tap the blue button in the middle.", "no action found"),
    ("<think>First I should find the search box and then", "inside its thinking"),
    ('{"action": "type"}', "needs a text"),
    ("CLICK: (540,", "needs a point"),
    ('{"action": "click", "coordinate": [null, 5]}', "malformed"),
    ('{"action": "wait", "time": "a while"}', "malformed"),
    ("SCROLL: SIDEWAYS", "SCROLL needs"),
    ('Tap here: {"action": "click", "coordinate": [1', "cut off"),
]


@pytest.mark.parametrize(("reply", "why"), BROKEN_ACTIONS)
def test_broken_actions_raise_parse_error(reply: str, why: str) -> None:
    with pytest.raises(ResponseParseError, match=why) as caught:
        parse_action(reply, QWEN3, PHONE)
    assert caught.value.raw == reply


def test_corpus_is_large_enough() -> None:
    total = len(JSON_REPLIES) + len(BROKEN_JSON) + len(ACTION_REPLIES) + len(BROKEN_ACTIONS)
    assert total >= 30


def test_command_coordinates_follow_the_model_space() -> None:
    pixel = ModelCoords.from_name("pixel")
    assert parse_action("CLICK: (540, 1200)", pixel, PHONE) == Action.click(500, 500)


def test_tool_call_coordinates_follow_the_model_space() -> None:
    reply = tool_call('{"action": "click", "coordinate": [540, 1200]}')
    plain = parse_action(reply, ModelCoords.from_name("pixel"), PHONE)
    assert plain == Action.click(500, 500)
    # Qwen2.5-VL: pixels on the smart-resized 1092x2408 image of a 1080x2400 screenshot.
    qwen25 = parse_action(
        tool_call('{"action": "click", "coordinate": [546, 1204]}'),
        ModelCoords.from_name("qwen2.5-vl"),
        PHONE,
    )
    assert qwen25.point is not None and qwen25.point.to_list() == pytest.approx([500, 500])


def test_swipe_direction_is_the_fingers() -> None:
    up = parse_action(
        tool_call('{"action": "swipe", "coordinate": [5, 800], "coordinate2": [5, 200]}'),
        QWEN3,
        PHONE,
    )
    assert up.direction is ScrollDirection.UP


def test_several_tool_calls_are_all_returned() -> None:
    reply = (
        tool_call('{"action": "click", "coordinate": [1, 2]}')
        + "\n"
        + tool_call('{"action": "type", "text": "x"}')
    )
    assert [c["arguments"]["action"] for c in extract_tool_calls(reply)] == ["click", "type"]
    assert extract_tool_calls("no calls here") == []


def test_strip_thinking_keeps_plain_text() -> None:
    assert strip_thinking("  plain answer ") == "plain answer"
    assert strip_thinking("<think>a</think>b<think>c</think> d") == "d"


@pytest.mark.parametrize(
    "reply",
    ['{"a": ' * 2000 + "1", "{" * 5000, '[{"k": 1' + ', {"k": 2' * 3000, "x {y} " * 3000],
    ids=["deep", "braces", "long-truncated", "many-non-json"],
)
def test_pathological_replies_fail_fast_and_cleanly(reply: str) -> None:
    import time

    # CPU time, not wall time: a quadratic scan shows in it; a loaded machine does not.
    started = time.process_time()
    with pytest.raises(ResponseParseError):
        extract_json(reply)
    assert time.process_time() - started < 1.0
