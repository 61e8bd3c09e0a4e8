"""Model settings: one ``ModelConfig`` per agent role.

A small model can judge page jumps while a large one plans, so settings are per role with a
default. Values left empty fall back to the environment variables every OpenAI-compatible
tool reads (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``), so pointing guigraph at vLLM, Ollama or
OpenAI needs no guigraph-specific setup.

The API key is a secret: it is never part of ``to_dict`` (saved run configs store only the name
of the environment variable to read it from), never in ``repr``, never in a cache key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from guigraph.errors import ConfigError
from guigraph.geometry import ScreenSize

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: How a reply's JSON shape is asked for (``response_format``): ``json_schema`` (vLLM, OpenAI,
#: Ollama), ``json_object`` with the schema beside it (llama.cpp), ``none``, or ``auto``: try
#: ``json_schema`` and fall back, once per server and model, when the server rejects the form.
STRUCTURED_FORMS = ("auto", "json_schema", "json_object", "none")
#: Local servers (vLLM, Ollama) accept any key; the SDK insists on a non-empty one.
PLACEHOLDER_API_KEY = "EMPTY"


@dataclass(frozen=True, slots=True)
class ImagePolicy:
    """How screenshots are sent: downscaled (never upscaled) to at most ``max_pixels``.

    The aspect ratio is kept, so a point's fraction of the image is its fraction of the screen.
    The default budget (1280 x 28 x 28 ≈ 1.0 MP) keeps a 1080x2400 phone screenshot legible
    while costing about 1,280 visual tokens on Qwen-VL models (one token per 28x28 patch).
    """

    max_pixels: int = 1280 * 28 * 28
    min_side: int = 28

    def __post_init__(self) -> None:
        if self.max_pixels < self.min_side * self.min_side:
            raise ConfigError(
                f"image max_pixels must be >= {self.min_side**2}, got {self.max_pixels}"
            )

    def sent_size(self, screen: ScreenSize) -> ScreenSize:
        """The size a screenshot of ``screen`` is sent at (the ``sent`` of coordinate maps)."""
        return ScreenSize(*self.target_size(screen.width, screen.height))

    def target_size(self, width: int, height: int) -> tuple[int, int]:
        """The size an image of ``width`` x ``height`` is sent at."""
        if width * height <= self.max_pixels:
            return width, height
        scale = (self.max_pixels / (width * height)) ** 0.5
        return (
            max(self.min_side, int(width * scale)),
            max(self.min_side, int(height * scale)),
        )


@dataclass(frozen=True, slots=True)
class Prices:
    """Price in US dollars per million tokens; zero for self-hosted models."""

    input_per_million: float = 0.0
    output_per_million: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1_000_000


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """Where and how to call one model. Empty ``base_url``/``api_key`` read the environment."""

    model: str = ""
    base_url: str = ""
    api_key: str = field(default="", repr=False)
    api_key_env: str = "OPENAI_API_KEY"
    #: Model coordinate space name, see ``guigraph.llm.coords.ModelCoords.from_name``.
    coords: str = "qwen3-vl"
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 60.0
    #: Total attempts per call (1 = no retry).
    max_attempts: int = 5
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 30.0
    stream: bool = False
    #: Calls in flight at once to this base URL, shared by every client of the process.
    max_concurrency: int = 16
    image_policy: ImagePolicy = field(default_factory=ImagePolicy)
    prices: Prices = field(default_factory=Prices)
    #: False for a text-only model: no image part is ever sent; roles read the screen as text.
    vision: bool = True
    #: Structured-output form, one of ``STRUCTURED_FORMS``.
    structured: str = "auto"

    def __post_init__(self) -> None:
        if self.structured not in STRUCTURED_FORMS:
            raise ConfigError(
                f"model structured must be one of {', '.join(STRUCTURED_FORMS)}, "
                f"got {self.structured!r}"
            )
        if self.max_tokens < 1:
            raise ConfigError(f"model max_tokens must be >= 1, got {self.max_tokens}")
        if self.timeout_s <= 0:
            raise ConfigError(f"model timeout_s must be > 0, got {self.timeout_s}")
        if self.max_attempts < 1:
            raise ConfigError(f"model max_attempts must be >= 1, got {self.max_attempts}")
        if self.max_concurrency < 1:
            raise ConfigError(f"model max_concurrency must be >= 1, got {self.max_concurrency}")
        if self.backoff_initial_s < 0 or self.backoff_max_s < self.backoff_initial_s:
            raise ConfigError(
                "model backoff needs 0 <= backoff_initial_s <= backoff_max_s, got "
                f"{self.backoff_initial_s} and {self.backoff_max_s}"
            )

    def resolved(self, environ: Mapping[str, str] | None = None) -> ModelConfig:
        """A copy with base URL, key and model filled from the environment where empty."""
        env = os.environ if environ is None else environ
        base_url = self.base_url or env.get("OPENAI_BASE_URL", "") or DEFAULT_BASE_URL
        api_key = self.api_key or env.get(self.api_key_env, "") or PLACEHOLDER_API_KEY
        model = self.model or env.get("GUIGRAPH_MODEL", "")
        if not model:
            raise ConfigError(
                "no model name: set 'model' in the model settings or GUIGRAPH_MODEL "
                "(the name the server serves, e.g. Qwen/Qwen3-VL-30B-A3B-Instruct)"
            )
        return replace(self, base_url=base_url.rstrip("/"), api_key=api_key, model=model)

    def to_dict(self) -> dict[str, Any]:
        """Settings for saving with a run; the key itself is left out on purpose."""
        out: dict[str, Any] = {}
        for item in fields(self):
            if item.name == "api_key":
                continue
            value = getattr(self, item.name)
            if isinstance(value, ImagePolicy | Prices):
                value = {f.name: getattr(value, f.name) for f in fields(value)}
            out[item.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelConfig:
        known = {f.name for f in fields(cls)} - {"api_key"}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(
                f"model settings: unknown field(s) {sorted(unknown)}; expected some of "
                f"{sorted(known)}"
            )
        values = dict(data)
        _check_types(values)
        if isinstance(values.get("image_policy"), Mapping):
            values["image_policy"] = ImagePolicy(**values["image_policy"])
        if isinstance(values.get("prices"), Mapping):
            values["prices"] = Prices(**values["prices"])
        try:
            return cls(**values)
        except TypeError as exc:  # e.g. a nested table with a wrong field
            raise ConfigError(f"model settings: {exc}") from exc


_NUMBERS = {"temperature", "timeout_s", "backoff_initial_s", "backoff_max_s"}
_INTEGERS = {"max_tokens", "max_attempts", "max_concurrency"}
_STRINGS = {"model", "base_url", "api_key_env", "coords", "structured"}
_BOOLS = {"stream", "vision"}


def _check_types(values: dict[str, Any]) -> None:
    """Settings files are written by hand: a wrong type is named, not a crash later."""
    for name, value in values.items():
        ok = True
        if name in _BOOLS:
            ok = isinstance(value, bool)
        elif name in _INTEGERS:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif name in _NUMBERS:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif name in _STRINGS:
            ok = isinstance(value, str)
        if not ok:
            raise ConfigError(f"model setting {name!r}: wrong type, got {value!r}")


@dataclass(frozen=True, slots=True)
class RoleModels:
    """The model configuration of each agent role, with a default for roles not named."""

    default: ModelConfig = field(default_factory=ModelConfig)
    roles: Mapping[str, ModelConfig] = field(default_factory=dict)

    def for_role(self, role: str) -> ModelConfig:
        return self.roles.get(role, self.default)

    def replace_all(self, **changes: Any) -> RoleModels:
        """The same settings with ``changes`` applied to the default and every role."""
        return RoleModels(
            default=replace(self.default, **changes),
            roles={name: replace(cfg, **changes) for name, cfg in self.roles.items()},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "default": self.default.to_dict(),
            "roles": {name: cfg.to_dict() for name, cfg in self.roles.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoleModels:
        default = ModelConfig.from_dict(data.get("default", {}))
        roles = {
            str(name): ModelConfig.from_dict({**default.to_dict(), **dict(values)})
            for name, values in dict(data.get("roles", {})).items()
        }
        return cls(default=default, roles=roles)
