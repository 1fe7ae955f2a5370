"""What writing an instance valid at ``from`` at version ``to`` can do, from ``FIELDS`` alone.

No instance is built: this reads the field descriptions (versions, nullable and tagged ranges,
ignorable) the way Kafka's generated writers act on them:

* a field the instance can hold a non-default value in at ``from`` but that ``to`` lacks is
  dropped silently when ignorable (*losable*) and makes the write fail otherwise (*refusing*);
* a field null-able at ``from`` but not at ``to`` refuses the null;
* a field ``from`` lacks holds its default, and a null default refuses at a ``to`` where the field
  exists but may not be null;
* unknown tagged fields (only when asked for) refuse at a non-flexible ``to``.

Fields present at both versions are written and read back unchanged, so only their nested
structs are looked into. The result never looks at the codec, so it can be checked against what
fuzzing observes (:mod:`kwire.fuzz.matrix`) and each named field demonstrated
(:mod:`kwire.fuzz.directed`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kwire.wire.errors import join_path
from kwire.wire.message import FieldInfo, GeneratedStruct, is_flexible

from .diff import UNKNOWN_TAGS

# Why a field makes a conversion refuse.
ABSENT = "no such field at the target version and not ignorable"
NULL = "null is not allowed at the target version"
NULL_DEFAULT = "its default is null, which the target version does not allow"
TAGS = "unknown tagged fields need a flexible version"


@dataclass(frozen=True)
class StaticCell:
    from_version: int
    to_version: int
    losable: tuple[str, ...] = ()  # paths dropped silently (ignorable)
    refusing: tuple[tuple[str, str], ...] = field(default=())  # (path, reason) that make the write fail

    @property
    def outcome(self) -> str:
        if self.refusing:
            return "refused"
        return "lossy" if self.losable else "lossless"

    def to_dict(self) -> dict:
        return {"outcome": self.outcome, "losable": list(self.losable),
                "refusing": [{"path": p, "reason": r} for p, r in self.refusing]}


def classify(cls: type[GeneratedStruct], from_version: int, to_version: int,
             *, unknown_tags: bool = False) -> StaticCell:
    tags_refuse = unknown_tags and is_flexible(cls, from_version) and not is_flexible(cls, to_version)
    tags_vary = unknown_tags and is_flexible(cls, from_version)
    losable: list[str] = []
    refusing: list[tuple[str, str]] = []

    def walk(struct_cls: type[GeneratedStruct], prefix: str) -> None:
        if tags_refuse:
            refusing.append((join_path(prefix, UNKNOWN_TAGS), TAGS))
        for info in struct_cls.FIELDS:
            path = join_path(prefix, info.attr)
            if not info.present(from_version):
                if info.default is None and info.present(to_version) and not info.nullable_in(to_version):
                    refusing.append((path, NULL_DEFAULT))
                continue
            if not can_vary(info, from_version, tags_vary):
                continue
            if not info.present(to_version):
                if info.ignorable:
                    losable.append(path)
                else:
                    refusing.append((path, ABSENT))
                continue
            if info.nullable_in(from_version) and not info.nullable_in(to_version):
                refusing.append((path, NULL))
            if info.struct is not None:
                walk(info.struct, path + ("[]" if info.element_type is not None else ""))

    walk(cls, "")
    return StaticCell(from_version, to_version, tuple(losable), tuple(refusing))


def can_vary(info: FieldInfo, version: int, unknown_tags: bool) -> bool:
    """Whether an instance valid at ``version`` can hold a non-default value in this field."""
    if not info.present(version):
        return False
    if info.nullable_in(version) and info.default is not None:
        return True
    if info.struct is None or info.element_type is not None:
        return True  # every scalar type has a second value; a non-empty array differs from []
    return unknown_tags or any(can_vary(sub, version, unknown_tags) for sub in info.struct.FIELDS)


def explains(static_path: str, observed_path: str) -> bool:
    """Whether a loss seen at ``observed_path`` lies inside the field ``static_path`` names."""
    return observed_path == static_path or observed_path.startswith((static_path + ".", static_path + "[]"))
