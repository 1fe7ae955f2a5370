"""The local sweep: every cell of every chosen message, checked against the static classification.

Per message and ``from`` version the cases are run in chunks (:func:`kwire.fuzz.matrix.run_row`)
and merged; a Spark job would map the same work units over executors and merge the same way.
Then each cell is compared with :func:`kwire.fuzz.static.classify`:

* a *contradiction* is an observation the static classification says cannot happen: a lost
  field outside every losable one, or a refusal that remains once the fields static names as
  refusing are put where they cannot refuse;
* every losable or refusing field static names must be *shown* by a directed search.

Failures (codec bugs), contradictions and unshown fields all make the sweep fail.

With a time budget (``max_seconds``) the cases run in rounds of :data:`BUDGET_ROUND` per version
across every message, and no round starts after the budget is spent: the result then covers the
same first cases of every cell (``cases`` says how many, ``budget`` where the next run goes on).
"""
from __future__ import annotations

import signal
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from time import monotonic
from typing import Any

from kwire.wire.message import GeneratedStruct

from .directed import demonstrate, neutralize
from .matrix import convert, load_messages, merge, outcome_of, run_row, strip_unknown_tags
from .static import StaticCell, classify, explains
from .values import case_instance

CHUNK = 250  # cases per work unit: small enough for a lively progress bar
BUDGET_ROUND = 20  # cases per version per round under a time budget: the most it can overrun by

Progress = Callable[[int], None]  # called with the number of cases just finished
MapUnits = Callable[[Callable[[tuple], list], list], Iterable[list]]  # (run_unit, units) -> rows


def versions_of(cls: type[GeneratedStruct]) -> list[int]:
    low, high = cls.VALID_VERSIONS
    return list(range(low, high + 1))


def work_units(messages: Sequence[str], package: str, seed: int, start: int, cases: int,
               unknown_tags: bool) -> list[tuple]:
    """(message, from, seed, start, count, package, unknown_tags) ranges covering the sweep."""
    registry = load_messages(package)
    units = []
    for name in messages:
        for version in versions_of(registry[name]):
            for offset in range(0, cases, CHUNK):
                units.append((name, version, seed, start + offset, min(CHUNK, cases - offset), package, unknown_tags))
    return units


def run_unit(unit: tuple) -> list[dict[str, Any]]:
    """One work unit: a chunk of cases of one row (all ``to`` versions of one ``from``)."""
    name, version, seed, start, count, package, unknown_tags = unit
    cls = load_messages(package)[name]
    return run_row(cls, version, versions_of(cls), seed, start, count, unknown_tags=unknown_tags)


def sweep(messages: Sequence[str], *, package: str = "kwire.generated", seed: int = 0, start: int = 0,
          cases: int = 1000, unknown_tags: bool = False, jobs: int = 1,
          progress: Progress | None = None, map_units: MapUnits | None = None,
          max_seconds: float | None = None) -> dict[str, Any]:
    """Run and check every cell; the JSON-able result is what the reports are made from.

    ``map_units(run_unit, units)`` runs the work units elsewhere (``kwire.spark.fuzz`` maps them
    over Spark executors); by default they run here, in ``jobs`` processes. ``max_seconds`` is a
    time budget for running the cases (the checks after them are not counted): the result then
    covers as many rounds of cases as fitted, at least one.
    """
    registry = load_messages(package)

    def run_units(units: list) -> Iterable[list]:
        return map_units(run_unit, units) if map_units else _map(run_unit, units, jobs)

    pieces: dict[tuple[str, int, int], list[dict]] = {}
    budgeted = None if max_seconds is None else _BudgetedRounds(
        max_seconds, run_units, lambda offset, n: work_units(messages, package, seed, start + offset, n, unknown_tags),
        cases)
    rows = (budgeted if budgeted is not None
            else run_units(work_units(messages, package, seed, start, cases, unknown_tags)))
    for row in rows:
        for cell in row:
            pieces.setdefault((cell["message"], cell["from"], cell["to"]), []).append(cell)
        if progress and row:
            progress(row[0]["count"])
    done = budgeted.done if budgeted is not None else cases
    result: dict[str, Any] = {"package": package, "seed": seed, "start": start, "cases": done,
                              "unknown_tags": unknown_tags, "messages": {}}
    if max_seconds is not None:
        result["budget"] = {"max_seconds": max_seconds, "planned_cases": cases, "next_start": start + done,
                            "complete": done == cases}
    for name in messages:
        cls = registry[name]
        cells = {}
        for f in versions_of(cls):
            for t in versions_of(cls):
                observed = merge(pieces[(name, f, t)])
                static = classify(cls, f, t, unknown_tags=unknown_tags)
                cells[f"{f}->{t}"] = check_cell(cls, static, observed)
        result["messages"][name] = {
            "versions": list(cls.VALID_VERSIONS),
            "flexible_from": getattr(cls, "FLEXIBLE_VERSIONS", None),
            "cells": cells,
        }
    result["summary"] = summarize(result)
    return result


class _BudgetedRounds:
    """Rows of rounds of BUDGET_ROUND cases of every row, until the cases or the time budget run
    out; ``done`` is then how many cases every row got (the same for all)."""

    def __init__(self, max_seconds: float, run_units: Callable[[list], Iterable[list]],
                 units_from: Callable[[int, int], list], cases: int) -> None:
        self.max_seconds = max_seconds
        self.run_units = run_units
        self.units_from = units_from  # (first case offset, count) -> work units
        self.cases = cases
        self.done = 0

    def __iter__(self) -> Iterator[list]:
        deadline = monotonic() + self.max_seconds
        while self.done < self.cases:
            size = min(BUDGET_ROUND, self.cases - self.done)
            yield from self.run_units(self.units_from(self.done, size))
            self.done += size
            if monotonic() >= deadline:
                return


def _map(fn, units: list, jobs: int):
    if jobs <= 1:
        for unit in units:
            yield fn(unit)
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_leave_ctrl_c_to_the_parent)
    try:
        yield from pool.map(fn, units, chunksize=1)
    except BaseException:
        # Ctrl-C (or an error): stop the workers now, not after the units already queued for them
        workers = list((pool._processes or {}).values())  # no public way before Python 3.14
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        raise
    finally:
        pool.shutdown()


def _leave_ctrl_c_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group; the parent alone answers it (exit 130),
    and stops the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def check_cell(cls: type[GeneratedStruct], static: StaticCell, observed: dict[str, Any]) -> dict[str, Any]:
    """Observed and static side by side, with contradictions and directed demonstrations."""
    directed = {}
    for path in static.losable:
        directed[path] = _demo(cls, static, path, None)
    for path, reason in static.refusing:
        directed[path] = _demo(cls, static, path, reason)
    return {
        "outcome": outcome_of(observed),
        "observed": observed,
        "static": static.to_dict(),
        "contradictions": contradictions(cls, static, observed),
        "directed": directed,
    }


def unshown(cell: dict[str, Any]) -> list[tuple[str, str]]:
    """The directed demonstrations of ``cell`` that did not show their field: (path, why not)."""
    return [(path, demo["detail"]) for path, demo in cell["directed"].items() if not demo["shown"]]


def cell_problems(cell: dict[str, Any]) -> Iterator[tuple[str, Any, str]]:
    """What makes ``cell`` fail the sweep, in the order every report lists it: ``("failed", case
    index, its problems)``, ``("contradiction", None, text)``, ``("unshown", field path, why not)``."""
    for failure in cell["observed"]["failures"]:
        yield "failed", failure["index"], "; ".join(failure["problems"])
    for text in cell["contradictions"]:
        yield "contradiction", None, text
    for path, detail in unshown(cell):
        yield "unshown", path, detail


def _demo(cls: type[GeneratedStruct], static: StaticCell, path: str, reason: str | None) -> dict[str, Any]:
    shown = demonstrate(cls, static.from_version, static.to_version, path, reason)
    return {"shown": shown.shown, "detail": shown.detail}


def contradictions(cls: type[GeneratedStruct], static: StaticCell, observed: dict[str, Any]) -> list[str]:
    found = []
    for path in observed["lost_fields"]:
        if not any(explains(s, path) for s in static.losable):
            found.append(f"{path} was lost but static does not list it as losable")
    if observed["refused"] and not static.refusing:
        found.append(f"{observed['refused']} cases were refused but static says {static.outcome}")
    elif observed["refused"]:
        for index in observed["examples"]["refused"]:
            obj = case_instance(cls, static.from_version, observed["seed"], index)
            if not observed["unknown_tags"]:
                strip_unknown_tags(obj)
            for path, reason in static.refusing:
                neutralize(obj, path, reason, static.from_version)
            outcome, details = convert(cls, obj, static.to_version)
            if outcome == "refused":
                found.append(f"case {index} is still refused with the static refusing fields neutralized: "
                             f"{details[0]}")
    return found


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    """Counts over the whole sweep, and whether it passed."""
    failures = contradictions_n = unshown_n = cells_n = 0
    for message in result["messages"].values():
        for cell in message["cells"].values():
            cells_n += 1
            failures += cell["observed"]["failed"]
            contradictions_n += len(cell["contradictions"])
            unshown_n += len(unshown(cell))
    return {"cells": cells_n, "failed_cases": failures, "contradictions": contradictions_n,
            "unshown_fields": unshown_n, "passed": not (failures or contradictions_n or unshown_n)}


def failing_cases(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Every kept failing case with what reproduces it."""
    out = []
    for name, message in result["messages"].items():
        for key, cell in message["cells"].items():
            for failure in cell["observed"]["failures"]:
                out.append({"message": name, "cell": key, "from": cell["observed"]["from"],
                            "to": cell["observed"]["to"], "seed": result["seed"], **failure})
    return out

