"""``kwire metadata``: the metadata image of a KRaft log, written back as a snapshot, and its downgrades.

- ``kwire metadata image PATH [--until OFFSET] [--json]``: replay a metadata log directory (or a
  snapshot or segment) into Kafka's image and show it;
- ``kwire metadata snapshot PATH --out FILE [--metadata-version MV] [--release R] [--unsafe]
  [--force] [--dry-run] [--json]``: write the image as a snapshot at a metadata.version, as Kafka's
  image writer would; a write that loses metadata is refused unless ``--unsafe``, one that would
  replace a file unless ``--force``;
- ``kwire metadata downgrade-matrix PATH... [--spark] [--json] [--out FILE] [--picture PNG] [--force]``: for every
  image and every metadata.version below its own, whether a downgrade is lossless, lossy or refused.

Exit codes: 0 done, 1 refused (a lossy write without --unsafe, a file that exists without
--force), 2 bad usage or unusable input (unreadable, damaged, empty).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from kwire.cli.commands import add_command, missing_extra, plural, replay_arguments
from kwire.cli.errors import fail, write_failed
from kwire.wire.errors import KwireError
from kwire.wire.files import ExistingFileError, atomic_write, refuse_existing


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "metadata",
        description="Replay a KRaft metadata log into Kafka's metadata image, write it as a snapshot at a "
                    "chosen metadata.version (KIP-778) and say what each downgrade would lose.")
    commands = p.add_subparsers(dest="metadata_command", metavar="COMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    image = add_command(
        commands, "image", summary="replay a metadata log into Kafka's image and show it",
        exit_status="0 done, 2 unreadable input or a record Kafka would refuse to replay.",
        description="Replay a metadata log directory (newest snapshot at or below --until, then the log; "
                    "metadata transactions applied only when committed), a snapshot or a segment, and print "
                    "the image: features, brokers, controllers, topics, configs, quotas, producer ids, ACLs, "
                    "SCRAM credentials, delegation tokens, ZK migration state and quorum.")
    _source_arguments(image)
    image.add_argument("--json", action="store_true", help="print the whole image as JSON")
    image.set_defaults(func=run_image)

    from kwire.cli.commands.metadata_quorum import register_quorum

    register_quorum(commands)

    from kwire.cli.commands.metadata_shell import register_shell

    register_shell(commands)

    snap = add_command(
        commands, "snapshot", summary="write the image as a snapshot at a metadata.version",
        description="Write the image as a KRaft snapshot at --metadata-version (default: its own), with the "
                    "record versions that level writes and without the records it cannot hold, as Kafka's "
                    "image writer does. A write that loses metadata is refused (exit 1) unless --unsafe; "
                    "every loss is listed in Kafka's words.",
        exit_status="0 written (or, with --dry-run, writable), 1 refused because it loses metadata or "
                    "--out exists (--force replaces it), 2 bad usage or unreadable input.")
    _source_arguments(snap)
    snap.add_argument("--out", metavar="FILE",
                      help="the snapshot file to write (a directory, or a name ending in /: written there under "
                           "Kafka's snapshot name)")
    snap.add_argument("--metadata-version", "--metadata", dest="metadata_version", metavar="MV",
                      help="the level to write at: 3.6-IV2, 3.6 (that release's newest) or 14 (default: the image's)")
    snap.add_argument("--release", metavar="R",
                      help="the Kafka release whose writer to follow, 3.3 to 4.2 (3.x as Kafka 3.9.0 writes, "
                           "4.x as Kafka 4.2.1; default: the release of the image's own metadata.version)")
    snap.add_argument("--unsafe", action="store_true", help="write even when metadata is lost")
    snap.add_argument("--force", action="store_true", help="replace the file --out names if it exists")
    snap.add_argument("--dry-run", action="store_true", help="say what would be written and lost; write nothing")
    snap.add_argument("--json", action="store_true", help="print the outcome as JSON")
    snap.set_defaults(func=run_snapshot)

    matrix = add_command(
        commands, "downgrade-matrix",
        summary="for each image, every lower metadata.version: lossless, lossy or refused",
        exit_status="0 done, 2 bad usage or an image that cannot be read (the others are still reported).",
        description="For each metadata directory or snapshot, and every metadata.version kwire knows below "
                    "its own: lossless (the controller allows the downgrade and nothing is lost), refused (the "
                    "safe-downgrade rule refuses it: metadata changed between the levels, though an unsafe "
                    "write would lose nothing), lossy (what an unsafe write would lose) or unsupported (the "
                    "writing release cannot write that level).")
    matrix.add_argument("paths", nargs="+", metavar="PATH", help="metadata log directories or snapshot files")
    replay_arguments(matrix)
    matrix.add_argument("--release", metavar="R", help="the Kafka release whose writer to follow (default: per image)")
    matrix.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    matrix.add_argument("--out", type=Path, metavar="FILE", help="write the report as JSON to FILE")
    matrix.add_argument("--picture", type=Path, metavar="PNG", help="draw the matrix as a heatmap (kwire[report])")
    matrix.add_argument("--force", action="store_true", help="replace the files --out and --picture name if they exist")
    matrix.add_argument("--spark", action="store_true",
                        help="one Spark task per image (master: --master, else $SPARK_MASTER, else local[*])")
    matrix.add_argument("--master", metavar="URL", help="Spark master URL (implies --spark)")
    matrix.set_defaults(func=run_matrix)


def _source_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH",
                   help="a __cluster_metadata-0 directory (or the data directory holding it), a snapshot or a segment")
    replay_arguments(p)


def _error(command: str, err: object) -> int:
    return fail(f"metadata {command}", err, 2)


def _load(args: argparse.Namespace):
    from kwire.features import METADATA_VERSIONS
    from kwire.metadata.loader import load_image

    known = {mv.level for mv in METADATA_VERSIONS}
    return load_image(args.path, until=args.until, use_snapshots=not args.from_log,
                      known_metadata_version=known.__contains__)


def _mv_name(level: int) -> str:
    from kwire.features import from_level

    return from_level(level).name


# ------------------------------------------------------------------------------------- image


def run_image(args: argparse.Namespace) -> int:
    from kwire.metadata.describe import image_to_json, summary_lines

    try:
        loaded = _load(args)
    except (KwireError, OSError) as err:
        return _error("image", err)
    image = loaded.image
    if args.json:
        body = image_to_json(image, metadata_version_name=_mv_name)
        body["source"] = {"path": str(loaded.source), "snapshot": str(loaded.snapshot) if loaded.snapshot else None,
                          "until": loaded.until, "records": loaded.records,
                          "openTransactionAt": loaded.open_transaction, "abortedRecords": loaded.aborted_records}
        print(json.dumps(body, indent=1))
        return 0
    if not args.quiet:
        if loaded.snapshot == loaded.source:
            start = "the snapshot"
        else:
            start = f"snapshot {loaded.snapshot.name} then the log" if loaded.snapshot else "the log from its start"
        print(f"{loaded.source}: {start}, {plural(loaded.records, 'record')} replayed")
        if loaded.open_transaction is not None:
            print(f"note: the transaction begun at offset {loaded.open_transaction} is not committed: left out")
        for line in summary_lines(image, metadata_version_name=_mv_name):
            print(f"  {line}")
        if args.verbose:
            print(json.dumps(image_to_json(image, metadata_version_name=_mv_name), indent=1))
    return 0


# ---------------------------------------------------------------------------------- snapshot


def run_snapshot(args: argparse.Namespace) -> int:
    from kwire.features import metadata_changed_between
    from kwire.metadata.snapshot import build_image_snapshot, snapshot_id_of, what_a_node_loads
    from kwire.metadata.writer import image_metadata_version, write_image

    if args.out is None and not args.dry_run:
        print("kwire metadata snapshot: --out FILE is required (or --dry-run)", file=sys.stderr)
        return 2
    try:
        loaded = _load(args)
        written = write_image(loaded.image, args.metadata_version, release=args.release)
    except (KwireError, OSError) as err:
        return _error("snapshot", err)
    current = image_metadata_version(loaded.image)
    refused = written.lossy and not args.unsafe
    target = None
    if not refused and not args.dry_run:
        target = Path(args.out)
        if args.out.endswith(("/", os.sep)) or target.is_dir():
            target = target / snapshot_id_of(loaded.image).file_name()
        try:
            atomic_write(target, build_image_snapshot(loaded.image, written).encode(), force=args.force)
        except ExistingFileError as err:
            return fail("metadata snapshot", f"refused: {err}", 1)
        except OSError as err:
            return _error("snapshot", f"{target}: {err.strerror}")
        note = what_a_node_loads(target)
        if note:
            print(f"kwire metadata snapshot: note: {note}", file=sys.stderr)
    outcome = {
        "source": str(loaded.source),
        "snapshot": str(loaded.snapshot) if loaded.snapshot else None,
        "endOffset": loaded.end_offset,
        "metadataVersion": {"image": current.name, "written": written.requested.name},
        "release": written.release.name,
        "safeDowngradeRefused": written.requested < current and metadata_changed_between(current, written.requested),
        "records": len(written.records),
        "recordTypes": dict(Counter(f"{r.name} v{r.version}" for r in written.records)),
        "losses": [{"loss": loss.what, "message": loss.sentence(written.requested), "kafkaWords": loss.kafka_words,
                    "kafkaKeeps": loss.kafka_keeps}
                   for loss in written.losses],
        "refused": refused,
        "written": str(target) if target else None,
    }
    if args.json:
        print(json.dumps(outcome, indent=1))
    else:
        _print_snapshot(outcome, args)
    return 1 if refused else 0


def _print_snapshot(outcome: dict[str, Any], args: argparse.Namespace) -> None:
    losses = outcome["losses"]
    for loss in losses:  # losses go to stderr even with -q: they are the point
        marker = ("" if loss["kafkaWords"] else " (Kafka writes it anyway, without a word)" if loss["kafkaKeeps"]
                  else " (Kafka drops this without a word)")
        verb = "lost" if outcome["written"] else "would lose"
        print(f"{verb}: {loss['message']}{marker}", file=sys.stderr)
    if outcome["refused"]:
        print(f"kwire metadata snapshot: refused: writing at {outcome['metadataVersion']['written']} loses "
              f"{plural(len(losses), 'kind')} of metadata (listed above); --unsafe writes it anyway", file=sys.stderr)
        return
    if args.quiet:
        return
    mv = outcome["metadataVersion"]
    kinds = ", ".join(f"{n} x{c}" for n, c in sorted(outcome["recordTypes"].items()))
    verb = "would write" if args.dry_run else f"wrote {outcome['written']}:"
    print(f"{verb} {plural(outcome['records'], 'record')} at metadata.version {mv['written']} "
          f"(image at {mv['image']}, end offset {outcome['endOffset']}) as Kafka {outcome['release']} writes them: "
          f"{kinds}")
    if outcome["safeDowngradeRefused"]:
        print(f"note: Kafka's controller refuses a safe downgrade from {mv['image']} to {mv['written']} "
              f"(metadata changed between them); this snapshot is what an unsafe one keeps")


# ------------------------------------------------------------------------------------ matrix


def run_matrix(args: argparse.Namespace) -> int:
    from kwire.metadata.matrix import downgrade_matrix, format_matrix

    on_spark = args.spark or args.master is not None
    missing = missing_extra("spark", "pyspark") if on_spark else None
    no_picture = missing_extra("report", "matplotlib") if args.picture else None
    if missing or no_picture:
        return fail("metadata downgrade-matrix", f"{missing or no_picture}", 2)
    absent = [p for p in args.paths if not Path(p).exists()]
    if absent:
        hint = "; --json prints the report on stdout, --out FILE writes it" if absent[0].endswith(".json") else ""
        return fail("metadata downgrade-matrix", f"{absent[0]}: no such file or directory{hint}", 2)
    try:  # before the work: a refusal writes nothing
        for target in (args.out, args.picture):
            if target is not None:
                refuse_existing(target, force=args.force)
    except ExistingFileError as err:
        return fail("metadata downgrade-matrix", f"refused: {err}", 1)
    try:
        if on_spark:
            from kwire.spark.downgrade import run_spark_matrix

            report = run_spark_matrix(args.paths, until=args.until, release=args.release, master=args.master,
                                      use_snapshots=not args.from_log,
                                      show_progress=not args.quiet, show_jvm_output=args.verbose)
        else:
            report = downgrade_matrix(args.paths, until=args.until, release=args.release,
                                      use_snapshots=not args.from_log)
    except (KwireError, OSError) as err:
        return _error("downgrade-matrix", err)
    try:
        if args.out:
            atomic_write(args.out, json.dumps(report, indent=1) + "\n", force=args.force)
        if args.picture:
            from kwire.metadata.matrix_picture import draw_matrix

            draw_matrix(report, args.picture, force=args.force)
    except OSError as err:
        return write_failed("metadata downgrade-matrix", err)
    for row in report["images"]:
        if "error" in row:
            print(f"kwire metadata downgrade-matrix: {row['error']}", file=sys.stderr)
    if args.json:
        print(json.dumps(report, indent=1))
    elif not args.quiet:
        print(format_matrix(report))
    return 2 if report["summary"]["unreadable"] else 0
