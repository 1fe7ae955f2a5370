"""``kwire versions``: which Kafka release added (and removed) each API version.

- ``kwire versions``: per API, each version and the first release that had it (and the last, for
  versions a later release removed).
- ``--release 3.6``: that release's table (every 3.6.x; one table when they agree).
- ``--api Fetch``: only that API (a name or an api key).
- ``--derive-from GIT_DIR --out FILE``: derive the tables again from the release tags of a Kafka
  repository (plus ``--release-commit`` and ``--release-folder`` for releases that are not tags
  there) and write them.

Exit codes: 0 printed or written, 2 bad usage (an unknown release or API, unreadable input).
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from kwire.cli.commands import add_command
from kwire.cli.errors import fail
from kwire.network.releases import Release, ReleaseTables, parse_tables, release_tables
from kwire.wire.errors import KwireError
from kwire.wire.files import atomic_write


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "versions", raw=True,
                    description="Per API, each version and the first Kafka release that spoke it (and the "
                                   "last, for removed versions), from tables derived from each release's own "
                                   "definitions (releases 2.2.0 on; the data names the releases it lacks).",
                    exit_status="0 ok, 2 bad usage or unreadable input.")
    p.add_argument("--release", metavar="VERSION", help="one release's table: 3.6 (every 3.6.x) or 3.6.1")
    p.add_argument("--api", metavar="NAME|KEY", help="only this API (Fetch, or 1)")
    p.add_argument("--json", action="store_true", help="print JSON")
    derive = p.add_argument_group("deriving the tables (build time)")
    derive.add_argument("--derive-from", metavar="GIT_DIR", help="a Kafka git repository whose release tags to read")
    derive.add_argument("--release-commit", action="append", default=[], metavar="RELEASE=COMMIT=GIT_DIR",
                        help="a release that is not a tag there: its commit in another copy of Kafka's history "
                             "(its definitions and Java rules are read there; repeatable)")
    derive.add_argument("--release-folder", action="append", default=[], metavar="RELEASE=COMMIT=DIR",
                        help="a release that is not a tag there: the folder of its client definitions "
                             "and its commit (repeatable)")
    derive.add_argument("--not-covered", action="append", default=[], metavar="AFTER..BEFORE=WHY",
                        help="releases strictly between AFTER and BEFORE that the data lacks, and why (repeatable)")
    derive.add_argument("--out", metavar="FILE", help="where --derive-from writes the tables")
    derive.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.derive_from or args.out or args.release_folder or args.release_commit:
            return derive(args)
        tables = release_tables()
        if args.release:
            releases = tables.named(args.release)
            if not releases:
                known = ", ".join(r.name for r in tables.releases)
                return usage(f"no table for release {args.release!r} (known: {known}; "
                             f"not covered: {'; '.join(g['releases'] for g in tables.not_covered)})")
            report = release_report(releases, args.api)
        else:
            report = history_report(tables, args.api)
    except UsageError as exc:
        return usage(str(exc))
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print(render(report))
    return 0


class UsageError(Exception):
    pass


def usage(message: str) -> int:
    return fail("versions", message, 2)


def _api_filter(tables_apis: dict[int, str], wanted: str | None) -> list[int]:
    if wanted is None:
        return sorted(tables_apis)
    for key, name in tables_apis.items():
        if wanted == str(key) or wanted.lower() in (name.lower(), name.lower() + "request"):
            return [key]
    raise UsageError(f"no API {wanted!r} in any release's table")


def history_report(tables: ReleaseTables, api: str | None) -> dict[str, Any]:
    """Per API: each version, the first release that had it and, if removed, the last one."""
    names: dict[int, str] = {}
    spans: dict[int, list[dict[str, str]]] = {}  # per API: each name it had, first and last release
    for release in tables.releases:
        names.update({key: entry[0] for key, entry in release.apis.items()})
        for key, (name, _, _, _) in release.apis.items():
            runs = spans.setdefault(key, [])
            if runs and runs[-1]["name"] == name:
                runs[-1]["last"] = release.name
            else:
                runs.append({"name": name, "first": release.name, "last": release.name})
    apis = []
    for key in _api_filter(names, api):
        first: dict[int, Release] = {}
        last: dict[int, Release] = {}
        spoken: dict[int, list[int]] = {}  # version -> indexes of the releases that spoke it
        for index, release in enumerate(tables.releases):
            if key in release.apis:
                _, low, high, _ = release.apis[key]
                for version in range(low, high + 1):
                    first.setdefault(version, release)
                    last[version] = release
                    spoken.setdefault(version, []).append(index)
        newest = tables.releases[-1]
        versions = []
        for version in sorted(first):
            added = first[version]
            entry: dict[str, Any] = {"version": version, "added": added.name,
                                     "added_no_later_than": added.gap_before}
            if last[version] is not newest:
                after_last = tables.releases[tables.releases.index(last[version]) + 1]
                entry["last"] = last[version].name
                entry["last_no_earlier_than"] = after_last.gap_before
            # a version removed and later spoken again (JoinGroup v0-1: not in 4.0.0, back in 4.0.1)
            indexes = spoken[version]
            lacking = [tables.releases[i].name for i in range(indexes[0], indexes[-1] + 1) if i not in indexes]
            if lacking:
                entry["not_in"] = lacking
            versions.append(entry)
        apis.append({"key": key, "name": names[key], "versions": versions,
                     **({"former_names": spans[key][:-1]} if len(spans[key]) > 1 else {})})
    return {"kind": "history", "releases": [r.name for r in tables.releases],
            "not_covered": list(tables.not_covered), "apis": apis}


def release_report(releases: list[Release], api: str | None) -> dict[str, Any]:
    """The tables of ``releases``, one per run of releases that agree."""
    groups: list[tuple[list[str], Release]] = []
    for release in releases:
        if groups and groups[-1][1].apis == release.apis:
            groups[-1][0].append(release.name)
        else:
            groups.append(([release.name], release))
    names = {key: entry[0] for _, release in groups for key, entry in release.apis.items()}
    keys = _api_filter(names, api)
    out = []
    for members, release in groups:
        apis = []
        for key in keys:
            if key not in release.apis:
                continue
            name, low, high, listeners = release.apis[key]
            apis.append({"key": key, "name": name, "min": low, "max": high,
                         **({"listeners": list(listeners)} if listeners is not None else {})})
        out.append({"releases": members, "source": release.source, "commit": release.commit, "apis": apis})
    return {"kind": "release", "tables": out}


def render(report: dict[str, Any]) -> str:
    lines = []
    if report["kind"] == "history":
        for api in report["apis"]:
            former = "".join(f"; {n['name']} in {n['first']}–{n['last']}" for n in api.get("former_names", ()))
            lines.append(f"{api['name']} ({api['key']}{former})")
            for v in api["versions"]:
                added = ("≤" if v["added_no_later_than"] else "") + v["added"]
                removed = (f", last in {'≥' if v['last_no_earlier_than'] else ''}{v['last']}" if "last" in v else "")
                lacking = f" (not in {', '.join(v['not_in'])})" if "not_in" in v else ""
                lines.append(f"  v{v['version']:<3} {added}{removed}{lacking}")
        lines.append("")
        lines.append("Releases: " + ", ".join(report["releases"]))
        for gap in report["not_covered"]:
            lines.append(f"Not covered: {gap['releases']}: {gap['why']}.")
        lines.append("≤R: added in R or in an uncovered release before it; ≥R: last in R or in an uncovered "
                     "release after it.")
    else:
        for table in report["tables"]:
            members = table["releases"]
            title = members[0] if len(members) == 1 else f"{members[0]}–{members[-1]} ({', '.join(members)})"
            lines.append(f"Kafka {title}: {table['source']} @ {table['commit'][:12]}")
            for api in table["apis"]:
                listeners = f"  [{', '.join(api['listeners'])}]" if "listeners" in api else ""
                lines.append(f"  {api['key']:>3} {api['name']:<32} v{api['min']}-{api['max']}{listeners}")
    return "\n".join(lines)


# --- deriving (build time) -------------------------------------------------------------------------

def derive(args: argparse.Namespace) -> int:
    from kwire.generator.definitions.errors import DefinitionError
    from kwire.generator.evolution.release_tables import (
        derive_from_commit,
        derive_from_folder,
        derive_from_git,
        dump_tables,
        release_tags,
    )

    if not (args.derive_from and args.out):
        return usage("--derive-from and --out go together")
    try:
        folders = [parse_release_folder(text) for text in args.release_folder]
        commits = [parse_release_folder(text, "--release-commit", "RELEASE=COMMIT=GIT_DIR")
                   for text in args.release_commit]
        gaps = [parse_gap(text) for text in args.not_covered]
    except UsageError as exc:
        return usage(str(exc))
    try:
        tags = release_tags(args.derive_from)
        if not tags:
            return usage(f"{args.derive_from}: no release tag holds JSON definitions")
        tables = [derive_from_git(args.derive_from, tag) for tag in tags]
        for release, commit, git_dir in commits:
            tables.append(derive_from_commit(git_dir, release, commit))
        for release, commit, folder in folders:
            tables.append(derive_from_folder(release, folder, commit, f"Apache Kafka {release} ({folder})"))
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    names = [table["release"] for table in tables]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        return usage(f"release {', '.join(twice)} given more than once "
                     "(a tag and a --release-commit or --release-folder)")
    text = dump_tables(tables, gaps, "kwire " + shlex.join(sys.argv[1:]) if "--derive-from" in sys.argv
                       else "kwire versions --derive-from ...")
    parse_tables(json.loads(text))  # what is written must read back
    try:
        atomic_write(args.out, text, force=args.force)
    except KwireError as exc:
        return usage(str(exc))
    if not args.quiet:
        print(f"{len(tables)} releases ({tables[0]['release']} … {tables[-1]['release']}) written to {args.out}",
              file=sys.stderr)
    return 0


def parse_release_folder(text: str, option: str = "--release-folder",
                         form: str = "RELEASE=COMMIT=DIR") -> tuple[str, str, str]:
    parts = text.split("=", 2)
    if len(parts) != 3 or not all(parts):
        raise UsageError(f"{option} {text!r}: expected {form}")
    return parts[0], parts[1], parts[2]


def parse_gap(text: str) -> dict[str, str]:
    span, sep, why = text.partition("=")
    after, dots, before = span.partition("..")
    if not (sep and dots and after and before and why):
        raise UsageError(f"--not-covered {text!r}: expected AFTER..BEFORE=WHY")
    releases = f"releases before {before}" if after == "0.0.0" else f"releases after {after} and before {before}"
    return {"after": after, "before": before, "releases": releases, "why": why}
