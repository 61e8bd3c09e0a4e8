"""``guigraph model check``'s library side: is a model server usable, and how does it answer?

Sends one text request and one screen request, and reports for each the latency, the tokens
the server counted and whether the reply parsed. The screen request asks for a click on a red
square drawn at a known place, parsed with the configured coordinate space, so a wrong
``coords`` setting shows up as a miss before it costs an evaluation run. Text-only (``vision:
false``), the screen comes as the UI-tree text the roles get (a "Buy" button listed with its
centre in the model's space) and no image is sent. A server that refuses the image request
with an error while it answered the text one is named as unable to take images.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

from guigraph.errors import GuigraphError, ModelCallError, ResponseParseError
from guigraph.geometry import BBox, ScreenSize
from guigraph.llm import messages as m
from guigraph.llm.actions import parse_action
from guigraph.llm.client import ChatClient, ChatResult
from guigraph.llm.config import ModelConfig
from guigraph.llm.coords import ModelCoords
from guigraph.llm.limits import ConcurrencyLimit

PROBE_SCREEN = ScreenSize(540, 960)
#: The red square of the image probe, in the normalized space.
TARGET = BBox(600, 700, 800, 812.5)

TEXT_PROMPT = 'Reply with this JSON object and nothing else: {"ok": true}'
IMAGE_PROMPT = (
    "This is a phone screen. Tap the red square. Reply with one JSON object "
    '{"action": "click", "coordinate": [x, y]} and nothing else.'
)
TREE_PROMPT = (
    "This is a phone screen, as a list of its elements with their centres in a $space:\n"
    "$elements\nTap the Buy button. Reply with one JSON object "
    '{"action": "click", "coordinate": [x, y]} and nothing else.'
)
TEXT_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
CLICK_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["click"]},
        "coordinate": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
    },
    "required": ["action", "coordinate"],
}
#: The elements of the text-only screen: (role, label, box in the normalized space).
TREE = (
    ("text", "Aero kettle, $24.99", BBox(80, 300, 920, 380)),
    ("button", "Cancel", BBox(200, 700, 400, 812.5)),
    ("button", "Buy", TARGET),
)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    name: str
    ok: bool
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    parsed: bool = False
    detail: str = ""
    reply: str = ""
    #: The server refused the image request while it answered the text one.
    no_vision: bool = False

    @classmethod
    def answered(cls, name: str, result: ChatResult, parsed: bool, detail: str) -> ProbeResult:
        """A probe whose call came back: its cost, and whether the reply parsed."""
        return cls(
            name, True, result.latency_s, result.prompt_tokens, result.completion_tokens,
            parsed, detail, result.text,
        )  # fmt: skip


def probe_image() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (PROBE_SCREEN.width, PROBE_SCREEN.height), "white")
    box = TARGET.to_pixels(PROBE_SCREEN)
    ImageDraw.Draw(image).rectangle([box.x1, box.y1, box.x2, box.y2], fill=(220, 20, 20))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def check_model(config: ModelConfig) -> list[ProbeResult]:
    """Run both probes; a failed call ends the check (the second would fail the same way)."""
    quick = replace(
        config, max_attempts=min(config.max_attempts, 2), backoff_initial_s=0.1, backoff_max_s=0.5
    )
    client = ChatClient(quick, role="check", limit=ConcurrencyLimit(1))
    coords = ModelCoords.from_name(config.coords)
    results = [_text_probe(client)]
    if results[0].ok:
        screen = _image_probe if config.vision else _tree_probe
        results.append(screen(client, coords))
    client.close()
    return results


def passed(results: list[ProbeResult]) -> bool:
    """Every probe answered and every reply parsed (a missed square is a warning only)."""
    return all(r.ok and r.parsed for r in results)


def _text_probe(client: ChatClient) -> ProbeResult:
    try:
        result = client.complete([m.user(TEXT_PROMPT)], json_schema=TEXT_SCHEMA)
    except ModelCallError as exc:
        return ProbeResult("text", ok=False, detail=_explain(client, exc))
    try:
        value = result.json()
        followed = isinstance(value, dict) and value.get("ok") is True
        parsed = True
        detail = f"JSON {value}" + ("" if followed else ' (not the {"ok": true} asked for)')
    except ResponseParseError as exc:
        parsed, detail = False, str(exc)
    return ProbeResult.answered("text", result, parsed, detail)


def _image_probe(client: ChatClient, coords: ModelCoords) -> ProbeResult:
    png = probe_image()
    try:
        result = client.complete([m.user(m.ImagePart(png), IMAGE_PROMPT)], json_schema=CLICK_SCHEMA)
    except ModelCallError as exc:
        if _refused(exc):
            return ProbeResult(
                "image", ok=False, no_vision=True,
                detail="this server cannot take images (it answered the text request, and "
                f"{_status_text(exc)} to the image one); use --text-only "
                "(model setting vision: false)",
            )  # fmt: skip
        return ProbeResult("image", ok=False, detail=_explain(client, exc))
    return _click_result("image", client, coords, result, "the red square")


def _tree_probe(client: ChatClient, coords: ModelCoords) -> ProbeResult:
    """The screen as the roles get it text-only: elements and centres in the model's space."""
    from string import Template

    lines = []
    for index, (role, label, box) in enumerate(TREE):
        x, y = coords.from_point(box.center, PROBE_SCREEN, PROBE_SCREEN)
        lines.append(f"[{index}] {role} {label!r} at ({x:.0f}, {y:.0f})")
    width, height = coords.model_image_size(PROBE_SCREEN)
    space = f"{width:g} x {height:g} space, (0, 0) top left"
    prompt = Template(TREE_PROMPT).substitute(space=space, elements="\n".join(lines))
    try:
        result = client.complete([m.user(prompt)], json_schema=CLICK_SCHEMA)
    except ModelCallError as exc:
        return ProbeResult("screen-text", ok=False, detail=_explain(client, exc))
    return _click_result("screen-text", client, coords, result, "the Buy button", PROBE_SCREEN)


def _click_result(
    name: str,
    client: ChatClient,
    coords: ModelCoords,
    result: ChatResult,
    target: str,
    sent: ScreenSize | None = None,
) -> ProbeResult:
    try:
        sent = sent or client.config.image_policy.sent_size(PROBE_SCREEN)
        action = parse_action(result.text, coords, PROBE_SCREEN, sent)
        hit = action.point is not None and TARGET.contains(action.point)
        parsed = True
        detail = f"{action.to_dict()}; {'hit' if hit else 'missed'} {target}"
        if not hit:
            detail += f" (check the coords setting, now {client.config.coords!r})"
    except ResponseParseError as exc:
        parsed, detail = False, str(exc)
    return ProbeResult.answered(name, result, parsed, detail)


def _refused(exc: ModelCallError) -> bool:
    """An HTTP error answer (not a dead server, a timeout or a wrong name or key)."""
    cause = exc.__cause__
    status = getattr(cause, "status_code", None)
    return isinstance(status, int) and status not in (401, 403, 404, 408, 429)


def _status_text(exc: ModelCallError) -> str:
    from guigraph.llm.retry import server_message

    cause = exc.__cause__
    assert cause is not None
    return f"HTTP {getattr(cause, 'status_code', '?')} {server_message(cause, 120)!r}"


def _explain(client: ChatClient, exc: ModelCallError) -> str:
    """The error, plus the models the server does serve when the name was wrong."""
    message = str(exc)
    if "404" not in message:
        return message
    try:
        served = served_models(client.config)
    except GuigraphError:
        return message
    return f"{message}\nmodels served there: {', '.join(served) or '(none listed)'}"


def served_models(config: ModelConfig) -> list[str]:
    from guigraph.errors import require

    openai = require("openai", "llm")
    sdk = openai.OpenAI(
        base_url=config.base_url, api_key=config.api_key, timeout=config.timeout_s, max_retries=0
    )
    try:
        return sorted(model.id for model in sdk.models.list())
    except openai.OpenAIError as exc:
        message = f"cannot list models at {config.base_url}: {type(exc).__name__}"
        raise ModelCallError(message) from exc
    finally:
        sdk.close()
