"""What the runtime knows about one field of a generated class (``FIELDS``), without the generator.

A leaf of ``kwire.wire``: ``message`` (the generated classes' helpers) and ``jsonform`` (Kafka's
JSON form, which ``GeneratedStruct.to_dict`` calls) both read it, so neither imports the other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .keyed_list import KeyedList

# The empty version range: a field that is never nullable, never tagged.
NEVER: tuple[int, int] = (1, 0)


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """What the runtime needs to know about one field, without the generator.

    Generated modules pass every argument by keyword and leave out those at their defaults.
    """

    attr: str  # Python attribute name
    json_name: str  # Kafka's JSON-converter key
    type: str  # Kafka type string: int32, string, []Topic, Topic, ...
    versions: tuple[int, int]  # inclusive (lowest, highest); lowest > highest = never
    nullable: tuple[int, int] = NEVER
    tagged: tuple[int, int] = NEVER
    tag: int | None = None
    ignorable: bool = False
    default: Any = None  # the default value (None for null; a struct default is made by calling ``struct``)
    struct: Any = None  # the generated class for struct and struct-array types
    map_key: bool = False

    def present(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]

    def nullable_in(self, version: int) -> bool:
        return self.nullable[0] <= version <= self.nullable[1]

    def tagged_in(self, version: int) -> bool:
        return self.tagged[0] <= version <= self.tagged[1]

    @property
    def element_type(self) -> str | None:
        return self.type[2:] if self.type.startswith("[]") else None

    def make_default(self) -> Any:
        """A fresh default value (never shared between instances)."""
        if self.default is None:
            return None
        if self.type.startswith("[]"):
            return KeyedList() if self.struct is not None and self.struct._MAP_KEYS else []
        if self.struct is not None:
            return self.struct()
        return self.default
