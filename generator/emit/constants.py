"""Module-level constants generated code names by meaning (uuid defaults, version ranges), and
the Python source of a field's default value, which may name one of them.

The plan names the uuid defaults (a new instance's defaults are part of its reads), the views
the version ranges of the classes' FieldInfo.
"""
from __future__ import annotations

import math
from uuid import UUID

from ..definitions.model import Field
from ..definitions.versions import MAX_VERSION, Versions


class ModuleConstants:
    """Module-level constants that views ask for by meaning: uuid defaults, version ranges."""

    def __init__(self, uuids: dict[UUID, str] | None = None) -> None:
        self.uuids: dict[UUID, str] = dict(uuids or {})  # value -> name, in the order first asked
        self.ranges: dict[tuple[int, int], str] = {}

    def uuid(self, value: UUID, attr: str) -> str:
        if value not in self.uuids:
            name = "_ZERO_UUID" if value.int == 0 else f"_DEFAULT_{attr.upper()}"
            while name in self.uuids.values():
                name += "_"
            self.uuids[value] = name
        return self.uuids[value]

    def sorted_ranges(self) -> list[tuple[str, tuple[int, int]]]:
        return sorted(((name, key) for key, name in self.ranges.items()), key=lambda item: item[1])

    def versions(self, v: Versions) -> str:
        """A name for the range as FieldInfo takes it: ``NEVER``, ``_V3_PLUS``, ``_V0_TO_2``."""
        if v.empty:
            return "NEVER"
        key = (v.lowest, v.highest)
        if key not in self.ranges:
            if v.highest == MAX_VERSION:
                self.ranges[key] = f"_V{v.lowest}_PLUS"
            elif v.lowest == v.highest:
                self.ranges[key] = f"_V{v.lowest}_ONLY"
            else:
                self.ranges[key] = f"_V{v.lowest}_TO_{v.highest}"
        return self.ranges[key]


def default_literal(f: Field, constants: ModuleConstants) -> str:
    """Python source of the field's default value (struct/array defaults are handled by callers)."""
    value = f.default_value()
    if value is None:
        return "None"
    if f.type.name == "uuid":
        return constants.uuid(value, f.attr_name)
    if f.type.name == "float64" and (math.isnan(value) or math.isinf(value)):
        return f"float({str(value)!r})"
    return repr(value)
