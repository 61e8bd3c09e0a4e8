"""Chat messages with text and screenshots, rendered to the OpenAI wire format.

Screenshots travel as PNG data URIs, downscaled by the model's ``ImagePolicy``. Rendering
also yields a *cache view* of the request where each image is replaced by the SHA-256 of the
bytes sent, so a cache key covers the images without holding megabytes of base64.
"""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

from guigraph.geometry import ScreenSize
from guigraph.llm.config import ImagePolicy


@dataclass(frozen=True, slots=True)
class ImagePart:
    """A PNG image (usually a screenshot) inside a message."""

    png: bytes

    def size(self) -> ScreenSize:
        from PIL import Image

        with Image.open(io.BytesIO(self.png)) as image:
            return ScreenSize(*image.size)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str
    parts: tuple[str | ImagePart, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant"):
            raise ValueError(f"message role must be system, user or assistant, got {self.role!r}")
        for part in self.parts:
            if not isinstance(part, str | ImagePart):
                raise TypeError(
                    f"message parts are text or ImagePart (PNG bytes), got {type(part).__name__}"
                )

    @property
    def images(self) -> tuple[ImagePart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ImagePart))


def system(text: str) -> ChatMessage:
    return ChatMessage("system", (text,))


def user(*parts: str | ImagePart | bytes) -> ChatMessage:
    """A user message; ``bytes`` parts are PNG images."""
    return ChatMessage("user", tuple(ImagePart(p) if isinstance(p, bytes) else p for p in parts))


def assistant(text: str) -> ChatMessage:
    return ChatMessage("assistant", (text,))


#: What stands where a screenshot was, for a model that takes no images.
NO_IMAGE = "(screenshot not sent: this model reads the screen as text)\n"


def without_images(message: ChatMessage) -> ChatMessage:
    """The message with each image replaced by a short note (``vision: false``)."""
    if not message.images:
        return message
    parts = tuple(NO_IMAGE if isinstance(p, ImagePart) else p for p in message.parts)
    return ChatMessage(message.role, parts)


def resized_png(png: bytes, policy: ImagePolicy) -> bytes:
    """The PNG as sent: unchanged when within the pixel budget, else downscaled (LANCZOS)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        target = policy.target_size(*image.size)
        if target == image.size and image.format == "PNG":
            return png
        out = io.BytesIO()
        image.convert("RGB").resize(target, Image.Resampling.LANCZOS).save(out, format="PNG")
        return out.getvalue()


@dataclass(frozen=True, slots=True)
class RenderedRequest:
    """Messages in wire format, and the same with images replaced by their hashes."""

    wire: list[dict[str, Any]]
    cache_view: list[dict[str, Any]]
    image_count: int


def render(messages: list[ChatMessage], policy: ImagePolicy) -> RenderedRequest:
    wire: list[dict[str, Any]] = []
    view: list[dict[str, Any]] = []
    images = 0
    for message in messages:
        if all(isinstance(p, str) for p in message.parts):
            text = "".join(p for p in message.parts if isinstance(p, str))
            wire.append({"role": message.role, "content": text})
            view.append({"role": message.role, "content": text})
            continue
        wire_parts: list[dict[str, Any]] = []
        view_parts: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, str):
                wire_parts.append({"type": "text", "text": part})
                view_parts.append({"type": "text", "text": part})
                continue
            images += 1
            png = resized_png(part.png, policy)
            uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
            wire_parts.append({"type": "image_url", "image_url": {"url": uri}})
            view_parts.append({"type": "image", "sha256": hashlib.sha256(png).hexdigest()})
        wire.append({"role": message.role, "content": wire_parts})
        view.append({"role": message.role, "content": view_parts})
    return RenderedRequest(wire, view, images)
