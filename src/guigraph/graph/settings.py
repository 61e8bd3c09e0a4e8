"""Build settings saved inside a knowledge base, so later builds and readers agree with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from guigraph.errors import ConfigError
from guigraph.graph.judge import RuleJudgeSettings
from guigraph.graph.matcher import MatchSettings

#: 2: traces keep their tail actions and slot values; 3: title band; 4: edge maps count edges
SCHEMA_VERSION = 4
#: The text encoder a KB is made with unless told otherwise: no extra, no model to load.
DEFAULT_ENCODER = "hashing:256"


@dataclass(frozen=True)
class KBSettings:
    encoder: str = DEFAULT_ENCODER
    #: False builds from screenshots and descriptions only (real GUIOdyssey has no UI tree).
    use_ui: bool = True
    judge: str = "rule"
    #: Describe screens that have neither a UI tree nor a description by OCR (extra ``ocr``).
    ocr: bool = False
    match: MatchSettings = field(default_factory=MatchSettings)
    rule_judge: RuleJudgeSettings = field(default_factory=RuleJudgeSettings)
    #: The world its logs were recorded in (``Episode.world``, the part before "/": SimPhone's
    #: skins are one world); "" until an episode says. Episodes of another world are refused.
    world: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "encoder": self.encoder,
            "use_ui": self.use_ui,
            "judge": self.judge,
            "ocr": self.ocr,
            "match": self.match.to_dict(),
            "rule_judge": self.rule_judge.to_dict(),
            "world": self.world,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KBSettings:
        return cls(
            encoder=str(data.get("encoder", "hashing:256")),
            use_ui=bool(data.get("use_ui", True)),
            judge=str(data.get("judge", "rule")),
            ocr=bool(data.get("ocr", False)),
            match=MatchSettings.from_dict(dict(data.get("match", {}))),
            rule_judge=RuleJudgeSettings.from_dict(dict(data.get("rule_judge", {}))),
            world=str(data.get("world", "")),
        )

    def check_compatible(self, requested: KBSettings) -> None:
        """A KB grows only with the settings it was built with, or its graph would mix rules."""
        for name in ("encoder", "use_ui", "judge", "ocr"):
            have, want = getattr(self, name), getattr(requested, name)
            if have != want:
                raise ConfigError(
                    f"this knowledge base was built with {name}={have!r}, not {want!r}; "
                    "build into a new --kb folder to change it"
                )
