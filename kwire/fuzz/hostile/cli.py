"""Command-line entry of the hostile-input run (``kwire fuzz --bytes``, or ``python -m kwire.fuzz.hostile``)."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from kwire.wire.files import ExistingFileError, atomic_write, refuse_existing

from .checks import Limits
from .inputs import reproduce
from .registry import UnknownTargetError, all_targets, select
from .report import json_report, text_report
from .runner import MEMORY_SAMPLE_EVERY, print_progress, run
from .target import Target

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def run_hostile(cases: int, seed: int, targets: list[str] | None, progress: bool, *,
                report_path: str | Path | None = None, slow_seconds: float = 1.0, hang_seconds: float = 10.0,
                memory_every: int = MEMORY_SAMPLE_EVERY, extra_targets: Sequence[Target] = (),
                force: bool = False) -> int:
    """Run ``cases`` hostile inputs over the selected targets (all when None) and print a report.

    Exit code: 0 nothing found, 1 findings, 2 a selection that names no target. With
    ``progress``, a status line goes to stderr every few seconds. ``report_path`` gets the full
    JSON report (per-target throughput and every distinct finding with its input in hex).
    ``extra_targets`` join the runtime's own (the command line adds the definition loader's). An
    existing report file is replaced only with ``force`` (refused before the run: exit 1).
    """
    try:
        chosen = select(all_targets(extra_targets), targets)
    except UnknownTargetError as exc:
        print(f"kwire fuzz --bytes: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if report_path is not None:
            refuse_existing(report_path, force=force)
    except ExistingFileError as exc:
        print(f"kwire fuzz --bytes: refused: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    result = run(chosen, cases, seed, limits=Limits(slow_seconds=slow_seconds, hang_seconds=hang_seconds),
                 memory_every=memory_every, progress=print_progress if progress else None, stall_guard=True)
    print(text_report(result))
    if report_path is not None:
        atomic_write(report_path, json.dumps(json_report(result), indent=1) + "\n", force=force)
    return EXIT_FINDINGS if result.findings else EXIT_CLEAN


def show_case(target_name: str, seed: int, case: int, extra_targets: Sequence[Target] = ()) -> int:
    """Print the input of one case in hex (to turn a finding into a unit test)."""
    try:
        (target,) = select(all_targets(extra_targets), [target_name])
    except (UnknownTargetError, ValueError):
        print(f"kwire fuzz --bytes: {target_name!r} does not name exactly one target", file=sys.stderr)
        return EXIT_USAGE
    print(reproduce(target, seed, case).hex())
    return EXIT_CLEAN


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the hostile-input run (shared by ``kwire fuzz --bytes`` and ``-m``)."""
    parser.add_argument("--cases", type=int, default=10_000, help="number of inputs (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="run seed: the same seed runs the same inputs")
    parser.add_argument("--target", action="append", dest="targets", metavar="PATTERN",
                        help="only targets matching this name pattern or family (repeatable), "
                             "e.g. 'message:Fetch*', 'records'")
    parser.add_argument("--report", dest="report_path", metavar="FILE", help="write the full JSON report here")
    parser.add_argument("--force", action="store_true", help="replace the --report file if it exists")
    parser.add_argument("--progress", action="store_true", help="status line on stderr every 10 s")
    parser.add_argument("--slow-seconds", type=float, default=1.0, help="flag a decode slower than this")
    parser.add_argument("--hang-seconds", type=float, default=10.0, help="interrupt a decode after this")
    parser.add_argument("--show-case", type=int, metavar="N",
                        help="print case N of the one --target in hex instead of running")


def run_from_arguments(args: argparse.Namespace) -> int:
    if args.show_case is not None:
        if not args.targets or len(args.targets) != 1:
            print("kwire fuzz --bytes: --show-case needs exactly one --target", file=sys.stderr)
            return EXIT_USAGE
        return show_case(args.targets[0], args.seed, args.show_case)
    return run_hostile(args.cases, args.seed, args.targets, args.progress, report_path=args.report_path,
                       slow_seconds=args.slow_seconds, hang_seconds=args.hang_seconds, force=args.force)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kwire.fuzz.hostile",
                                     description="Feed every kwire decoder random and mutated bytes.")
    add_arguments(parser)
    return run_from_arguments(parser.parse_args(argv))
