"""``kwire merge-versions NEWER OLDER --out FILE``: one definition for every version of a message.

NEWER's definition with the versions it no longer has restored from OLDER's (an older release's),
proven before anything is written: every version of the result lays out its bytes as the release
it came from did (:mod:`kwire.generator.evolution.history_merge`). NEWER and OLDER are each a definition
file or ``git:REV:PATH`` (the repository around the current directory, or ``$GIT_DIR``), so the
merge is reproducible from Kafka's release tags. Fields only OLDER has (removed together with the
old versions) come back at those versions alone; the output names each.

Exit codes: 0 merged, proven and written; 1 refused (the proof failed, or a field the merge cannot
restore, such as a tagged one; each named with its version); 2 unreadable input or bad usage.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kwire.cli.commands import add_command
from kwire.cli.errors import fail
from kwire.generator.definitions import jsonc
from kwire.generator.definitions.errors import DefinitionError, Problem
from kwire.generator.definitions.loader import load_text
from kwire.generator.evolution.history_merge import fields_only_older, merge_and_prove
from kwire.wire.errors import KwireError
from kwire.wire.files import ExistingFileError, atomic_write, refuse_existing

from .check_compat import GIT_PREFIX, blob_text


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "merge-versions", raw=True,
                    description="Merge NEWER's definition with OLDER's (an older release's): the versions "
                                   "NEWER removed come back, and each version of the result is proven to lay "
                                   "out the bytes the release it came from did.",
                    notes="NEWER and OLDER: a definition file, or git:REV:PATH.",
                    exit_status="0 merged and written, 1 refused, 2 unreadable input.")
    p.add_argument("newer", metavar="NEWER", help="the newer definition (its names and newest versions are kept)")
    p.add_argument("older", metavar="OLDER", help="the older release's definition of the same message")
    p.add_argument("--out", metavar="FILE", required=True, help="where to write the merged definition")
    p.add_argument("--force", action="store_true", help="replace an existing FILE")
    p.add_argument("--json", action="store_true", help="print what was done (or refused) as JSON")
    p.set_defaults(func=run)


def read_text(spec: str) -> str:
    if spec.startswith(GIT_PREFIX):
        rev, sep, path = spec[len(GIT_PREFIX):].partition(":")
        if not sep or not rev or not path:
            raise DefinitionError([Problem(spec, "", "expected git:REV:PATH")])
        return blob_text(spec, f"{rev}:{path}")
    try:
        return Path(spec).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DefinitionError([Problem(spec, "", f"cannot read: {exc}")]) from None


def run(args: argparse.Namespace) -> int:
    try:  # before the work: a refusal writes nothing and costs nothing
        refuse_existing(args.out, force=args.force)
    except ExistingFileError as exc:
        return fail("merge-versions", f"refused: {exc}", 1)
    try:
        newer_text, older_text = read_text(args.newer), read_text(args.older)
        newer = load_text(newer_text, args.newer, old_format=True)
        older = load_text(older_text, args.older, old_format=True)
        newer_raw, older_raw = jsonc.loads(newer_text), jsonc.loads(older_text)
    except (DefinitionError, jsonc.JsonSyntaxError) as exc:
        for problem in getattr(exc, "problems", [exc]):
            print(problem, file=sys.stderr)
        return 2
    try:
        raw, merged = merge_and_prove(newer_raw, newer, older_raw, older, args.out)
    except DefinitionError as exc:
        if args.json:
            json.dump({"merged": False, "refusals": [str(p) for p in exc.problems]}, sys.stdout, indent=2)
            sys.stdout.write("\n")
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    low = newer.valid_versions.lowest
    first = merged.valid_versions.lowest
    restored = f"v{first}" if first == low - 1 else f"v{first}-{low - 1}"
    only_older = fields_only_older(raw, newer_raw)
    header = (f"// Merged by kwire merge-versions: {args.newer} (v{newer.valid_versions.lowest}-"
              f"{newer.valid_versions.highest}) with {restored} restored from "
              f"{args.older};\n// every version proven to lay out the bytes of the release it came from.\n")
    if only_older:
        header += ("// Fields only the older release has, restored at its versions: "
                   + ", ".join(f"{path} (v{versions})" for path, versions in only_older) + ".\n")
    try:
        atomic_write(args.out, header + json.dumps(raw, indent=2) + "\n", force=args.force)
    except KwireError as exc:
        return fail("merge-versions", exc, 2)
    if args.json:
        json.dump({"merged": True, "out": args.out, "validVersions": raw["validVersions"], "restored": restored,
                   "restoredFields": [{"field": path, "versions": versions} for path, versions in only_older]},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif not args.quiet:
        print(f"{merged.name}: {restored} restored, v{merged.valid_versions.lowest}-{merged.valid_versions.highest} "
              f"proven, written to {args.out}")
        for path, versions in only_older:
            print(f"  {path}: only the older release has this field; restored at v{versions}")
    return 0
