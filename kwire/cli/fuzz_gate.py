"""``kwire fuzz`` as a CI gate: ``--baseline``/``--update-baseline``, ``--format junit``, ``--max-seconds``.

Kept apart from ``fuzz.py`` (which runs the sweep): these options only decide what a finished
sweep is compared with, how it is printed, and how long the cases may run.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kwire.cli.errors import fail
from kwire.fuzz import baseline as baselines
from kwire.fuzz.junit import junit_report


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--baseline", type=Path, metavar="FILE",
                   help="a committed report.json: exit 1 on every cell worse than in it (lossless turned "
                        "lossy or refused, a new failure, a newly lost field) and print exactly those")
    p.add_argument("--update-baseline", action="store_true",
                   help="with --baseline: rewrite FILE with this run's report instead of comparing")
    p.add_argument("--format", choices=("text", "junit"), default="text",
                   help="text (default) or junit: JUnit XML on stdout, one test case per message and version")
    p.add_argument("--max-seconds", type=_positive_seconds, metavar="N",
                   help="time budget for the cases: stop after the round of cases running at N seconds, "
                        "say how far it got and the --start that goes on from there")
    p.add_argument("--resume", type=Path, metavar="REPORT",
                   help="go on where the run that wrote REPORT (its report.json) stopped: its --seed, and "
                        "--start at the first case it did not run")


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def usage_problem(args: argparse.Namespace) -> str | None:
    """Why these options cannot go together, if they cannot."""
    if args.update_baseline and args.baseline is None:
        return "--update-baseline needs --baseline FILE (the file to rewrite)"
    if args.bytes and (args.baseline or args.format != "text" or args.max_seconds):
        return "--baseline, --format junit and --max-seconds apply to the cross-version sweep, not to --bytes"
    return None


def resume(args: argparse.Namespace) -> None:
    """Take --seed and --start from the report named by --resume (BaselineError when it cannot be)."""
    if args.resume is None:
        return
    if args.seed != 0 or args.start != 0:
        raise baselines.BaselineError("--resume takes --seed and --start from the report; give neither")
    report = baselines.load(args.resume)
    baselines.check_settings(report, args.unknown_tags, args.resume)
    if not all(isinstance(report.get(key), int) for key in ("seed", "start", "cases")):
        raise baselines.BaselineError(f"{args.resume}: no seed, start and cases to go on from")
    args.seed, args.start = report["seed"], report["start"] + report["cases"]
    if not args.quiet:
        print(f"kwire fuzz: going on from {args.resume}: seed {args.seed}, cases from {args.start}", file=sys.stderr)


def load_baseline(args: argparse.Namespace) -> dict[str, Any] | None:
    """The baseline to compare with (read before the sweep, so a bad one fails in a second, not after it)."""
    if args.baseline is None or args.update_baseline:
        return None
    baseline = baselines.load(args.baseline)
    baselines.check_settings(baseline, args.unknown_tags, args.baseline)
    return baseline


def finish(args: argparse.Namespace, result: dict[str, Any], baseline: dict[str, Any] | None) -> int:
    """Report the budget, compare with or rewrite the baseline, print JUnit; the exit status."""
    budget = result.get("budget")
    if budget and not args.quiet:
        print(budget_line(result), file=sys.stderr)
    worse: list[baselines.Worse] = []
    if baseline is not None:
        comparison = baselines.compare(baseline, result, every_message=not args.messages)
        worse = comparison.worse
        out = sys.stderr if args.format == "junit" else sys.stdout
        for found in worse:
            print(found, file=out)  # the findings: printed even with -q
        if not args.quiet:
            print(f"baseline {args.baseline}: {comparison.compared} cells compared, {len(worse)} worse"
                  + (f", {comparison.better} better (--update-baseline records them)" if comparison.better else ""),
                  file=out)
    if args.update_baseline:
        try:
            path = baselines.save(result, args.baseline)
        except OSError as exc:
            return fail("fuzz", f"cannot write the baseline {args.baseline}: {exc.strerror or exc}", 2)
        if not args.quiet:
            print(f"baseline written: {path} ({result['summary']['cells']} cells)", file=sys.stderr)
    if args.format == "junit":
        sys.stdout.write(junit_report(result, worse))
    return 1 if worse or not result["summary"]["passed"] else 0


def budget_line(result: dict[str, Any]) -> str:
    budget = result["budget"]
    first, done = result["start"], result["cases"]
    ran = f"cases {first}..{first + done - 1} of every version (seed {result['seed']})"
    if budget["complete"]:
        return f"time budget of {budget['max_seconds']:g} s: all {ran} ran"
    return (f"time budget of {budget['max_seconds']:g} s spent after {ran}, {budget['planned_cases'] - done} "
            f"of the {budget['planned_cases']} asked for not run; the next run goes on from there with "
            f"--seed {result['seed']} --start {budget['next_start']}")
