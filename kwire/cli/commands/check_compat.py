"""``kwire check-compat OLD NEW``: flag changes that break data already written or peers deployed.

OLD and NEW are each a definition file, a directory of ``*.json`` definitions, or ``git:REV:PATH``
(a file or directory at a revision of the repository around the current directory; PATH is from
the repository root, or from the current directory when it starts with ``./``). Two single files
are compared with each other; otherwise messages are matched by name.

Exit status: 0 no findings, 1 findings, 2 unreadable or invalid input.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from kwire.generator.compat import RULES, compare_messages, compare_sets
from kwire.generator.errors import DefinitionError, Problem
from kwire.generator.loader import cross_file_problems, load_definitions, load_text
from kwire.generator.model import Message

GIT_PREFIX = "git:"


@dataclass(frozen=True)
class Side:
    """The definitions one argument names; ``single`` when it named one file."""

    messages: list[Message]
    single: bool


def register(sub: argparse._SubParsersAction) -> None:
    rules = "\n".join(f"  {rule:26} {text}" for rule, text in RULES.items())
    p = sub.add_parser(
        "check-compat", help="flag incompatible changes between two generations of definitions",
        description="Compare OLD and NEW definitions and report every change that breaks data already "
                    "written or peers already deployed, within the versions OLD had.",
        epilog=f"OLD and NEW: a definition file, a directory, or git:REV:PATH.\n"
               f"Exit status: 0 compatible, 1 findings, 2 unreadable input.\n\nrules:\n{rules}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", metavar="OLD", help="the definitions as released")
    p.add_argument("new", metavar="NEW", help="the definitions as changed")
    p.add_argument("--json", action="store_true", help="print the findings as one JSON list on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        old, new = read_side(args.old), read_side(args.new)
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    nothing = nothing_to_compare(args.old, old, args.new, new)
    if nothing:
        print(f"kwire check-compat: {nothing}", file=sys.stderr)
        return 2
    if old.single and new.single:
        findings = compare_messages(old.messages[0], new.messages[0])
    else:
        findings = compare_sets(old.messages, new.messages)
    if args.json:
        json.dump([f.to_dict() for f in findings], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for finding in findings:
            print(finding)
        if not args.quiet:
            count = f"{len(findings)} incompatible change{'' if len(findings) == 1 else 's'}"
            print(f"{count} ({len(old.messages)} message{'' if len(old.messages) == 1 else 's'} checked)")
    return 1 if findings else 0


def nothing_to_compare(old_spec: str, old: Side, new_spec: str, new: Side) -> str | None:
    """Why the two sides cannot be compared (an empty side, or no message in common), if so.

    A CI gate whose OLD path has a typo must fail, not pass with "0 messages checked".
    """
    for spec, side in ((old_spec, old), (new_spec, new)):
        if not side.messages:
            return f"{spec}: no definitions (*.json files) found"
    if old.single and new.single:
        return None
    common = {m.name for m in old.messages} & {m.name for m in new.messages}
    if not common:
        return (f"{old_spec} and {new_spec} have no message in common "
                f"({len(old.messages)} and {len(new.messages)} definitions): nothing to compare")
    return None


def read_side(spec: str) -> Side:
    """Load what one argument names; raise DefinitionError when it cannot be read or is invalid."""
    if spec.startswith(GIT_PREFIX):
        return read_git(spec)
    single = not Path(spec).is_dir()
    return Side(load_definitions([spec]), single)


# --- git:REV:PATH ---------------------------------------------------------------------------------

def read_git(spec: str) -> Side:
    rev, sep, path = spec[len(GIT_PREFIX):].partition(":")
    if not sep or not rev:
        raise DefinitionError([Problem(spec, "", "expected git:REV:PATH, e.g. git:HEAD~1:message_defs")])
    obj = f"{rev}:{path}"
    kind = git(spec, "cat-file", "-t", obj).decode().strip()
    if kind == "blob":
        return Side([load_text(blob_text(spec, obj), spec)], single=True)
    if kind != "tree":
        raise DefinitionError([Problem(spec, "", f"{obj} is a {kind}, not a file or directory")])
    messages: list[Message] = []
    problems: list[Problem] = []
    for name, blob in json_blobs(spec, obj):
        source = f"{GIT_PREFIX}{rev}:{path.rstrip('/') + '/' if path else ''}{name}"
        try:
            messages.append(load_text(blob_text(source, blob), source))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    problems.extend(cross_file_problems(messages))
    if problems:
        raise DefinitionError(problems)
    return Side(sorted(messages, key=lambda m: m.name), single=False)


def json_blobs(spec: str, tree: str) -> list[tuple[str, str]]:
    """(name, object id) of the ``*.json`` files directly in ``tree``, sorted by name."""
    entries = []
    for line in git(spec, "ls-tree", "-z", tree).decode("utf-8", "replace").split("\0"):
        if not line:
            continue
        meta, name = line.split("\t", 1)
        _mode, kind, oid = meta.split()
        if kind == "blob" and name.endswith(".json"):
            entries.append((name, oid))
    return sorted(entries)


def blob_text(source: str, obj: str) -> str:
    try:
        return git(source, "cat-file", "blob", obj).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError([Problem(source, "", f"cannot read: {exc}")]) from None


def git(source: str, *argv: str) -> bytes:
    """Run a read-only git command in the current directory; its failure is unreadable input."""
    try:
        done = subprocess.run(["git", *argv], capture_output=True, check=False)
    except OSError as exc:
        raise DefinitionError([Problem(source, "", f"cannot run git: {exc}")]) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip() or f"git exited with {done.returncode}"
        raise DefinitionError([Problem(source, "", f"cannot read from git: {detail}")])
    return done.stdout
