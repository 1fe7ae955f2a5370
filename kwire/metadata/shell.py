"""Kafka's metadata shell over an image: ``ls``, ``cd``, ``cat``, ``find``, ``tree``, ``pwd``, ``history``.

Ported from Kafka 3.9's ``org.apache.kafka.shell`` (``command/*CommandHandler``, ``glob/GlobVisitor``,
``glob/GlobComponent``, ``command/CommandUtils``, ``node/printer/ShellNodePrinter``; unchanged in
trunk 1eb7644): the same paths, globs (``*``, ``?``, ``{a,b}``), sorting (Java's ``String.compareTo``)
and the same messages, word for word (``ls: X: no such file or directory.``). Each command gives its
text lines, as Kafka's shell prints them, and a JSON form of the same answer.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kwire.metadata.shell_nodes import Node, java_string_key, sorted_names

SHELL_ONLY = ("cd", "pwd", "history")  # Kafka registers these only in the interactive shell
COMMANDS = ("cat", "cd", "exit", "find", "help", "history", "ls", "pwd", "tree")


@dataclass
class ShellState:
    root: Node
    working_directory: str = "/"
    history: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """What one command printed (``lines``, Kafka's text), its JSON form, and whether every
    target was found (``missing``: how many were not)."""

    lines: list[str] = field(default_factory=list)
    json: dict[str, Any] = field(default_factory=dict)
    missing: int = 0
    exit: bool = False


class ShellUsageError(ValueError):
    """A command line the shell cannot run (unknown command, wrong arguments)."""


# ------------------------------------------------------------------------------------- paths


def split_path(path: str) -> list[str]:
    """``CommandUtils.splitPath``: the non-empty components between slashes."""
    return [part for part in path.split("/") if part]


def strip_dot_components(parts: list[str]) -> list[str]:
    """``CommandUtils.stripDotPathComponents``: ``.`` dropped, ``..`` removes the one before."""
    out: list[str] = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        elif part != ".":
            out.append(part)
    return out


_REGEX_SPECIAL = set("$()+.[]^{|")
_GLOB_SPECIAL = set("\\{}*?,")


def glob_to_regex(glob: str) -> str | None:
    """``GlobComponent.toRegularExpression``: None for a literal component. Raises ValueError for
    a nested or unterminated group (Kafka then takes the component literally)."""
    out = ["^"]
    literal = True
    in_group = False
    i = 0
    while i < len(glob):
        c = glob[i]
        i += 1
        if c == "?":
            literal = False
            out.append(".")
        elif c == "*":
            literal = False
            out.append(".*")
        elif c == "\\":
            if i == len(glob):
                out.append(c)
            else:
                following = glob[i]
                i += 1
                if following in _GLOB_SPECIAL or following in _REGEX_SPECIAL:
                    out.append("\\")
                out.append(following)
        elif c == "{":
            if in_group:
                raise ValueError("Can't nest glob groups.")
            literal = False
            out.append("(?:(?:")
            in_group = True
        elif c == ",":
            if in_group:
                literal = False
                out.append(")|(?:")
            else:
                out.append(c)
        elif c == "}":
            if in_group:
                literal = False
                out.append("))")
                in_group = False
            else:
                out.append(c)
        else:
            if c in _REGEX_SPECIAL:
                out.append("\\")
            out.append(c)
    if in_group:
        raise ValueError("Unterminated glob group.")
    if literal:
        return None
    out.append("$")
    return "".join(out)


@dataclass(frozen=True)
class Match:
    path: tuple[str, ...]
    node: Node

    @property
    def last_component(self) -> str:
        return self.path[-1] if self.path else "/"

    @property
    def absolute_path(self) -> str:
        return "/" + "/".join(self.path)


def visit(state: ShellState, glob: str) -> list[Match]:
    """``GlobVisitor``: every node ``glob`` names, relative to the working directory, in order."""
    full = glob if glob.startswith("/") else f"{state.working_directory}/{glob}"
    components = strip_dot_components(split_path(full))
    found: list[Match] = []
    _visit(components, 0, state.root, (), found)
    return found


def _visit(components: list[str], index: int, node: Node, path: tuple[str, ...], found: list[Match]) -> None:
    if index >= len(components):
        found.append(Match(path, node))
        return
    component = components[index]
    try:
        regex = glob_to_regex(component)
    except ValueError:
        regex = None  # Kafka logs the bad glob and takes the component as it is
    if not node.is_directory:
        return
    if regex is None:
        child = node.child(component)
        if child is not None:
            _visit(components, index + 1, child, (*path, component), found)
        return
    pattern = re.compile(regex)
    for name in sorted_names(node):
        if pattern.fullmatch(name):
            child = node.child(name)
            if child is not None:
                _visit(components, index + 1, child, (*path, name), found)


# ---------------------------------------------------------------------------------- printing


def print_node(node: Node, lines: list[str], indent: int = 0) -> None:
    """``MetadataNode.print`` through ``ShellNodePrinter``: ``name:`` then the child two spaces in."""
    pad = "  " * indent
    if not node.is_directory:
        lines.append(pad + node.text())
        return
    for name in sorted_names(node):
        child = node.child(name)
        lines.append(f"{pad}{name}:")
        if child is not None:
            print_node(child, lines, indent + 1)


def node_json(node: Node) -> Any:
    """A node as JSON: a leaf's text, a directory's children by name (sorted as Kafka sorts)."""
    if not node.is_directory:
        return node.text()
    return {name: node_json(child) for name in sorted_names(node) if (child := node.child(name)) is not None}


def column_lines(entries: list[str], screen_width: int | None) -> list[str]:
    """``LsCommandHandler.printEntries``: one column without a terminal, else as many as fit."""
    if not entries:
        return []
    per_column, widths = _column_schema(entries, screen_width)
    columns = len(widths)
    lines = []
    for line in range((len(entries) + columns - 1) // columns):
        out = []
        for column in range(columns):
            index = line + column * per_column
            if index < len(entries):
                entry = entries[index]
                out.append(entry)
                if column < columns - 1:
                    out.append(" " * (widths[column] - len(entry)))
        lines.append("".join(out))
    return lines


def target_lines(files: list[str], directories: list[tuple[str, list[str]]], screen_width: int | None) -> list[str]:
    """``LsCommandHandler.printTargets``: the files, then each directory's children, under
    ``NAME:`` when there is more than one thing to list."""
    lines = column_lines(files, screen_width)
    need_intro = bool(files) or len(directories) > 1
    first_intro = not files
    for name, children in directories:
        intro: list[str] = []
        if need_intro:
            intro = [f"{name}:"] if first_intro else ["", f"{name}:"]
            first_intro = False
        if children:  # printEntries prints nothing, not even the intro, for no entries
            lines += intro + column_lines(children, screen_width)
    return lines


def _column_schema(entries: list[str], screen_width: int | None) -> tuple[int, list[int]]:
    if screen_width is None or screen_width // 4 <= 1:
        return len(entries), [0]
    schemas = []
    for columns in range(1, screen_width // 4 + 1):
        per_column = (len(entries) + columns - 1) // columns
        widths = [0] * columns
        for i, entry in enumerate(entries):
            widths[i // per_column] = max(widths[i // per_column], len(entry) + 2)
        schemas.append((per_column, widths))
    for per_column, widths in reversed(schemas[1:]):
        if widths[-1] != 0 and sum(widths) <= screen_width:
            return per_column, widths
    return schemas[0]


# ---------------------------------------------------------------------------------- commands


def effective_paths(paths: list[str]) -> list[str]:
    """``CommandUtils.getEffectivePaths``: empty ones dropped, ``.`` when none is left."""
    return [p for p in paths if p] or ["."]


def run_command(state: ShellState, words: list[str], *, interactive: bool,
                screen_width: int | None = None) -> Outcome:
    """Run one command line, split into ``words``. Raises :class:`ShellUsageError` for a line the
    shell does not understand."""
    while words and not words[-1]:
        words = words[:-1]
    if not words:
        return Outcome(json={"command": None})
    name, args = words[0], words[1:]
    if name not in COMMANDS:
        raise ShellUsageError(f"unknown command '{name}': the commands are {', '.join(COMMANDS)}")
    if name in SHELL_ONLY and not interactive:
        raise ShellUsageError(f"{name} works only in the interactive shell, as in Kafka's (run without a command)")
    handler: Callable[..., Outcome] = _HANDLERS[name]
    return handler(state, args, screen_width)


def _ls(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    outcome = Outcome()
    files: list[str] = []
    directories: list[tuple[str, list[str]]] = []
    for _target, match in _each_match(state, outcome, effective_paths(args), "ls: {}: no such file or directory."):
        if match.node.is_directory:
            directories.append((match.last_component, sorted_names(match.node)))
        else:
            files.append(match.last_component)
    outcome.lines += target_lines(files, directories, screen_width)
    outcome.json = {"command": "ls", "files": files,
                    "directories": [{"name": n, "children": c} for n, c in directories]}
    return outcome


def _each_match(state: ShellState, outcome: Outcome, targets: Iterable[str],
                not_found: str) -> Iterator[tuple[str, Match]]:
    """Each (target, match) of the targets in order; a target that matches nothing is the line
    ``not_found`` (with the target in its ``{}``; Kafka's words differ by command) and one missing."""
    for target in targets:
        matches = visit(state, target)
        if not matches:
            outcome.lines.append(not_found.format(target))
            outcome.missing += 1
        for match in matches:
            yield target, match


def _at_least_one(command: str, args: list[str]) -> list[str]:
    """The PATH arguments of ``command``, which takes one or more (Kafka's argparse words when none)."""
    if not args:
        raise ShellUsageError(f"{command}: too few arguments: {command} PATH...")
    return args


def _cat(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    outcome = Outcome()
    values = []
    paths = _at_least_one("cat", args)
    for target, match in _each_match(state, outcome, paths, "cat: {}: No such file or directory."):
        if match.node.is_directory:
            outcome.lines.append(f"cat: {target}: Is a directory")
            outcome.missing += 1
        else:
            print_node(match.node, outcome.lines)
            values.append({"path": match.absolute_path, "value": match.node.text()})
    outcome.json = {"command": "cat", "values": values}
    return outcome


def _find(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    outcome = Outcome()
    for target, match in _each_match(state, outcome, effective_paths(args), "find: {}: no such file or directory."):
        _find_under(target, match.node, outcome.lines)  # Kafka prints the path as typed, globs and all
    outcome.json = {"command": "find", "paths": [line for line in outcome.lines if not line.startswith("find: ")]}
    return outcome


def _find_under(path: str, node: Node, lines: list[str]) -> None:
    lines.append(path)
    if node.is_directory:
        for name in sorted_names(node):
            child = node.child(name)
            if child is not None:
                _find_under(path + name if path == "/" else f"{path}/{name}", child, lines)


def _tree(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    outcome = Outcome()
    trees = []
    paths = _at_least_one("tree", args)
    for _target, match in _each_match(state, outcome, paths, "tree: {}: No such file or directory."):
        print_node(match.node, outcome.lines)
        trees.append({"path": match.absolute_path, "tree": node_json(match.node)})
    outcome.json = {"command": "tree", "trees": trees}
    return outcome


def _cd(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    if len(args) > 1:
        raise ShellUsageError("cd: unrecognized arguments: cd [PATH]")
    target = args[0] if args else "/"
    outcome = Outcome()
    matches = visit(state, target)
    if not matches:
        outcome.lines.append(f"cd: {target}: no such directory.")
        outcome.missing += 1
    for match in matches:
        if not match.node.is_directory:
            outcome.lines.append(f"cd: {target}: not a directory.")
            outcome.missing += 1
        else:
            state.working_directory = match.absolute_path
    outcome.json = {"command": "cd", "workingDirectory": state.working_directory}
    return outcome


def _pwd(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    if args:
        raise ShellUsageError("pwd: unrecognized arguments: pwd")
    return Outcome([state.working_directory], {"command": "pwd", "workingDirectory": state.working_directory})


def _history(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    """``HistoryCommandHandler`` over ``InteractiveShell.history``: the last N lines, numbered from 0,
    this one included."""
    if len(args) > 1 or (args and not re.fullmatch(r"[+-]?\d{1,10}", args[0])):
        raise ShellUsageError("history: the argument is a number of entries: history [N]")
    count = len(state.history) if not args else max(0, min(int(args[0]), len(state.history)))
    first = len(state.history) - count
    entries = [(i, state.history[i]) for i in range(first, len(state.history))]
    return Outcome([f"{i:>5d}  {line}" for i, line in entries],
                   {"command": "history", "entries": [{"index": i, "line": line} for i, line in entries]})


def _help(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    lines = ["Welcome to the Apache Kafka metadata shell.", "", "Commands:"]
    descriptions = {
        "cat": "Show the contents of metadata files.", "cd": "Set the current working directory.",
        "exit": "Exit the metadata shell.", "find": "Search for nodes in the directory hierarchy.",
        "help": "Display this help message.", "history": "Print command history.",
        "ls": "List metadata nodes.", "pwd": "Print the current working directory.",
        "tree": "Show the contents of metadata nodes in a tree structure.",
    }
    lines += [f"  {name:<8} {text}" for name, text in descriptions.items()]
    return Outcome(lines, {"command": "help", "commands": descriptions})


def _exit(state: ShellState, args: list[str], screen_width: int | None) -> Outcome:
    return Outcome(json={"command": "exit"}, exit=True)


_HANDLERS: dict[str, Callable[[ShellState, list[str], int | None], Outcome]] = {
    "ls": _ls, "cat": _cat, "find": _find, "tree": _tree, "cd": _cd, "pwd": _pwd, "history": _history,
    "help": _help, "exit": _exit,
}

__all__ = ["Outcome", "ShellState", "ShellUsageError", "glob_to_regex", "java_string_key", "run_command", "visit"]
