"""``kwire storage format``: write ``bootstrap.checkpoint`` as ``kafka-storage format`` does.

The metadata.version (``--metadata-version``, or Kafka's name for it, ``--release-version``) and
``--feature NAME=LEVEL`` settle every feature's level by Kafka 4.2.1's rules
(:mod:`kwire.features.bootstrap`); the file holds their FeatureLevelRecords. Only the bootstrap
file is written: no ``meta.properties``, no log directories.

Exit codes: 0 written (or shown with ``--dry-run``), 1 refused by a rule (a level whose
dependencies are not met, an existing file without ``--force``), 2 bad usage (a metadata.version
kwire does not know).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from kwire.cli import storage_node
from kwire.cli.commands import add_command
from kwire.cli.errors import fail
from kwire.features import FeatureError, metadata_version
from kwire.features.bootstrap import format_bootstrap, write_bootstrap
from kwire.logs.metadata_log import BOOTSTRAP_FILE_NAME, MetadataLogDirectory
from kwire.wire.files import ExistingFileError

from . import feature_assignment

METADATA_LOG_DIRECTORY = "__cluster_metadata-0"


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "storage",
                    description="Write KRaft storage files as kafka-storage does.")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    f = add_command(
        actions, "format", summary="write bootstrap.checkpoint for a metadata.version and features",
        description="Write DIR/bootstrap.checkpoint with the FeatureLevelRecords kafka-storage format "
                    "--release-version/--feature writes (Kafka 4.2.1's rules): metadata.version, then every "
                    "other feature above level 0, each at its level named with --feature or its default "
                    "for that metadata.version.")
    f.add_argument("--metadata-version", "--release-version", "--metadata", dest="metadata_version", metavar="MV",
                   help="3.6-IV2, a release like 3.9 (its newest level), or a level like 21 "
                        "(default: the newest production level)")
    f.add_argument("--feature", action="append", type=feature_assignment, default=[], metavar="NAME=LEVEL",
                   help="a feature's level (repeatable); level 0 leaves it off")
    f.add_argument("--out", required=True, type=Path, metavar="DIR",
                   help="where bootstrap.checkpoint goes: the metadata log directory (metadata.log.dir, the one "
                        "holding __cluster_metadata-0), created if missing")
    f.add_argument("--timestamp", type=int, metavar="MS",
                   help="stamp every batch with this time (milliseconds since 1970) instead of the clock")
    f.add_argument("--force", action="store_true", help="replace an existing bootstrap.checkpoint")
    f.add_argument("--add-scram", "-S", action="append", default=[], metavar="MECHANISM=[name=N,password=P]",
                   help="a SCRAM credential for the bootstrap records (repeatable), as kafka-storage takes it: "
                        "SCRAM-SHA-256 or SCRAM-SHA-512, then name and password, or salt (base64) with "
                        "saltedpassword; iterations 4096 to 16384 (default 4096)")
    f.add_argument("--ignore-formatted", "-g", action="store_true",
                   help="a directory that holds meta.properties is left as it is, and that is no error")
    f.add_argument("--dry-run", action="store_true", help="show what would be written, write nothing")
    f.add_argument("--json", action="store_true", help="print the result as JSON")
    storage_node.add_node_arguments(f)
    f.set_defaults(func=run_format)

    from kwire.cli.commands.storage_info import register_info

    register_info(actions)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_format(args: argparse.Namespace) -> int:
    if (args.out / "meta.properties").exists() and args.ignore_formatted and not args.force:
        # Formatter.doFormat: formatted directories are passed over; with none left, this line
        print("All of the log directories are already formatted.")
        return 0
    if storage_node.wants_node_format(args):
        return storage_node.run_format_node(args)
    timestamp = args.timestamp if args.timestamp is not None else int(time.time() * 1000)
    if args.metadata_version is not None:
        try:
            metadata_version(args.metadata_version)
        except FeatureError as err:  # a level nobody defined is unusable input, not a refusal
            return fail("storage format", err, 2)
    try:
        levels, snapshot = format_bootstrap(args.metadata_version, dict(args.feature), timestamp=timestamp)
        if args.add_scram:  # the SCRAM records follow the feature levels (Formatter.calculateBootstrapMetadata)
            from kwire.features.bootstrap import bootstrap_records, bootstrap_snapshot
            from kwire.features.scram import check_scram_supported, scram_records

            check_scram_supported(levels["metadata.version"])
            snapshot = bootstrap_snapshot([*bootstrap_records(levels), *scram_records(args.add_scram)],
                                          timestamp=timestamp)
    except FeatureError as err:
        return fail("storage format", err, 1)
    target = args.out / BOOTSTRAP_FILE_NAME
    if not args.dry_run:
        try:
            write_bootstrap(args.out, snapshot, force=args.force)
        except ExistingFileError as err:
            return fail("storage format", f"refused: {err}", 1)
        except OSError as err:
            return fail("storage format", f"cannot write {target}: {err.strerror or err}", 2)
    if not args.quiet:  # after a refusal, which writes nothing, there is nothing to warn about
        for warning in metadata_log_warnings(args.out):
            print(f"kwire storage format: warning: {warning}", file=sys.stderr)
    records = [record.to_dict() for record in snapshot.records]
    if args.json:
        print(json.dumps({"path": str(target), "written": not args.dry_run, "features": levels,
                          "records": records}, indent=2))
    elif not args.quiet:
        verb = "Would write" if args.dry_run else "Wrote"
        print(f"{verb} {target} with metadata.version {levels['metadata.version']} "
              f"({_mv_name(levels['metadata.version'])}):")
        for record in records:
            if "featureLevel" in record:
                print(f"  FeatureLevelRecord {record['name']}={record['featureLevel']}")
            else:  # --add-scram's: the user and mechanism, not the keys
                print(f"  UserScramCredentialRecord {record['name']} (mechanism {record['mechanism']}, "
                      f"{record['iterations']} iterations)")
    return 0


def _mv_name(level: int) -> str:
    from kwire.features import from_level

    return from_level(level).name


def metadata_log_warnings(out: Path) -> list[str]:
    """Why a bootstrap.checkpoint written into ``out`` may change nothing: the controller applies it
    only to an empty metadata log (Kafka's ActivationRecordsGenerator: recordsForEmptyLog), and
    reads it from the metadata.log.dir, the parent of ``__cluster_metadata-0``."""
    warnings = []
    for log_dir in (out / METADATA_LOG_DIRECTORY, out):
        if not log_dir.is_dir():
            continue
        found = MetadataLogDirectory.open(log_dir)
        used = [p.name for p in found.segments if p.stat().st_size > 0] + [p.name for _, p in found.snapshots]
        if used:
            warnings.append(f"the metadata log {log_dir} already holds records ({', '.join(used[:3])}"
                            f"{', ...' if len(used) > 3 else ''}): a controller applies bootstrap.checkpoint only "
                            f"to an empty metadata log, so this one changes nothing there")
    if out.name == METADATA_LOG_DIRECTORY:
        warnings.append(f"--out is a metadata log directory: Kafka reads bootstrap.checkpoint from the directory "
                        f"holding {METADATA_LOG_DIRECTORY} (metadata.log.dir), {out.parent}")
    return warnings
