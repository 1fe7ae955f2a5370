"""``kwire decode PATH --out DIR``: decode Kafka log files into Parquet or JSON.

One row per record (see :mod:`kwire.arrow.schemas`); KRaft metadata and coordinator logs also
get their decoded records. Local inputs are decoded here, a process per core
(:mod:`kwire.arrow.decode_files`, PyArrow only); Spark runs with ``--spark``, ``--master``,
``$SPARK_MASTER``, or for object storage (``s3://...``). Progress goes to stderr.

Exit codes: 0 written, every batch whole; 1 refused: --out exists (without ``--mode overwrite`` or
``--force``), or written with ``--skip-undecodable`` past damage (skipped ranges, batches failing
their CRC: never called clean); 2 input that is damaged, foreign or empty (without
``--skip-undecodable``; worded as every command words it, :mod:`kwire.logs.damage`), bad usage, a
missing path, or a missing extra.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from kwire.cli.commands import add_command, missing_extra, plural, positive_int
from kwire.cli.errors import fail

FORMATS = ("parquet", "json")


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "decode", raw=True,
        exit_status="0 written, 1 an --out that exists (refused), 2 input that does not decode or bad usage.",
        description="Read partition log segments, KRaft metadata logs and snapshots, coordinator logs or\n"
                    "files of record batches (a file, or a directory walked recursively) and write one\n"
                    "row per record. Local inputs are decoded in this process and one worker process per\n"
                    "core; Spark runs with --spark, --master or $SPARK_MASTER, and for object storage.")
    p.add_argument("path", metavar="PATH",
                   help="a log file or a directory such as a broker's log.dirs; or a URI pyarrow.fs opens "
                        "(s3://bucket/prefix, gs://..., hdfs://...; S3 configured by the AWS_* variables)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="output directory")
    p.add_argument("--mode", choices=("error", "overwrite"), default="error",
                   help="when --out exists: error (the default: refused, exit 1) or overwrite it (Spark's save modes)")
    p.add_argument("--force", action="store_const", const="overwrite", dest="mode", help="the same as --mode overwrite")
    p.add_argument("--format", choices=FORMATS, default="parquet", help="output format (default parquet)")
    p.add_argument("--master", metavar="URL",
                   help="Spark master URL (implies --spark; default: $SPARK_MASTER, else local[*])")
    p.add_argument("--spark", action="store_true",
                   help="decode on Spark (local[*] unless --master or $SPARK_MASTER) instead of in this process")
    p.add_argument("--jobs", type=positive_int, metavar="N",
                   help="worker processes without Spark (default: one per core; small inputs use none)")
    p.add_argument("--record-type", metavar="NAME",
                   help="keep only records of this message (e.g. PartitionRecord) as a typed column")
    p.add_argument("--decode-records", choices=("auto", "true", "false"), default="auto",
                   help="add record_type/record_version/record_json (default: for metadata and coordinator logs)")
    p.add_argument("--split-mb", type=positive_int, metavar="N", help="most megabytes one task reads (default 32)")
    p.add_argument("--skip-undecodable", action="store_true",
                   help="go on past a damaged batch or a truncated tail: a row with skipped_position and "
                        "skipped_bytes names each range not decoded (default: fail, naming file and position)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.out.exists() and args.mode == "error":
        print(f"kwire decode: refused: {args.out} already exists (use --mode overwrite or --force to replace it)",
              file=sys.stderr)
        return 1
    on_spark = uses_spark(args)
    missing = missing_extra("spark", "pyspark", "pyarrow") if on_spark else missing_extra("arrow", "pyarrow")
    if missing:
        return fail("decode", missing, 2)
    from kwire.arrow import storage
    from kwire.arrow.logfiles import discover, refuse_empty
    from kwire.wire.errors import KwireError

    try:
        if not storage.exists(args.path):
            return fail("decode", f"{args.path}: no such file or directory", 2)
        found = discover(args.path)
        if found:  # an empty file named, an empty snapshot: the verdict every command gives it
            refuse_empty(found, args.path, skip_undecodable=args.skip_undecodable)
    except KwireError as exc:  # a URI whose file system cannot be opened or listed; nothing to read
        return fail("decode", exc, 2)
    if not found:  # before Spark starts: that takes seconds
        print(f"kwire decode: no Kafka log files in {args.path} (looked for *.log segments, *.checkpoint "
              f"snapshots and *.batch files)", file=sys.stderr)
        return 2
    if not on_spark:
        return _decode_here(args, found)  # listed once: the same files are decoded
    from kwire.spark.jvm_output import spark_error_text
    from kwire.spark.progress import JobProgress
    from kwire.spark.session import build_session
    from kwire.spark.summary import written_summary

    started = time.monotonic()
    spark = build_session(args.master, app_name="kwire decode", show_jvm_output=args.verbose)
    reader = spark.read.format("kwire").option("decodeRecords", args.decode_records)
    if args.record_type:
        reader = reader.option("recordType", args.record_type)
    if args.split_mb:
        reader = reader.option("maxSplitBytes", args.split_mb * 1024 * 1024)
    reader = reader.option("minPartitions", spark.sparkContext.defaultParallelism)
    if args.skip_undecodable:
        reader = reader.option("skipUndecodable", "true")
    else:  # a batch whose CRC fails is the file's verdict, as in every command (kwire.logs.damage)
        reader = reader.option("verifyCrc", "true")
    try:
        frame = reader.load(args.path if storage.is_remote(args.path) else os.path.abspath(args.path))
        if args.quiet:
            frame.write.format(args.format).mode(args.mode).save(str(args.out))
        else:
            with JobProgress(spark, "decode"):
                frame.write.format(args.format).mode(args.mode).save(str(args.out))
        written = written_summary(spark, str(args.out), args.format, args.skip_undecodable)
        summary = summary_text(written, args.skip_undecodable)
    except Exception as exc:  # Spark wraps the task's KwireError in its own exception types
        print(f"kwire decode: {args.path}: {spark_error_text(exc)}", file=sys.stderr)
        print("kwire decode: stopped there; --skip-undecodable goes on past such ranges and counts them",
              file=sys.stderr)
        return 2  # damaged input is unusable input, as in kwire metadata image
    if not args.quiet:
        print(f"{args.path} -> {args.out} ({args.format}) in {time.monotonic() - started:.1f}s: {summary}")
    return 1 if written.damaged else 0


def uses_spark(args: argparse.Namespace) -> bool:
    """Spark when asked (--spark, --master, $SPARK_MASTER) and for object storage, whose ranged
    reads a cluster spreads over many machines; else this process and its workers."""
    from kwire.arrow.storage import is_remote

    return bool(args.spark or args.master or os.environ.get("SPARK_MASTER") or is_remote(args.path))


def _decode_here(args: argparse.Namespace, files: list) -> int:
    from kwire.arrow.decode_files import SplitFailed, decode_to_directory
    from kwire.arrow.storage import is_remote
    from kwire.logs.damage import DamagedFileError
    from kwire.wire.errors import DecodeError, KwireError
    from kwire.wire.files import ExistingFileError

    options: dict[str, object] = {"decode_records": args.decode_records, "skip_undecodable": args.skip_undecodable,
                                  "verify_crc": not args.skip_undecodable}  # a CRC that fails: the file's verdict
    if args.record_type:
        options["record_type"] = args.record_type
    if args.split_mb:
        options["max_split_bytes"] = args.split_mb * 1024 * 1024
    started = time.monotonic()
    progress = None if args.quiet else _progress_line(sys.stderr)
    try:
        summary = decode_to_directory(args.path, args.out, args.format, overwrite=args.mode == "overwrite",
                                      options=options, jobs=args.jobs, progress=progress, files=files)
    except ExistingFileError as exc:  # created by someone else since the check above
        return fail("decode", f"refused: {exc}", 1)
    except (SplitFailed, DecodeError) as exc:
        if isinstance(exc, DamagedFileError) or (isinstance(exc, SplitFailed) and exc.kind == "DamagedFileError"):
            text = exc.message if isinstance(exc, SplitFailed) else str(exc)  # FILE: reason (byte offset P)
            if not is_remote(args.path):  # the file as the user named it, as every other command names it
                text = text.replace(os.path.abspath(args.path), str(args.path).rstrip(os.sep) or os.sep, 1)
        else:
            text = (f"{args.path}: {exc}" if isinstance(exc, SplitFailed)
                    else f"{args.path}: {type(exc).__name__}: {exc}")
        print(f"kwire decode: {text}", file=sys.stderr)
        if not args.skip_undecodable:
            print("kwire decode: stopped there; --skip-undecodable goes on past such ranges and counts them",
                  file=sys.stderr)
        return 2  # damaged input is unusable input, as on Spark and in kwire metadata image
    except KwireError as exc:  # options that do not make sense (an unknown --record-type)
        return fail("decode", exc, 2)
    except OSError as exc:
        return fail("decode", exc, 2)
    if not args.quiet:
        print(f"{args.path} -> {args.out} ({args.format}) in {time.monotonic() - started:.1f}s: "
              f"{summary_text(summary, args.skip_undecodable)}")
    return 1 if summary.damaged else 0  # read past damage, as asked: a finding, never clean


def _progress_line(stream):
    """``decode: 3/14 splits``: redrawn on a terminal; on a pipe or file only the last line, and
    nothing for a single split."""
    def report(done: int, total: int) -> None:
        if stream.isatty():
            print(f"\rdecode: {done}/{total} splits", end="\n" if done == total else "", file=stream, flush=True)
        elif done == total and total > 1:
            print(f"decode: {done}/{total} splits", file=stream)
    return report


def summary_text(summary, skipped: bool) -> str:
    """``2 files, 30 batches, 40 records; 0 bytes not decoded``."""
    text = (f"{plural(summary.files, 'file')}, {plural(summary.batches, 'batch', 'batches')}, "
            f"{plural(summary.records, 'record')}; {summary.skipped_bytes} bytes not decoded")
    if skipped:
        text += f", in {plural(summary.skipped_ranges, 'skipped range')} (rows with skipped_bytes set)"
    crc_failures = getattr(summary, "crc_failures", 0)
    if crc_failures:
        text += f"; {plural(crc_failures, 'batch', 'batches')} failing its CRC (rows with crc_valid false)"
    return text

