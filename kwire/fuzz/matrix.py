"""What converting instances between versions does, observed on seeded random cases.

The work unit is the pure function :func:`run_cases`: the same arguments give the same JSON-able
result on any machine (cases come from :mod:`kwire.fuzz.values`, nothing depends on time or
hashing), and results of consecutive ranges :func:`merge` into the result of the whole range.
A Spark job maps ``run_cases`` over ranges; the local sweep does the same in one process.

A cell (from, to) writes each instance valid at ``from`` at version ``to`` and reads it back:

* the instance is *refused* when writing at ``to`` raises a kwire error,
* *lossy* when it comes back different (the differing fields are counted by path),
* *lossless* otherwise.

The diagonal (from == to) instead checks the round-trip properties of
:mod:`kwire.fuzz.properties`; any problem there, and any non-kwire exception, re-encoding that differs
or unreadable output anywhere, is a *failure* (a codec bug).

Off the diagonal the instances carry no unknown tagged fields by default: they are in no
version's schema, and a flexible -> non-flexible write of them is always refused (as Kafka does),
which would hide what happens to the fields the definitions do describe. ``unknown_tags=True``
keeps them, and the static classification follows the same switch.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kwire.wire.errors import KwireError
from kwire.wire.index import load
from kwire.wire.message import GeneratedStruct

from .diff import differences
from .properties import check_round_trip
from .values import case_instance

EXAMPLES_KEPT = 3  # first case indices kept per outcome (enough to reproduce, small to ship)
FAILURES_KEPT = 5
OUTCOMES = ("lossless", "lossy", "refused", "failed")


def load_messages(package: str = "kwire.generated") -> dict[str, type[GeneratedStruct]]:
    """``MESSAGES`` of a generated package (any package kwire generated works)."""
    return dict(load(package).messages)


def run_cases(message_name: str, from_version: int, to_version: int, seed: int, start: int, count: int,
              *, package: str = "kwire.generated", unknown_tags: bool = False) -> dict[str, Any]:
    """Cases ``start`` .. ``start + count - 1`` of one (from, to) cell."""
    cls = load_messages(package)[message_name]
    return run_row(cls, from_version, [to_version], seed, start, count, unknown_tags=unknown_tags)[0]


def run_row(cls: type[GeneratedStruct], from_version: int, to_versions: Sequence[int], seed: int,
            start: int, count: int, *, unknown_tags: bool = False) -> list[dict[str, Any]]:
    """Several cells sharing a ``from`` version: each case is generated once for all of them.

    Gives, cell by cell, exactly what :func:`run_cases` gives.
    """
    cells = [new_cell(cls.NAME, from_version, to, seed, start, count, unknown_tags) for to in to_versions]
    for index in range(start, start + count):
        obj = case_instance(cls, from_version, seed, index)
        if from_version in to_versions:
            # the diagonal sees the instance with its unknown tags ...
            cell = cells[to_versions.index(from_version)]
            record(cell, index, *_round_trip_outcome(obj, from_version))
        if not unknown_tags:
            strip_unknown_tags(obj)  # ... the other cells without them, unless asked for
        for cell, to in zip(cells, to_versions, strict=False):
            if to != from_version:
                record(cell, index, *convert(cls, obj, to))
    for cell in cells:
        for name in ("lost_fields", "refusals"):
            cell[name] = dict(sorted(cell[name].items()))
    return cells


def new_cell(message: str, from_version: int, to_version: int, seed: int, start: int, count: int,
             unknown_tags: bool) -> dict[str, Any]:
    return {
        "message": message, "from": from_version, "to": to_version, "seed": seed,
        "start": start, "count": count, "unknown_tags": unknown_tags,
        "lossless": 0, "lossy": 0, "refused": 0, "failed": 0,
        "lost_fields": {}, "refusals": {},
        "examples": {"lossy": [], "refused": [], "failed": []},
        "failures": [],
    }


def record(cell: dict[str, Any], index: int, outcome: str, details: list[str]) -> None:
    cell[outcome] += 1
    if outcome == "lossless":
        return
    if len(cell["examples"][outcome]) < EXAMPLES_KEPT:
        cell["examples"][outcome].append(index)
    if outcome == "lossy":
        _count(cell["lost_fields"], details)
    elif outcome == "refused":
        _count(cell["refusals"], details)
    elif len(cell["failures"]) < FAILURES_KEPT:
        cell["failures"].append({"index": index, "problems": details})


def _count(counter: dict[str, int], keys: Iterable[str]) -> None:
    for key in keys:
        counter[key] = counter.get(key, 0) + 1


def _round_trip_outcome(obj: GeneratedStruct, version: int) -> tuple[str, list[str]]:
    problems = check_round_trip(obj, version)
    return ("failed", problems) if problems else ("lossless", [])


def convert(cls: type[GeneratedStruct], obj: GeneratedStruct, to_version: int) -> tuple[str, list[str]]:
    """Write ``obj`` at ``to_version``, read it back, and say what happened."""
    try:
        data = obj.encode(to_version)
    except KwireError as exc:
        return "refused", [f"{type(exc).__name__}: {exc}"]
    except Exception as exc:  # noqa: BLE001 - anything else escaping the codec is a bug
        return "failed", [f"encode v{to_version} raised {type(exc).__name__}: {exc}"]
    try:
        back = cls.decode(data, to_version)
        again = back.encode(to_version)
    except Exception as exc:  # noqa: BLE001
        return "failed", [f"reading back v{to_version} raised {type(exc).__name__}: {exc}"]
    if again != data:
        return "failed", [f"re-encoding what v{to_version} read gives different bytes"]
    if back == obj:  # one comparison; name the fields only when something differs
        return "lossless", []
    return "lossy", differences(obj, back) or ["(unnamed difference)"]


def strip_unknown_tags(obj: GeneratedStruct) -> None:
    """Remove unknown tagged fields from ``obj`` and every struct inside it (in place)."""
    obj.unknown_tagged_fields = ()
    for info in type(obj).FIELDS:
        if info.struct is None:
            continue
        value = getattr(obj, info.attr)
        if value is None:
            continue
        for element in (value if info.element_type is not None else [value]):
            strip_unknown_tags(element)


def outcome_of(cell: dict[str, Any]) -> str:
    """The cell's class: the worst outcome seen (failed > refused > lossy > lossless)."""
    for outcome in ("failed", "refused", "lossy"):
        if cell[outcome]:
            return outcome
    return "lossless"


def merge(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Combine results of consecutive case ranges of the same cell into one result."""
    if not cells:
        raise ValueError("nothing to merge")
    ordered = sorted(cells, key=lambda c: c["start"])
    first = ordered[0]
    key = ("message", "from", "to", "seed", "unknown_tags")
    expected = first["start"]
    for cell in ordered:
        if any(cell[k] != first[k] for k in key):
            raise ValueError("results of different cells cannot be merged")
        if cell["start"] != expected:
            raise ValueError(f"case ranges are not consecutive: gap or overlap at {expected}")
        expected += cell["count"]
    total = new_cell(first["message"], first["from"], first["to"], first["seed"], first["start"],
                     expected - first["start"], first["unknown_tags"])
    for cell in ordered:
        for outcome in OUTCOMES:
            total[outcome] += cell[outcome]
        for name in ("lost_fields", "refusals"):
            for k, n in cell[name].items():
                total[name][k] = total[name].get(k, 0) + n
        for outcome, indices in cell["examples"].items():
            kept = total["examples"][outcome]
            kept.extend(indices[: EXAMPLES_KEPT - len(kept)])
        total["failures"].extend(cell["failures"][: FAILURES_KEPT - len(total["failures"])])
    for name in ("lost_fields", "refusals"):
        total[name] = dict(sorted(total[name].items()))
    return total
