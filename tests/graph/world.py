"""A tiny rendered phone world for the graph tests: distinct screens and in-page variants.

Each screen type has its own title, header colour and box layout (and UI elements with
resource ids); in-page variants change typed text, open a keyboard, scroll a list or update
a clock, the way a real phone's screen changes without leaving the page. Episodes come with
ground truth (true screen per step, jump / in_page per action) like SimPhone's ``truth/``.
"""

from __future__ import annotations

import hashlib
import io
import random
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from guigraph.geometry import BBox, ScreenSize
from guigraph.types import Action, ActionType, DeviceInfo, Episode, Observation, Step, UIElement

W, H = 180, 360
DEVICE = DeviceInfo("Test Phone", W, H)
APP_COLORS = {"home": (40, 40, 40), "maps": (30, 120, 200), "shop": (200, 90, 30)}


@dataclass
class ScreenState:
    screen: str  # "<app>.<screen_type>", the true identity
    typed: str = ""
    keyboard: bool = False
    scroll: int = 0
    items: tuple[str, ...] = ()
    clock: int = 0
    extra: dict[str, str] = field(default_factory=dict)


def _layout(screen: str) -> list[tuple[int, int, int, int]]:
    """Deterministic per-screen box layout (x, y, w, h) in pixels below the header."""
    seed = int(hashlib.sha256(screen.encode()).hexdigest()[:8], 16)
    rng = random.Random(seed)
    boxes, y = [], 60
    while y < H - 40:
        h = rng.choice((18, 28, 40, 56))
        x = rng.choice((8, 20, 60))
        boxes.append((x, y, rng.randint(60, W - x - 8), h))
        y += h + rng.choice((6, 12, 20))
    return boxes


def render(state: ScreenState) -> tuple[bytes, tuple[UIElement, ...]]:
    app, kind = state.screen.split(".")
    image = Image.new("RGB", (W, H), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, W, 10), fill=(0, 0, 0))
    draw.text((2, 0), f"12:{state.clock:02d}", fill=(255, 255, 255))
    draw.rectangle((0, 10, W, 50), fill=APP_COLORS[app])
    draw.text((10, 22), kind.upper(), fill=(255, 255, 255))
    elements = [_element((0, 10, W, 50), text=kind.title(), rid=f"{app}:id/title")]
    for k, (x, y, w, h) in enumerate(_layout(state.screen)):
        y -= state.scroll
        if y < 52 or y + h > H:
            continue
        shade = 120 + (k * 37) % 100
        draw.rectangle((x, y, x + w, y + h), fill=(shade, shade, 220 - shade // 2))
        label = state.items[k % len(state.items)] if state.items else f"{kind} {k}"
        draw.text((x + 3, y + 3), label[:18], fill=(0, 0, 0))
        elements.append(
            _element((x, y, x + w, y + h), text=label, rid=f"{app}:id/{kind}_{k}", click=True)
        )
    if "field" in state.extra:
        draw.rectangle((8, 56, W - 8, 76), fill=(255, 255, 255), outline=(0, 0, 0))
        draw.text((12, 60), state.typed or "Search", fill=(0, 0, 0))
        elements.append(
            _element((8, 56, W - 8, 76), text=state.typed, rid=f"{app}:id/query", edit=True)
        )
    if state.keyboard:
        draw.rectangle((0, H - 130, W, H), fill=(200, 200, 205))
        for r in range(4):
            for c in range(9):
                draw.rectangle(
                    (4 + c * 19, H - 124 + r * 30, 19 + c * 19, H - 100 + r * 30),
                    fill=(250, 250, 250),
                )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue(), tuple(elements)


def _element(
    box: tuple[int, int, int, int], text: str, rid: str, click: bool = False, edit: bool = False
) -> UIElement:
    x1, y1, x2, y2 = box
    bbox = BBox(x1 * 1000 / W, y1 * 1000 / H, x2 * 1000 / W, y2 * 1000 / H)
    return UIElement(
        bbox=bbox,
        text=text,
        resource_id=rid,
        class_name="android.widget.TextView",
        clickable=click,
        editable=edit,
    )


def center(state: ScreenState, index: int = 0) -> tuple[float, float]:
    """A point on the ``index``-th box of the screen (normalized)."""
    x, y, w, h = _layout(state.screen)[index]
    return ((x + w / 2) * 1000 / W, (y + h / 2 - state.scroll) * 1000 / H)


@dataclass
class Recorder:
    """Plays a scripted task, rendering each screen and remembering truth per step."""

    episode_id: str
    instruction: str
    rng: random.Random
    with_ui: bool = True
    steps: list[Step] = field(default_factory=list)
    truth: list[dict[str, object]] = field(default_factory=list)

    def act(
        self, state: ScreenState, action: Action, transition: str | None, description: str = ""
    ) -> None:
        state.clock = self.rng.randint(0, 59)
        png, elements = render(state)
        app = state.screen.split(".")[0]
        obs = Observation(
            ScreenSize(W, H),
            screenshot=png,
            elements=elements if self.with_ui else None,
            app=app if self.with_ui else None,
        )
        index = len(self.steps)
        self.steps.append(
            Step(index, obs, action, description=description or f"{state.screen} screen")
        )
        self.truth.append({"step": index, "screen": state.screen, "transition": transition})

    def episode(self, category: str = "General_Tool") -> Episode:
        return Episode(
            self.episode_id, self.instruction, category, DEVICE, tuple(self.steps), apps=("maps",)
        )

    def truth_document(self) -> dict[str, object]:
        return {
            "schema_version": 1,
            "episode_id": self.episode_id,
            "template_id": "t",
            "steps": self.truth,
        }


CITIES = ("Paris", "Rome", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Dakar")


def search_episode(
    episode_id: str, city: str, seed: int = 0, with_ui: bool = True, scroll: bool = True
) -> Recorder:
    """home → maps.main → (keyboard, type city) → maps.results (scroll) → maps.place."""
    rng = random.Random(seed)
    rec = Recorder(episode_id, f"Find {city} on the map", rng, with_ui)
    home = ScreenState("home.launcher")
    rec.act(home, Action.click(*center(home, 1)), "jump", "Home screen with app icons")
    main = ScreenState("maps.main", extra={"field": "1"})
    rec.act(main, Action.click(100, 183), "in_page", "Maps main page with a search box")
    main.keyboard = True
    rec.act(main, Action.type_text(city), "in_page", "Maps main page with a search box")
    main.typed = city
    rec.act(main, Action.click(*center(main, 2)), "jump", "Maps main page with a search box")
    items = tuple(f"{city} {s}" for s in ("centre", "airport", "station", "museum"))
    results = ScreenState("maps.results", items=items)
    if scroll:
        rec.act(results, Action.scroll("up"), "in_page", f"Search results for {city}")
        results.scroll = 40
    rec.act(results, Action.click(*center(results, 3)), "jump", f"Search results for {city}")
    place = ScreenState("maps.place", items=(f"{city} centre", "Directions", "Share"))
    rec.act(place, Action(ActionType.COMPLETE), None, f"Place page of {city} centre")
    return rec


def shop_episode(episode_id: str, product: str, seed: int = 0, with_ui: bool = True) -> Recorder:
    """home → shop.main → shop.cart → back to shop.main."""
    rng = random.Random(seed)
    rec = Recorder(episode_id, f"Add {product} to the cart", rng, with_ui)
    home = ScreenState("home.launcher")
    rec.act(home, Action.click(*center(home, 2)), "jump", "Home screen with app icons")
    main = ScreenState("shop.main", items=(product, "Deals", "Cart"))
    rec.act(main, Action.click(*center(main, 1)), "jump", "Shop main page")
    cart = ScreenState("shop.cart", items=(product, "Checkout"))
    rec.act(cart, Action.key(ActionType.PRESS_BACK), "jump", "Shopping cart")
    rec.act(main, Action(ActionType.COMPLETE), None, "Shop main page")
    return rec
