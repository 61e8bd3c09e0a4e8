"""Model settings from a file and the command line: ``--model-config FILE`` and overrides.

The file is JSON or TOML (by its suffix: ``.toml`` is TOML, anything else JSON) holding a
``default`` table of ``ModelConfig`` fields and a ``roles`` table of per-role changes::

    [default]
    model = "smollm2"
    base_url = "http://127.0.0.1:8011/v1"
    vision = false              # text-only model: no image is ever sent
    structured = "json_object"  # or json_schema, none, auto (the default: detected)
    timeout_s = 120
    max_tokens = 256
    max_attempts = 2            # 1 = no retry
    coords = "qwen3-vl"

    [roles.narrator]
    max_tokens = 48

Precedence, lowest first: the file's ``default``, its role tables, the command line's flags
for every role (``--timeout``, ``--max-tokens``, ``--retries``, ``--coords``, ``--structured``,
``--text-only``, ``--model``, ``--base-url``), then ``--model-set [ROLE.]FIELD=VALUE``. The API
key is never read from a file: it comes from the environment variable ``api_key_env`` names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError
from guigraph.llm.config import ModelConfig, RoleModels


@dataclass(frozen=True, slots=True)
class ModelFlags:
    """What the command line says about the models; ``None`` leaves a setting as it is."""

    model: str | None = None
    base_url: str | None = None
    config_file: Path | None = None
    text_only: bool = False
    timeout_s: float | None = None
    max_tokens: int | None = None
    retries: int | None = None
    coords: str | None = None
    structured: str | None = None
    sets: tuple[str, ...] = ()


def read_file(path: Path) -> dict[str, Any]:
    """The settings file as a mapping; a missing or malformed file is a ``ConfigError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"model config {path}: cannot read it ({exc.strerror})") from exc
    try:
        if path.suffix.lower() == ".toml":
            import tomllib

            data: Any = tomllib.loads(text)
        else:
            data = json.loads(text)
    except ValueError as exc:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise ConfigError(f"model config {path}: not valid {kind}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"model config {path}: expected a table with default and roles")
    unknown = set(data) - {"default", "roles"}
    if unknown:
        raise ConfigError(
            f"model config {path}: unknown key(s) {sorted(unknown)}; expected default, roles"
        )
    if "api_key" in data.get("default", {}) or any(
        "api_key" in values for values in dict(data.get("roles", {})).values()
    ):
        raise ConfigError(
            f"model config {path}: holds an api_key; keys come from the environment "
            "(name the variable with api_key_env)"
        )
    return data


def _value(text: str) -> Any:
    """A command-line value: JSON when it reads as JSON (numbers, true/false), else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_sets(sets: Iterable[str]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``FIELD=VALUE`` (every role) and ``ROLE.FIELD=VALUE`` into (all, per role)."""
    common: dict[str, Any] = {}
    roles: dict[str, dict[str, Any]] = {}
    for item in sets:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--model-set {item!r}: expected [ROLE.]FIELD=VALUE")
        role, dot, field = name.strip().rpartition(".")
        target = roles.setdefault(role, {}) if dot else common
        target[field] = _value(value.strip())
    return common, roles


def role_models(flags: ModelFlags) -> RoleModels:
    """The settings of every role from the file (if any) and the command line."""
    data = read_file(flags.config_file) if flags.config_file is not None else {}
    default = dict(data.get("default", {}))
    role_tables: dict[str, dict[str, Any]] = {
        str(name): dict(values) for name, values in dict(data.get("roles", {})).items()
    }
    common, per_role = parse_sets(flags.sets)
    changes = {**_flag_changes(flags), **common}
    default.update(changes)
    for name, values in per_role.items():
        role_tables.setdefault(name, {}).update(values)
    # Flags apply to every role, but a role's own --model-set wins over them.
    tables = {
        name: {**values, **changes, **per_role.get(name, {})}
        for name, values in role_tables.items()
    }
    return RoleModels.from_dict({"default": default, "roles": tables})


def _flag_changes(flags: ModelFlags) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for field, value in (
        ("model", flags.model),
        ("base_url", flags.base_url),
        ("timeout_s", flags.timeout_s),
        ("max_tokens", flags.max_tokens),
        ("coords", flags.coords),
        ("structured", flags.structured),
    ):
        if value is not None:
            changes[field] = value
    if flags.retries is not None:
        if flags.retries < 0:
            raise ConfigError(f"--retries must be >= 0, got {flags.retries}")
        changes["max_attempts"] = flags.retries + 1
    if flags.text_only:
        changes["vision"] = False
    return changes


def check_roles(models: RoleModels, known: Iterable[str]) -> None:
    """Refuse role names nobody uses (a typo would silently change nothing)."""
    names = set(known)
    unknown = sorted(set(models.roles) - names)
    if unknown:
        raise ConfigError(
            f"model settings for unknown role(s) {unknown}; roles: {', '.join(sorted(names))}"
        )


def resolved(models: RoleModels, environ: Mapping[str, str] | None = None) -> RoleModels:
    """Every role's settings with URL, key and model name filled from the environment."""
    return RoleModels(
        default=models.default.resolved(environ),
        roles={name: cfg.resolved(environ) for name, cfg in models.roles.items()},
    )


def describe(config: ModelConfig) -> str:
    """One line of the settings that matter on a weak server."""
    vision = "images" if config.vision else "text only"
    return (
        f"{config.model} ({vision}, structured {config.structured}, timeout {config.timeout_s:g}"
        f" s, max_tokens {config.max_tokens}, {config.max_attempts} attempt(s), "
        f"coords {config.coords})"
    )


__all__ = ["ModelFlags", "check_roles", "describe", "parse_sets", "read_file", "role_models"]
