"""Directed search: the instance that shows a field lost, or a write refused, because of one field.

For a path the static classification names, :func:`demonstrate` builds an instance valid at
``from`` that is at its defaults everywhere except along that path (arrays on the way hold one
element), writes it at ``to`` and reads it back. A losable field must come back different, and
only inside that field; a refusing one must make the write fail. Random values are tried until
one shows it, so the search also covers fields whose loss depends on the value.

:func:`neutralize` does the opposite for an observed instance: it puts the named fields where
they cannot refuse, so a refusal left afterwards is one the static classification did not explain.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from kwire.wire.message import GeneratedStruct, KeyedList

from .diff import UNKNOWN_TAGS
from .matrix import convert
from .properties import check_round_trip
from .static import NULL, NULL_DEFAULT, TAGS, explains
from .values import non_default_value, random_unknown_tags

ATTEMPTS = 20


@dataclass(frozen=True)
class Demonstration:
    path: str
    shown: bool
    detail: str  # what the successful case did, or why none did
    instance: Any = None  # the instance that shows it (valid at ``from``)


def demonstrate(cls: type[GeneratedStruct], from_version: int, to_version: int, path: str,
                reason: str | None = None, *, seed: int = 0) -> Demonstration:
    """Show that ``path`` is lost (``reason`` None) or refused (``reason`` from static) from -> to."""
    last = "no attempt"
    for attempt in range(ATTEMPTS):
        rng = random.Random(f"kwire-directed:{seed}:{cls.NAME}:{from_version}:{to_version}:{path}:{attempt}")
        obj = cls()
        _set_along(obj, path.split("."), from_version, rng, reason)
        problems = check_round_trip(obj, from_version)
        if problems:  # a codec bug at ``from`` (reported by the sweep); try another value
            last = f"the built instance does not round-trip at v{from_version}: {'; '.join(problems)}"
            continue
        outcome, details = convert(cls, obj, to_version)
        if reason is None and outcome == "lossy" and all(explains(path, d) for d in details):
            return Demonstration(path, True, f"lost: {', '.join(details)}", obj)
        if reason is not None and outcome == "refused":
            return Demonstration(path, True, details[0], obj)
        last = f"{outcome}: {', '.join(details) or 'came back equal'}"
    return Demonstration(path, False, f"not shown in {ATTEMPTS} attempts (last: {last})")


def _set_along(obj: GeneratedStruct, steps: list[str], version: int, rng: random.Random,
               reason: str | None) -> None:
    step, rest = steps[0], steps[1:]
    if step == UNKNOWN_TAGS:
        obj.unknown_tagged_fields = random_unknown_tags(rng, type(obj))
        return
    attr = step[:-2] if step.endswith("[]") else step
    info = next(i for i in type(obj).FIELDS if i.attr == attr)
    if not rest:
        if reason in (NULL, ):
            setattr(obj, attr, None)
        elif reason != NULL_DEFAULT:  # a null default needs nothing: the field is absent at ``from``
            setattr(obj, attr, non_default_value(rng, info, version))
        return
    child = info.struct()
    if step.endswith("[]"):
        setattr(obj, attr, KeyedList([child]) if info.struct._MAP_KEYS else [child])
    else:
        setattr(obj, attr, child)
    _set_along(child, rest, version, rng, reason)


def neutralize(obj: GeneratedStruct, path: str, reason: str, version: int) -> None:
    """Set the field at ``path`` (in every element on the way) to a value that cannot refuse."""
    _neutralize(obj, path.split("."), reason, version)


def _neutralize(obj: GeneratedStruct, steps: list[str], reason: str, version: int) -> None:
    step, rest = steps[0], steps[1:]
    if step == UNKNOWN_TAGS:
        obj.unknown_tagged_fields = ()
        return
    attr = step[:-2] if step.endswith("[]") else step
    info = next(i for i in type(obj).FIELDS if i.attr == attr)
    value = getattr(obj, attr)
    if not rest:
        if reason in (NULL, NULL_DEFAULT):
            if value is None:
                default = info.make_default()
                setattr(obj, attr, default if default is not None
                        else non_default_value(random.Random(0), info, version))
        elif reason != TAGS:
            setattr(obj, attr, info.make_default())
        return
    if value is None:
        return
    for child in (value if step.endswith("[]") else [value]):
        _neutralize(child, rest, reason, version)
