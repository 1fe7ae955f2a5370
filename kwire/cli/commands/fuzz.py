"""``kwire fuzz``: round-trip properties and cross-version matrices of generated messages.

Every case is reproducible from (seed, message, version, index); a failing case is printed with
the command that runs it alone. Exit status: 0 passed, 1 failures, contradictions or fields the
directed search could not show, 2 bad usage.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from kwire.cli import fuzz_gate
from kwire.cli.commands import add_command, missing_extra, non_negative_int, plural, positive_int
from kwire.cli.errors import fail, write_failed
from kwire.fuzz.baseline import BaselineError
from kwire.fuzz.matrix import load_messages
from kwire.fuzz.report import format_table, report_files, reproduce_command, summary_rows, write_report
from kwire.fuzz.sweep import failing_cases, sweep, versions_of
from kwire.wire.errors import KwireError
from kwire.wire.files import ExistingFileError, check_writable, refuse_existing


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "fuzz", exit_status="0 passed, 1 failures, 2 bad usage.",
        description="Check the round-trip properties of every message at every version on seeded "
                    "random cases, and write each case at every other version to see what a "
                    "conversion does: lossless, lossy (fields named) or refused.")
    p.add_argument("--messages", nargs="+", metavar="NAME", help="messages to fuzz (default: all)")
    p.add_argument("--cases", type=positive_int, default=1000, help="cases per version (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the case stream (default 0)")
    p.add_argument("--start", type=non_negative_int, default=0, help="index of the first case (default 0)")
    p.add_argument("--report", type=Path, metavar="DIR", help="write report.json, report.md and heatmaps here")
    p.add_argument("--force", action="store_true", help="replace report files that exist already")
    p.add_argument("--package", default="kwire.generated", help="generated package to fuzz (default: kwire.generated)")
    p.add_argument("--jobs", type=positive_int, default=1, help="worker processes (default 1)")
    p.add_argument("--unknown-tags", action="store_true",
                   help="keep unknown tagged fields when converting between versions")
    p.add_argument("--spark", action="store_true",
                   help="run the cases as Spark tasks (master: --master, else $SPARK_MASTER, else local[*])")
    p.add_argument("--master", metavar="URL", help="Spark master URL (implies --spark)")
    p.add_argument("--parquet", type=Path, metavar="FILE",
                   help="also write one row per cell as Parquet (with --spark and --report: DIR/results.parquet)")
    p.add_argument("--bytes", action="store_true",
                   help="instead feed every decoder hostile bytes (random and mutated; kwire.fuzz.hostile): "
                        "--cases is then the total number of inputs, --report DIR gets hostile.json")
    p.add_argument("--target", action="append", dest="targets", metavar="PATTERN",
                   help="with --bytes: only decoders whose name matches, e.g. 'message:Fetch*' or 'records'")
    p.add_argument("--corpus", type=Path, metavar="DIR",
                   help="with --bytes: real frames, batches and logs to mutate, laid out as kwire's tests/data "
                        "(default: $KWIRE_HOSTILE_CORPUS)")
    fuzz_gate.add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    problem = fuzz_gate.usage_problem(args)
    if problem:
        return fail("fuzz", problem, 2)
    if args.bytes:
        return _run_bytes(args)
    return _run_sweep(args)


def _run_sweep(args: argparse.Namespace) -> int:
    try:
        registry = load_messages(args.package)
    except KwireError as exc:  # the package or its index does not import
        return fail("fuzz", exc, 2)
    names = args.messages or sorted(registry)
    unknown = [n for n in names if n not in registry]
    if unknown:
        return fail("fuzz", f"no such message: {', '.join(unknown)}", 2)
    try:
        fuzz_gate.resume(args)
        baseline = fuzz_gate.load_baseline(args)
    except BaselineError as exc:
        return fail("fuzz", exc, 2)
    on_spark = args.spark or args.master is not None
    missing = (missing_extra("spark", "pyspark", "pyarrow") if on_spark
               else missing_extra("spark", "pyarrow") if args.parquet else None)
    if missing:
        return fail("fuzz", missing, 2)
    targets = report_files(args.report, names, pictures=not missing_extra("report", "matplotlib")) \
        if args.report else []
    if args.parquet or (on_spark and args.report):
        targets.append(args.parquet or args.report / "results.parquet")
    try:  # before the run, not after it: a refusal costs nothing and writes nothing
        for target in targets:
            refuse_existing(target, force=args.force)
        for directory in {target.parent for target in targets}:
            check_writable(directory)
    except ExistingFileError as err:
        return fail("fuzz", f"refused: {err}", 1)
    except OSError as err:
        return write_failed("fuzz", err)
    if on_spark:
        from kwire.spark.fuzz import run_spark_sweep

        result = run_spark_sweep(names, master=args.master, show_progress=not args.quiet,
                                 show_jvm_output=args.verbose, package=args.package,
                                 seed=args.seed, start=args.start, cases=args.cases, unknown_tags=args.unknown_tags,
                                 max_seconds=args.max_seconds)
    else:
        total = sum(len(versions_of(registry[n])) for n in names) * args.cases
        bar = None if args.quiet else ProgressBar(total, sys.stderr)
        result = sweep(names, package=args.package, seed=args.seed, start=args.start, cases=args.cases,
                       unknown_tags=args.unknown_tags, jobs=args.jobs, progress=bar.advance if bar else None,
                       max_seconds=args.max_seconds)
        if bar:
            bar.finish()
    _print_failures(result)
    text = sys.stderr if args.format == "junit" else sys.stdout  # with junit, stdout is the XML alone
    if not args.quiet:
        print(format_table(summary_rows(result)), file=text)
        summary = result["summary"]
        print(f"{'passed' if summary['passed'] else 'FAILED'}: {summary['cells']} cells, "
              f"{summary['failed_cases']} failing cases, {summary['contradictions']} contradictions, "
              f"{summary['unshown_fields']} unshown fields", file=text)
    if args.report:
        no_pictures = missing_extra("report", "matplotlib")
        if no_pictures:
            print(f"kwire fuzz: report without pictures: {no_pictures}", file=sys.stderr)
        try:
            written = write_report(result, args.report, pictures=not no_pictures, force=args.force)
        except OSError as err:
            return write_failed("fuzz", err)
        if not args.quiet:
            print(f"report: {', '.join(str(p) for p in written[:2])} and {plural(len(written) - 2, 'picture')}",
                  file=text)
    parquet = args.parquet or (args.report / "results.parquet" if on_spark and args.report else None)
    if parquet:
        from kwire.spark.fuzz import write_results_parquet

        try:
            write_results_parquet(result, parquet, force=args.force)
        except OSError as err:
            return write_failed("fuzz", err)
        if not args.quiet:
            print(f"results table: {parquet}", file=text)
    return fuzz_gate.finish(args, result, baseline)


def _run_bytes(args: argparse.Namespace) -> int:
    from kwire.cli.definition_target import definition_targets
    from kwire.fuzz.hostile import run_hostile
    from kwire.fuzz.hostile.corpus import CORPUS_VARIABLE

    sweep_only = [option for option, given in (("--messages", args.messages), ("--spark", args.spark),
                                               ("--master", args.master), ("--parquet", args.parquet),
                                               ("--unknown-tags", args.unknown_tags)) if given]
    if sweep_only:  # silently ignored, they would fuzz everything but what was asked
        print(f"kwire fuzz --bytes: {', '.join(sweep_only)} only applies without --bytes; choose decoders with "
              f"--target (e.g. --target 'message:Fetch*')", file=sys.stderr)
        return 2
    if args.corpus is not None:
        os.environ[CORPUS_VARIABLE] = str(args.corpus)
    report = args.report / "hostile.json" if args.report else None
    if report is not None:
        try:  # before the run, not after it
            check_writable(report.parent)
        except OSError as err:
            return write_failed("fuzz", err)
    return run_hostile(args.cases, args.seed, args.targets, not args.quiet, report_path=report,
                       extra_targets=definition_targets(), force=args.force)


def _print_failures(result: dict) -> None:
    """Failing cases go to stderr even with -q: they are the point of the run."""
    for case in failing_cases(result):
        print(f"FAIL {case['message']} v{case['from']} -> v{case['to']} case {case['index']} "
              f"(seed {case['seed']}): {'; '.join(case['problems'])}", file=sys.stderr)
        print(f"  reproduce: {reproduce_command(result, case['message'], case['index'])}", file=sys.stderr)
    for name, message in result["messages"].items():
        for key, cell in message["cells"].items():
            for text in cell["contradictions"]:
                print(f"CONTRADICTION {name} {key}: {text}", file=sys.stderr)
            for path, demo in cell["directed"].items():
                if not demo["shown"]:
                    print(f"UNSHOWN {name} {key}: {path}: {demo['detail']}", file=sys.stderr)


class ProgressBar:
    """A one-line bar on a terminal; on a pipe or file, a line every 10%."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream
        self.tty = stream.isatty()
        self.started = time.monotonic()
        self.last_tenth = -1

    def advance(self, n: int) -> None:
        self.done = min(self.total, self.done + n)
        if self.tty:
            self._draw("\r")
        elif self.done * 10 // self.total > self.last_tenth:
            self.last_tenth = self.done * 10 // self.total
            self._draw("", "\n")

    def _draw(self, prefix: str, suffix: str = "") -> None:
        filled = self.WIDTH * self.done // self.total
        elapsed = time.monotonic() - self.started
        self.stream.write(f"{prefix}fuzz [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                          f"{100 * self.done // self.total:3d}% {self.done}/{self.total} cases {elapsed:.0f}s{suffix}")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
