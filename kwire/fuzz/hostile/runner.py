"""The hostile-input run: cases spread over targets by weight, each checked, stats kept.

Case ``i`` of a run goes to the target at ``schedule[i % len(schedule)]``, where the schedule
lists each target ``weight`` times, interleaved; each target draws its inputs from its own
deterministic :class:`~kwire.fuzz.hostile.inputs.InputStream`. So the same (cases, seed,
selection) always runs the same inputs, whatever the machine.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

from .checks import Finding, HangAlarm, Limits, Outcome, StallGuard, run_one
from .inputs import InputStream
from .target import Target

MEMORY_SAMPLE_EVERY = 32  # tracemalloc on about one input in this many (it slows a decode ~10x)
PROGRESS_SECONDS = 10.0
STALL_SECONDS_FACTOR = 6  # the stall guard ends the process at this many hang limits
DEFAULT_LIMITS = Limits()  # frozen, so one shared default is safe


@dataclass
class TargetStats:
    name: str
    cases: int = 0
    accepted: int = 0
    skipped: int = 0  # not inputs of the decoder (see NotAnInput)
    timed: int = 0  # cases whose decode time counts (not slowed down by tracemalloc)
    seconds: float = 0.0  # time inside decode, over the timed cases
    memory_samples: int = 0
    worst_memory_ratio: float = 0.0  # highest peak / budget among the samples
    findings: int = 0

    @property
    def rate(self) -> float:
        return self.timed / self.seconds if self.seconds else 0.0


@dataclass
class RunResult:
    seed: int
    cases: int = 0
    wall_seconds: float = 0.0
    stats: dict[str, TargetStats] = field(default_factory=dict)
    findings: dict[tuple, Finding] = field(default_factory=dict)  # first finding per kind and place
    interrupted: bool = False

    @property
    def finding_count(self) -> int:
        return sum(f.count for f in self.findings.values())

    def add(self, finding: Finding) -> None:
        known = self.findings.get(finding.key)
        if known is None:
            self.findings[finding.key] = known = finding
        else:
            known.count += 1
        known.targets.add(finding.target)


def schedule(targets: list[Target]) -> list[Target]:
    """Each target ``weight`` times, spread out (round-robin over the remaining weights)."""
    remaining = {t.name: t.weight for t in targets}
    order: list[Target] = []
    while any(remaining.values()):
        for t in targets:
            if remaining[t.name]:
                order.append(t)
                remaining[t.name] -= 1
    return order


def warm_up(targets: list[Target], alarm: HangAlarm) -> None:
    """Decode one seed per target before measuring, so that lazy imports and caches filled on
    first use are not charged to the first (memory-sampled) input."""
    for target in targets:
        for data in target.seeds[:1]:
            alarm.arm()
            try:
                target.decode(data)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # noqa: BLE001 - judged later, when the seed comes up as a case
                pass
            finally:
                alarm.disarm()


def _sampled(case: int, every: int) -> bool:
    """Whether case ``case`` of a target is measured for memory: a fixed, well-spread subset."""
    return every > 0 and (case * 0x9E3779B1 >> 7) % every == 0


def run(targets: list[Target], cases: int, seed: int = 0, *, limits: Limits = DEFAULT_LIMITS,
        memory_every: int = MEMORY_SAMPLE_EVERY, progress: Callable[[RunResult], None] | None = None,
        progress_seconds: float = PROGRESS_SECONDS, stall_guard: bool = False) -> RunResult:
    """Run ``cases`` inputs over ``targets``; never raises for what a decoder does."""
    result = RunResult(seed=seed, stats={t.name: TargetStats(t.name) for t in targets})
    if not targets or cases <= 0:
        return result
    order = schedule(targets)
    streams = {t.name: InputStream(t, seed) for t in targets}
    guard = StallGuard(limits.hang_seconds * STALL_SECONDS_FACTOR) if stall_guard else None
    started = last_report = time.perf_counter()
    try:
        with HangAlarm(limits.hang_seconds) as alarm, guard or nullcontext():
            warm_up(targets, alarm)
            started = last_report = time.perf_counter()
            for i in range(cases):
                target = order[i % len(order)]
                case, data = streams[target.name].next()
                measure = _sampled(case, memory_every)
                if guard is not None:
                    guard.begin(target, seed, case, data)
                outcome = run_one(target, data, seed, case, limits, alarm, measure)
                if guard is not None:
                    guard.end()
                _count(result.stats[target.name], outcome, measure, target.memory_budget(len(data)))
                if outcome.finding is not None:
                    result.add(outcome.finding)
                result.cases += 1
                if progress is not None and time.perf_counter() - last_report >= progress_seconds:
                    last_report = time.perf_counter()
                    result.wall_seconds = last_report - started
                    progress(result)
    except KeyboardInterrupt:
        result.interrupted = True
    finally:
        result.wall_seconds = time.perf_counter() - started
    return result


def _count(stats: TargetStats, outcome: Outcome, measured: bool, budget: int) -> None:
    stats.cases += 1
    stats.accepted += outcome.accepted
    stats.skipped += outcome.skipped
    stats.findings += outcome.finding is not None
    if measured:
        stats.memory_samples += 1
        stats.worst_memory_ratio = max(stats.worst_memory_ratio, (outcome.peak or 0) / budget)
    else:  # tracemalloc's slowdown would distort the throughput
        stats.timed += 1
        stats.seconds += outcome.seconds


def print_progress(result: RunResult) -> None:
    rate = result.cases / result.wall_seconds if result.wall_seconds else 0.0
    print(f"hostile: {result.cases} inputs, {result.wall_seconds:.0f} s, {rate:.0f} inputs/s, "
          f"{result.finding_count} findings ({len(result.findings)} distinct)", file=sys.stderr, flush=True)
