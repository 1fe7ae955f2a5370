"""``kwire check-compat OLD NEW``: flag changes that break data already written or peers deployed.

OLD and NEW are each a definition file, a directory of ``*.json`` definitions, or ``git:REV:PATH``
(a file or directory at a revision of the repository around the current directory; PATH is from
the repository root, or from the current directory when it starts with ``./``). Two single files
are compared with each other; otherwise messages are matched by name.

Both sides are read as old-format input (``kwire.generator.definitions.loader.load_text``): a revision from
before ``flexibleVersions`` was required reads as never flexible, as Kafka then read it.

``--level`` picks what counts (wire, json or api; see ``kwire.generator.evolution.compat``); what only a
higher level counts is printed as a note. ``--format`` text, json or junit (JUnit XML, one test
case per message of OLD, for CI systems).

Exit status: 0 no findings, 1 findings, 2 unreadable or invalid input.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from kwire.cli.commands import add_command, missing_extra
from kwire.cli.errors import fail
from kwire.fuzz.junit import junit_document
from kwire.generator.definitions.errors import DefinitionError, Problem
from kwire.generator.definitions.loader import cross_file_problems, load_definitions, load_text
from kwire.generator.definitions.model import Message
from kwire.generator.evolution.compat import LEVELS, RULES, Finding, compare_messages, compare_sets, split_by_level
from kwire.generator.evolution.git import git_output

GIT_PREFIX = "git:"


@dataclass(frozen=True)
class Side:
    """The definitions one argument names; ``single`` when it named one file."""

    messages: list[Message]
    single: bool


def register(sub: argparse._SubParsersAction) -> None:
    rules = "\n".join(f"  {rule:26} {text}" for rule, text in RULES.items())
    p = add_command(
        sub, "check-compat", raw=True,
        description="Compare OLD and NEW definitions and report every change that breaks data already "
                    "written or peers already deployed, within the versions OLD had.",
        notes="OLD and NEW: a definition file, a directory, or git:REV:PATH.\n"
              "levels: wire = the bytes of an existing version changed; json = also Kafka's JSON form "
              "(renames break it);\n        api = also the generated Python names and defaults.",
        exit_status="0 compatible, 1 findings, 2 unreadable input.")
    p.epilog += f"\n\nrules:\n{rules}"
    p.add_argument("old", metavar="OLD", help="the definitions as released")
    p.add_argument("new", metavar="NEW", help="the definitions as changed")
    p.add_argument("--level", choices=LEVELS, default="wire",
                   help="what counts as incompatible (default wire); higher levels' findings are notes")
    p.add_argument("--format", choices=("text", "json", "junit"), default="text",
                   help="text (default), json (one list: findings and notes, each with kind and level) "
                        "or junit (JUnit XML, one test case per message checked)")
    p.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    missing = missing_extra("generator", "jsonschema")
    if missing:
        return fail("check-compat", missing, 2)
    try:
        old, new = read_side(args.old), read_side(args.new)
    except DefinitionError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    nothing = nothing_to_compare(args.old, old, args.new, new)
    if nothing:
        return fail("check-compat", nothing, 2)
    if old.single and new.single:
        everything = compare_messages(old.messages[0], new.messages[0])
        checked = {old.messages[0].name: old.messages[0].source}
        findings_by_message = {old.messages[0].name: everything}
    else:
        everything = compare_sets(old.messages, new.messages)
        checked = {m.name: m.source for m in old.messages}
        findings_by_message = {name: [f for f in everything if f.message == name] for name in checked}
    findings, notes = split_by_level(everything, args.level)
    if args.format == "json":
        entries = [{**f.to_dict(), "kind": "finding" if f.applies_at(args.level) else "note"} for f in everything]
        json.dump(entries, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.format == "junit":
        sys.stdout.write(junit_report(checked, findings_by_message, args.level))
    else:
        for finding in findings:
            print(finding)
        if not args.quiet:
            for note in notes:
                print(note.as_note())
            count = f"{len(findings)} incompatible change{'' if len(findings) == 1 else 's'}"
            if notes:
                count += f", {len(notes)} note{'' if len(notes) == 1 else 's'}"
            print(f"{count} ({len(checked)} message{'' if len(checked) == 1 else 's'} checked)")
    return 1 if findings else 0


def junit_report(checked: dict[str, str], findings_by_message: dict[str, Sequence[Finding]], level: str) -> str:
    """JUnit XML: one test case per message of OLD, failed by its findings at ``level``; notes go to
    the case's system-out, where CI systems show them without failing the build."""
    suite = ElementTree.Element("testsuite", name=f"kwire check-compat --level {level}")
    failures = 0
    for name, source in checked.items():
        case = ElementTree.SubElement(suite, "testcase", classname="kwire.check-compat", name=name, file=source)
        counted, notes = split_by_level(findings_by_message.get(name, ()), level)
        if counted:
            failures += 1
            failure = ElementTree.SubElement(
                case, "failure", type=counted[0].rule,
                message=f"{len(counted)} incompatible change{'' if len(counted) == 1 else 's'}: "
                        + ", ".join(sorted({f.rule for f in counted})))
            failure.text = "\n".join(str(f) for f in counted)
        if notes:
            ElementTree.SubElement(case, "system-out").text = "\n".join(n.as_note() for n in notes)
    return junit_document(suite, tests=len(checked), failures=failures)


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
    return Side(load_definitions([spec], old_format=True), single)


# --- git:REV:PATH ---------------------------------------------------------------------------------

def read_git(spec: str) -> Side:
    rev, sep, path = spec[len(GIT_PREFIX):].partition(":")
    if not sep or not rev:
        raise DefinitionError([Problem(spec, "", "expected git:REV:PATH, e.g. git:HEAD~1:message_defs")])
    obj = f"{rev}:{path}"
    kind = git_output(spec, "cat-file", "-t", obj).decode().strip()
    if kind == "blob":
        return Side([load_text(blob_text(spec, obj), spec, old_format=True)], single=True)
    if kind != "tree":
        raise DefinitionError([Problem(spec, "", f"{obj} is a {kind}, not a file or directory")])
    messages: list[Message] = []
    problems: list[Problem] = []
    for name, blob in json_blobs(spec, obj):
        source = f"{GIT_PREFIX}{rev}:{path.rstrip('/') + '/' if path else ''}{name}"
        try:
            messages.append(load_text(blob_text(source, blob), source, old_format=True))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    problems.extend(cross_file_problems(messages))
    if problems:
        raise DefinitionError(problems)
    return Side(sorted(messages, key=lambda m: m.name), single=False)


def json_blobs(spec: str, tree: str) -> list[tuple[str, str]]:
    """(path, object id) of the ``*.json`` files in ``tree`` and its subtrees, sorted by path
    (as :func:`kwire.generator.definitions.loader.definition_files` reads a directory)."""
    entries = []
    for line in git_output(spec, "ls-tree", "-r", "-z", tree).decode("utf-8", "replace").split("\0"):
        if not line:
            continue
        meta, name = line.split("\t", 1)
        _mode, kind, oid = meta.split()
        if kind == "blob" and name.endswith(".json"):
            entries.append((name, oid))
    return sorted(entries)


def blob_text(source: str, obj: str) -> str:
    try:
        return git_output(source, "cat-file", "blob", obj).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError([Problem(source, "", f"cannot read: {exc}")]) from None


