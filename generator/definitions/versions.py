"""Version ranges as Kafka's definitions write them: "none", "3", "1-4", "2+".

Kafka's generator (``Versions.java``) treats "N+" as N..Short.MAX_VALUE; we do the same, so
an open-ended range has ``highest == MAX_VERSION``. Like Kafka, a blank string counts as "not
given" and takes the caller's default.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

MAX_VERSION = 0x7FFF

_RANGE = re.compile(r"^([0-9]{1,10})(?:(\+)|-([0-9]{1,10}))?$")


@dataclass(frozen=True, slots=True)
class Versions:
    """An inclusive range of versions; ``lowest > highest`` is the empty range."""

    lowest: int
    highest: int

    @staticmethod
    def parse(text: str | None, default: Versions | None = None) -> Versions:
        """Parse Kafka's syntax. ``None`` or a blank string gives ``default`` (a missing key)."""
        if text is None or not text.strip():
            if default is None:
                raise ValueError("versions are required")
            return default
        text = text.strip()
        if text == "none":
            return NONE
        match = _RANGE.match(text)
        if not match:
            raise ValueError(f"invalid version range {text!r}: expected 'none', 'N', 'N-M' or 'N+'")
        low = int(match.group(1))
        if match.group(2):
            high = MAX_VERSION
        elif match.group(3) is not None:
            high = int(match.group(3))
        else:
            high = low
        if low > MAX_VERSION or high > MAX_VERSION:
            raise ValueError(f"invalid version range {text!r}: versions are int16")
        if low > high:
            raise ValueError(f"invalid version range {text!r}: lowest is above highest")
        return Versions(low, high)

    @property
    def empty(self) -> bool:
        return self.lowest > self.highest

    @property
    def open_ended(self) -> bool:
        return not self.empty and self.highest == MAX_VERSION

    def __contains__(self, version: int) -> bool:
        return self.lowest <= version <= self.highest

    def contains(self, other: Versions) -> bool:
        """True when every version of ``other`` is in this range (the empty range is in any)."""
        return other.empty or (not self.empty and self.lowest <= other.lowest and other.highest <= self.highest)

    def intersect(self, other: Versions) -> Versions:
        low, high = max(self.lowest, other.lowest), min(self.highest, other.highest)
        return Versions(low, high) if low <= high else NONE

    def subtract(self, other: Versions) -> Versions | None:
        """This range minus ``other``; None when the result is not one range (a hole)."""
        if self.empty:
            return self
        parts = minus(self, other)
        if len(parts) > 1:
            return None
        return parts[0] if parts else NONE

    def __iter__(self):
        return iter(range(self.lowest, self.highest + 1))

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.lowest == self.highest:  # checked first, as Kafka does: "32767+" prints "32767"
            return str(self.lowest)
        if self.highest == MAX_VERSION:
            return f"{self.lowest}+"
        return f"{self.lowest}-{self.highest}"


NONE = Versions(1, 0)
ALL = Versions(0, MAX_VERSION)


# --- arithmetic over several ranges (a difference may be two of them) ------------------------------

def minus(a: Versions, b: Versions) -> list[Versions]:
    """The parts of ``a`` outside ``b``."""
    if a.empty:
        return []
    inside = a.intersect(b)
    if inside.empty:
        return [a]
    parts = []
    if a.lowest < inside.lowest:
        parts.append(Versions(a.lowest, inside.lowest - 1))
    if inside.highest < a.highest:
        parts.append(Versions(inside.highest + 1, a.highest))
    return parts


def minus_all(parts: Iterable[Versions], b: Versions) -> list[Versions]:
    return [piece for part in parts for piece in minus(part, b)]


def intersect_all(parts: Iterable[Versions], b: Versions) -> list[Versions]:
    return [x for x in (part.intersect(b) for part in parts) if not x.empty]


def merge(parts: Iterable[Versions]) -> list[Versions]:
    """Sort and join touching or overlapping ranges."""
    merged: list[Versions] = []
    for part in sorted((p for p in parts if not p.empty), key=lambda p: p.lowest):
        if merged and part.lowest <= merged[-1].highest + 1:
            last = merged.pop()
            part = Versions(last.lowest, max(last.highest, part.highest))
        merged.append(part)
    return merged


def segments(scope: Versions, boundaries: Iterable[Versions]) -> list[Versions]:
    """Cut ``scope`` wherever one of ``boundaries`` starts or ends, so that each piece sees every
    boundary range either entirely or not at all (then one version speaks for the piece)."""
    if scope.empty:
        return []
    cuts = {scope.lowest}
    for rng in boundaries:
        if not rng.empty:
            cuts.update(c for c in (rng.lowest, rng.highest + 1) if scope.lowest < c <= scope.highest)
    points = sorted(cuts) + [scope.highest + 1]
    return [Versions(a, b - 1) for a, b in pairwise(points)]
