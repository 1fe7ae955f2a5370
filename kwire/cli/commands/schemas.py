"""``kwire schemas --out DIR``: Spark and Arrow schemas of every generated message version, as files.

For each message, ``DIR/<Message>/v<N>.spark.json`` (Spark's JSON schema form, read back with
``StructType.fromJson(json.load(f))``) and ``v<N>.arrow`` (an Arrow IPC schema message, read back
with ``pyarrow.ipc.read_schema``), the same two for ``all`` (the union over all versions, the
layout of the data source's typed ``record`` column), and ``_records.spark.json`` /
``_records.arrow`` for the data source's rows. The layouts are those of ``kwire.arrow.schemas``.

Exit codes: 0 written, 2 bad usage (unknown package or message).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("schemas", help="write Spark and Arrow schemas of every message version",
                       description="Write the Spark (JSON) and Arrow (IPC) schema of every version of every "
                                   "generated message, and of the kwire data source's rows.")
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="directory to write into")
    p.add_argument("--package", default="kwire.generated", help="generated package (default: kwire.generated)")
    p.add_argument("--messages", nargs="+", metavar="NAME", help="only these messages (default: all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from kwire.arrow import schemas
        from kwire.spark.schemas import to_spark
    except ImportError as exc:
        print(f"kwire schemas: Spark support is not installed ({exc}); install kwire[spark]", file=sys.stderr)
        return 2
    try:
        registry = importlib.import_module(args.package).MESSAGES
    except (ImportError, AttributeError) as exc:
        print(f"kwire schemas: cannot load package {args.package!r}: {exc}", file=sys.stderr)
        return 2
    names = args.messages or sorted(registry)
    unknown = [name for name in names if name not in registry]
    if unknown:
        print(f"kwire schemas: no such message: {', '.join(unknown)}", file=sys.stderr)
        return 2
    written = 0
    for name in names:
        cls = registry[name]
        folder = args.out / name
        folder.mkdir(parents=True, exist_ok=True)
        for version in [*schemas.versions_of(cls), None]:
            stem = "all" if version is None else f"v{version}"
            written += _write(folder / stem, schemas.arrow_schema(cls, version), to_spark)
    written += _write(args.out / "_records", schemas.record_schema(), to_spark)
    if not args.quiet:
        print(f"{written} schemas of {len(names)} messages written to {args.out}")
    return 0


def _write(stem: Path, arrow_schema, to_spark) -> int:
    spark = to_spark(arrow_schema)
    stem.with_name(stem.name + ".spark.json").write_text(json.dumps(spark.jsonValue(), indent=1) + "\n")
    stem.with_name(stem.name + ".arrow").write_bytes(arrow_schema.serialize().to_pybytes())
    return 1
