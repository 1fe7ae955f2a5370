"""``kwire schemas --out DIR``: Spark and Arrow schemas of every generated message version, as files.

For each message, ``DIR/<Message>/v<N>.spark.json`` (Spark's JSON schema form, read back with
``StructType.fromJson(json.load(f))``) and ``v<N>.arrow`` (an Arrow IPC schema message, read back
with ``pyarrow.ipc.read_schema``), the same two for ``all`` (the union over all versions, the
layout of the data source's typed ``record`` column), and ``_records.spark.json`` /
``_records.arrow`` for the data source's rows. The layouts are those of ``kwire.arrow.schemas``.

Exit codes: 0 written, 1 refused (a schema file exists and no ``--force``), 2 bad usage (unknown
package or message).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from kwire.cli.commands import add_command
from kwire.cli.errors import fail, write_failed
from kwire.wire.errors import KwireError
from kwire.wire.files import ExistingFileError, atomic_write, refuse_existing
from kwire.wire.index import load


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "schemas",
                    description="Write the Spark (JSON) and Arrow (IPC) schema of every version of every "
                                   "generated message, and of the kwire data source's rows.")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="directory to write into")
    p.add_argument("--package", default="kwire.generated", help="generated package (default: kwire.generated)")
    p.add_argument("--messages", nargs="+", metavar="NAME", help="only these messages (default: all)")
    p.add_argument("--force", action="store_true", help="replace schema files that exist already")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from kwire.arrow import schemas
        from kwire.spark.schemas import to_spark
    except ImportError as exc:
        return fail("schemas", f"Spark support is not installed ({exc}); install kwire[spark]", 2)
    try:
        registry = load(args.package).messages
    except KwireError as exc:
        return fail("schemas", exc, 2)
    names = args.messages or sorted(registry)
    unknown = [name for name in names if name not in registry]
    if unknown:
        return fail("schemas", f"no such message: {', '.join(unknown)}", 2)
    files: dict[Path, str | bytes] = {}
    for name in names:
        cls = registry[name]
        for version in [*schemas.versions_of(cls), None]:
            stem = "all" if version is None else f"v{version}"
            files.update(_files(args.out / name / stem, schemas.arrow_schema(cls, version), to_spark))
    files.update(_files(args.out / "_records", schemas.record_schema(), to_spark))
    try:  # every target checked before any is written: a refusal writes nothing
        for path in files:
            refuse_existing(path, force=args.force)
    except ExistingFileError as err:
        return fail("schemas", f"refused: {err}", 1)
    try:
        for path, content in files.items():
            atomic_write(path, content, force=args.force)
    except OSError as err:
        return write_failed("schemas", err)
    if not args.quiet:
        print(f"{len(files) // 2} schemas of {len(names)} messages written to {args.out}")
    return 0


def _files(stem: Path, arrow_schema, to_spark) -> dict[Path, str | bytes]:
    """The Spark JSON and Arrow IPC files of one schema."""
    spark = to_spark(arrow_schema)
    return {stem.with_name(stem.name + ".spark.json"): json.dumps(spark.jsonValue(), indent=1) + "\n",
            stem.with_name(stem.name + ".arrow"): arrow_schema.serialize().to_pybytes()}
