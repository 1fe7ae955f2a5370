"""Running one input against one target, and what counts as a finding.

A finding is any of:

* ``exception``: an exception outside the target's allowed family (kwire's errors);
* ``recursion``: a RecursionError (unbounded recursion on input);
* ``hang``: the decode was interrupted after ``hang_seconds`` (Python-level loops only: the
  interrupt is a SIGALRM, delivered between bytecodes; see :class:`StallGuard` for the rest);
* ``slow``: a decode that finished but used more than ``slow_seconds`` of CPU time (inputs
  sampled for memory excepted: tracemalloc slows them ~10x);
* ``memory``: on sampled inputs, a tracemalloc peak above the target's budget
  (1 MiB + 64 bytes per input byte, plus any decompression allowance).
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
import tracemalloc
from dataclasses import dataclass, field
from typing import Any

from .target import NotAnInput, Target

HEX_SHOWN = 2048  # input bytes shown in a finding (the full input is reproducible from its case)


class DecodeInterrupted(BaseException):
    """Raised into a decode that ran past the hang limit (a BaseException: no decoder catches it)."""


@dataclass
class Finding:
    kind: str
    target: str
    seed: int
    case: int
    detail: str
    location: str
    data: bytes = field(repr=False)
    count: int = 1  # inputs with the same key
    targets: set[str] = field(default_factory=set)  # every target where those inputs came from

    @property
    def key(self) -> tuple[str, str, str]:
        """Same kind, same exception type, same place in kwire: one bug, however many targets."""
        place = self.target if self.kind in ("slow", "memory", "hang") else self.location
        return (self.kind, self.detail.split(":", 1)[0], place)

    def describe(self) -> str:
        shown = self.data[:HEX_SHOWN].hex()
        more = f" ... ({len(self.data)} bytes in all)" if len(self.data) > HEX_SHOWN else ""
        others = sorted(self.targets - {self.target})
        also = ""
        if others:
            listed = ", ".join(others[:8]) + (" ..." if len(others) > 8 else "")
            also = f"\n  also in {len(others)} other targets: {listed}"
        return (f"[{self.kind}] {self.target} seed={self.seed} case={self.case} ({self.count} inputs alike)\n"
                f"  {self.detail}\n  at {self.location}{also}\n  input ({len(self.data)} bytes): {shown}{more}")

    def as_json(self) -> dict:
        return {"kind": self.kind, "target": self.target, "seed": self.seed, "case": self.case,
                "detail": self.detail, "location": self.location, "count": self.count,
                "targets": sorted(self.targets | {self.target}),
                "input_hex": self.data.hex()}


@dataclass(frozen=True)
class Limits:
    slow_seconds: float = 1.0
    hang_seconds: float = 10.0


@dataclass
class Outcome:
    accepted: bool  # decoded without any error
    skipped: bool  # not an input of the decoder (the harness said NotAnInput)
    seconds: float
    peak: int | None  # tracemalloc peak in bytes, when measured
    finding: Finding | None


_PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_OWN_CODE = tuple(os.path.join(_PROJECT, d) + os.sep for d in ("kwire", "generated", "generator"))
_HARNESS = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _location(exc: BaseException) -> str:
    """The innermost frame in kwire's own code (not this harness) where ``exc`` passed."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if f.filename.startswith(_OWN_CODE) and not f.filename.startswith(_HARNESS)]
    if not frames:
        return "?"
    frame = (own or frames)[-1]
    name = os.path.relpath(frame.filename, _PROJECT) if frame.filename.startswith(_PROJECT) else frame.filename
    return f"{name}:{frame.lineno} in {frame.name}"


def _on_alarm(signum: int, frame: object) -> None:
    raise DecodeInterrupted()


class HangAlarm:
    """Per-decode SIGALRM; inactive outside the main thread (signals only reach that one)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.active = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        self._previous: Any = None

    def __enter__(self) -> HangAlarm:
        if self.active:
            self._previous = signal.signal(signal.SIGALRM, _on_alarm)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)

    def arm(self) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def disarm(self) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)


def run_one(target: Target, data: bytes, seed: int, case: int, limits: Limits, alarm: HangAlarm,
            measure_memory: bool) -> Outcome:
    """Decode ``data`` with ``target`` and judge what happened."""
    finding = None
    accepted = skipped = False
    peak = None
    if measure_memory:
        tracemalloc.start()
    # The slow check counts this thread's CPU time: what the decode itself costs, whatever else
    # the machine is running (a loaded CI host stretches wall time several-fold). Hangs are caught
    # by the alarm on wall time.
    start = time.thread_time()
    alarm.arm()
    try:
        target.decode(data)
        accepted = True
    except NotAnInput:
        skipped = True
    except target.allowed:
        pass
    except DecodeInterrupted:
        finding = Finding("hang", target.name, seed, case, f"Hang: no result after {limits.hang_seconds} s",
                          "(interrupted)", data)
    except RecursionError as exc:
        finding = Finding("recursion", target.name, seed, case, f"RecursionError: {exc}", _location(exc), data)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - anything else escaping a decoder is the finding
        finding = Finding("exception", target.name, seed, case, f"{type(exc).__name__}: {exc}"[:500],
                          _location(exc), data)
    finally:
        alarm.disarm()
        seconds = time.thread_time() - start
        if measure_memory:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    if finding is None and not measure_memory and seconds > limits.slow_seconds:  # tracemalloc slows ~10x
        finding = Finding("slow", target.name, seed, case, f"Slow: {seconds:.2f} s for {len(data)} bytes",
                          "(timing)", data)
    if finding is None and peak is not None and peak > target.memory_budget(len(data)):
        finding = Finding("memory", target.name, seed, case,
                          f"Memory: peak {peak} bytes, budget {target.memory_budget(len(data))} for "
                          f"{len(data)} input bytes", "(tracemalloc)", data)
    return Outcome(accepted, skipped, seconds, peak, finding)


class StallGuard:
    """Last resort against a decode stuck where SIGALRM cannot reach (inside C code).

    A daemon thread watches the case in progress; past ``seconds`` it prints the case (target,
    seed, case number, input hex) to stderr and ends the process with exit code 3, so that a run
    left alone overnight reports the stall instead of hanging forever.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._current: tuple[float, Target, int, int, bytes] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="kwire-hostile-stall-guard", daemon=True)

    def __enter__(self) -> StallGuard:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def begin(self, target: Target, seed: int, case: int, data: bytes) -> None:
        self._current = (time.monotonic(), target, seed, case, data)

    def end(self) -> None:
        self._current = None

    def _watch(self) -> None:
        while not self._stop.wait(1.0):
            current = self._current
            if current is None or time.monotonic() - current[0] < self.seconds:
                continue
            _, target, seed, case, data = current
            finding = Finding("hang", target.name, seed, case, f"Stall: no result after {self.seconds} s "
                              "(not interruptible; process ended)", "(stall guard)", data)
            print(finding.describe(), file=sys.stderr, flush=True)
            os._exit(3)
