"""The CI gate of ``kwire fuzz --baseline``: which cells of a sweep got worse than a committed report.

A baseline is a sweep's ``report.json`` (:func:`kwire.fuzz.sweep.sweep`), kept in the user's
repository. A cell (message, from -> to) got worse when

* its class rose on the scale lossless < lossy < refused < failed (lossless turned lossy or
  refused, a new failure),
* it loses a field it did not lose before, or a field newly makes it refuse,
* or it is gone: a version (or, in a sweep of every message, a message) the baseline had.

A cell's class and lost fields are the observed ones joined with what the static classification
says: that part depends on the definitions alone, so a baseline made with 1000 cases and a gate
run with 50 (or the other way round) agree wherever the definitions did not change, whereas an
observation alone differs with how many cases happened to hit a rare field.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kwire.wire.errors import KwireError
from kwire.wire.files import atomic_write

from .matrix import OUTCOMES


class BaselineError(KwireError):
    """A baseline file that cannot be used: missing, not JSON, not a fuzz report, or made differently."""


@dataclass(frozen=True)
class Worse:
    """One cell that got worse than the baseline, with every way it did."""

    message: str
    cell: str  # "from->to"; "*" when the whole message is gone
    was: str
    now: str
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"WORSE {self.message} {self.cell}: {self.was} -> {self.now}: {'; '.join(self.reasons)}"

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "cell": self.cell, "was": self.was, "now": self.now,
                "reasons": list(self.reasons)}


@dataclass(frozen=True)
class Comparison:
    worse: list[Worse]
    better: int  # cells whose class went down (an updated baseline would record them)
    compared: int  # cells present in both


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a baseline report; :class:`BaselineError` naming the file (and offset) when unusable."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such file (a baseline is made with --update-baseline)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc}") from None
    try:
        report = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}: not JSON at byte offset {exc.pos} (line {exc.lineno}): {exc.msg}") from None
    if not (isinstance(report, dict) and isinstance(report.get("messages"), dict)
            and all(isinstance(m, dict) and isinstance(m.get("cells"), dict) for m in report["messages"].values())):
        raise BaselineError(f"{path}: not a kwire fuzz report (report.json of `kwire fuzz --report`)")
    if not report["messages"]:
        raise BaselineError(f"{path}: the baseline has no messages: nothing to compare against")
    return report


def save(result: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``result`` as the new baseline, in report.json's own text, atomically.

    ``--update-baseline`` names the file to rewrite, so replacing it is what was asked for."""
    return atomic_write(path, json.dumps(result, indent=1, sort_keys=True) + "\n", force=True)


def check_settings(baseline: dict[str, Any], unknown_tags: bool, path: str | os.PathLike[str]) -> None:
    """Refuse a baseline whose cells mean something else: unknown tagged fields change every class."""
    if bool(baseline.get("unknown_tags")) != unknown_tags:
        made = "with" if baseline.get("unknown_tags") else "without"
        raise BaselineError(f"{path}: the baseline was made {made} --unknown-tags; run the gate the same way")


def compare(baseline: dict[str, Any], result: dict[str, Any], *, every_message: bool) -> Comparison:
    """Cells of ``result`` worse than in ``baseline``.

    Messages the sweep did not cover are not compared, unless ``every_message`` (the sweep covered
    the whole package): then a message of the baseline the package no longer has is worse."""
    worse: list[Worse] = []
    better = compared = 0
    for name, old_message in baseline["messages"].items():
        message = result["messages"].get(name)
        if message is None:
            if every_message:
                worse.append(Worse(name, "*", "present", "absent", ("the package no longer has this message",)))
            continue
        for key, old_cell in old_message["cells"].items():
            cell = message["cells"].get(key)
            if cell is None:
                worse.append(Worse(name, key, cell_class(old_cell), "absent",
                                   ("a version of this cell is no longer in the definition",)))
                continue
            compared += 1
            found = _worse_cell(name, key, old_cell, cell)
            if found:
                worse.append(found)
            elif OUTCOMES.index(cell_class(cell)) < OUTCOMES.index(cell_class(old_cell)):
                better += 1
    return Comparison(worse, better, compared)


def cell_class(cell: dict[str, Any]) -> str:
    """The worse of the observed outcome and the static one."""
    static = cell.get("static", {}).get("outcome", "lossless")
    return max(cell["outcome"], static, key=OUTCOMES.index)


def lost_fields(cell: dict[str, Any]) -> set[str]:
    return set(cell["observed"].get("lost_fields", {})) | set(cell.get("static", {}).get("losable", ()))


def refusing_fields(cell: dict[str, Any]) -> set[str]:
    return {r["path"] for r in cell.get("static", {}).get("refusing", ())}


def _worse_cell(name: str, key: str, old: dict[str, Any], new: dict[str, Any]) -> Worse | None:
    was, now = cell_class(old), cell_class(new)
    reasons = []
    if OUTCOMES.index(now) > OUTCOMES.index(was):
        reasons.append(f"{was} turned {now}")
    if new["observed"]["failed"] and not old["observed"]["failed"]:
        problems = [p for f in new["observed"]["failures"][:1] for p in f["problems"]]
        reasons.append(f"{new['observed']['failed']} failing cases" + (f" ({problems[0]})" if problems else ""))
    for path in sorted(lost_fields(new) - lost_fields(old)):
        reasons.append(f"loses {path}")
    for path in sorted(refusing_fields(new) - refusing_fields(old)):
        reasons.append(f"refused because of {path}")
    return Worse(name, key, was, now, tuple(reasons)) if reasons else None
