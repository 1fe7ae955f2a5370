"""``kwire decode PATH --out DIR``: decode Kafka log files on Spark into Parquet or JSON.

One row per record (see :mod:`kwire.spark.schemas`); KRaft metadata and coordinator logs also
get their decoded records. Runs on ``local[*]`` unless ``--master`` or ``$SPARK_MASTER`` says
otherwise; progress goes to stderr.

Exit codes: 0 written, 1 refused: --out exists (without ``--mode overwrite``), 2 input that does not
decode (without ``--skip-undecodable``), bad usage, a missing path, or no Spark.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from kwire.cli.commands import missing_extra, plural, positive_int

FORMATS = ("parquet", "json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "decode", help="decode Kafka log files on Spark into Parquet or JSON",
        description="Read partition log segments, KRaft metadata logs and snapshots, coordinator logs or "
                    "files of record batches (a file, or a directory walked recursively) on Spark and "
                    "write one row per record.",
        epilog="Exit status: 0 written, 1 an --out that exists (refused), 2 input that does not decode or bad usage.")
    p.add_argument("path", metavar="PATH",
                   help="a log file or a directory such as a broker's log.dirs; or a URI pyarrow.fs opens "
                        "(s3://bucket/prefix, gs://..., hdfs://...; S3 configured by the AWS_* variables)")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="output directory")
    p.add_argument("--mode", choices=("error", "overwrite"), default="error",
                   help="when --out exists: error (the default: refused, exit 1) or overwrite it (Spark's save modes)")
    p.add_argument("--force", action="store_const", const="overwrite", dest="mode", help="the same as --mode overwrite")
    p.add_argument("--format", choices=FORMATS, default="parquet", help="output format (default parquet)")
    p.add_argument("--master", help="Spark master URL (default: $SPARK_MASTER, else local[*])")
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
    missing = missing_extra("spark", "pyspark", "pyarrow")
    if missing:
        print(f"kwire decode: {missing}", file=sys.stderr)
        return 2
    from kwire.spark import storage
    from kwire.spark.logfiles import discover
    from kwire.spark.progress import JobProgress
    from kwire.spark.session import build_session
    from kwire.spark.summary import written_summary
    from kwire.wire.errors import KwireError

    try:
        if not storage.exists(args.path):
            print(f"kwire decode: {args.path}: no such file or directory", file=sys.stderr)
            return 2
        found = discover(args.path)
    except KwireError as exc:  # a URI whose file system cannot be opened or listed
        print(f"kwire decode: {exc}", file=sys.stderr)
        return 2
    if not found:  # before Spark starts: that takes seconds
        print(f"kwire decode: no Kafka log files in {args.path} (looked for *.log segments, *.checkpoint "
              f"snapshots and *.batch files)", file=sys.stderr)
        return 2
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
    try:
        frame = reader.load(args.path if storage.is_remote(args.path) else os.path.abspath(args.path))
        if args.quiet:
            frame.write.format(args.format).mode(args.mode).save(str(args.out))
        else:
            with JobProgress(spark, "decode"):
                frame.write.format(args.format).mode(args.mode).save(str(args.out))
        summary = summary_text(written_summary(spark, str(args.out), args.format, args.skip_undecodable),
                               args.skip_undecodable)
    except Exception as exc:  # Spark wraps the task's KwireError in its own exception types
        print(f"kwire decode: {args.path}: {spark_error_text(exc)}", file=sys.stderr)
        print("kwire decode: stopped there; --skip-undecodable goes on past such ranges and counts them",
              file=sys.stderr)
        return 2  # damaged input is unusable input, as in kwire metadata image
    if not args.quiet:
        print(f"{args.path} -> {args.out} ({args.format}) in {time.monotonic() - started:.1f}s: {summary}")
    return 0



def summary_text(summary, skipped: bool) -> str:
    """``2 files, 30 batches, 40 records; 0 bytes not decoded``."""
    text = (f"{plural(summary.files, 'file')}, {plural(summary.batches, 'batch', 'batches')}, "
            f"{plural(summary.records, 'record')}; {summary.skipped_bytes} bytes not decoded")
    if skipped:
        text += f", in {plural(summary.skipped_ranges, 'skipped range')} (rows with skipped_bytes set)"
    return text


_ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?(\w*Error|\w*Exception): (.+)$")


def spark_error_text(exc: BaseException) -> str:
    """The innermost ``SomeError: reason`` line of a Spark error (a Python traceback from a task
    or the driver), else the error's first line."""
    text = str(exc)
    found = [m for m in (_ERROR_LINE.match(line.strip()) for line in text.splitlines()) if m]
    kwire = [m for m in found if m.group(1) in _KWIRE_ERRORS]
    if not (kwire or found):
        return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    chosen = (kwire or found)[-1]
    return f"{chosen.group(1)}: {chosen.group(2)}"


_KWIRE_ERRORS = {
    "KwireError", "DecodeError", "CorruptRecordError", "DecompressionLimitError", "EncodeError",
    "UnsupportedVersionError", "SchemaError",
}
