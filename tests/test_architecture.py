"""The package's architecture, checked on its import graph (every import, lazy ones included).

kwire's parts depend one way: the wire core on nothing; records on the wire core; the generated
codecs on those two; logs, network, fuzz, arrow, spark and the command line above them. The
generator is build time: no runtime part imports it, nor its libraries (jinja2, jsonschema), nor
the test oracle's (construct). Only ``kwire.spark`` needs PySpark; ``kwire.arrow`` needs PyArrow
alone. ``import kwire`` imports none of the parts above the wire core. Inside a part, no two
modules import each other, directly or round a circle (``KNOWN_CYCLES`` lists those still to go).
"""
from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.paths import REPO

# import name of each top folder (pyproject.toml's package-dir)
FOLDERS = {"kwire": REPO / "kwire", "kwire.generator": REPO / "generator", "kwire.generated": REPO / "generated"}


def modules() -> Iterator[tuple[str, Path]]:
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [p for p in path.relative_to(folder).with_suffix("").parts if p != "__init__"]
            yield ".".join([package, *parts]), path


@functools.cache
def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once for every check (the generated modules are large)."""
    return ast.parse(path.read_text(), str(path))


@functools.cache
def imported_names(module: str, path: Path) -> frozenset[str]:
    """Every module name ``module`` imports (``from a import b`` counts as a and a.b)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return frozenset(names)


def part(name: str) -> str | None:
    """The part of kwire a module belongs to (``kwire.logs.dump`` -> ``logs``), None outside kwire."""
    pieces = name.split(".")
    if pieces[0] != "kwire":
        return None
    return pieces[1] if len(pieces) > 1 else "kwire"


@functools.cache
def dependencies() -> dict[str, set[tuple[str, str]]]:
    """part -> {(importing module, imported part)} for imports that cross parts."""
    found: dict[str, set[tuple[str, str]]] = {}
    for module, path in modules():
        for name in imported_names(module, path):
            source, target = part(module), part(name)
            if target is not None and target != source and target != "kwire":
                found.setdefault(source, set()).add((module, target))
    return found


# part -> the parts it may import: every part is listed (a new folder must say where it sits).
ALLOWED = {
    "wire": set(),
    "records": {"wire"},
    "generated": {"wire", "records"},
    "logs": {"wire", "records", "generated"},  # Kafka's files: batches of generated records
    "network": {"wire", "records", "generated"},  # frames, headers, connections: no files, no images
    "features": {"wire", "records", "generated", "logs"},  # KIP-584/KIP-778 rules over metadata logs
    "metadata": {"wire", "records", "generated", "logs", "features"},  # the image: above logs and features
    "arrow": {"wire", "records", "generated", "logs"},  # log files to Arrow in-process; Spark's tasks run it too
    # the hostile-input targets reach the parts that read untrusted bytes (frames, logs, the image)
    "fuzz": {"wire", "records", "generated", "logs", "network", "metadata"},
    "testing": {"wire", "records", "generated", "network", "fuzz"},  # users' suites: strategies, mock peers
    "spark": {"wire", "records", "generated", "logs", "arrow", "fuzz", "metadata"},
    "generator": {"wire"},  # build time: the CLI composes it with fuzz (kwire/cli/definition_target.py)
    "cli": {"wire", "records", "generated", "logs", "network", "features", "metadata", "fuzz", "arrow", "spark",
            "testing", "generator", "__version__"},  # the command line sits above everything
    "kwire": {"wire"},  # `import kwire`: the error family only
    "__main__": {"cli"},  # `python -m kwire`
}
RUNTIME_PARTS = {"wire", "records", "generated", "logs", "network", "fuzz", "arrow", "spark", "features", "metadata",
                 "testing"}
BUILD_TIME_LIBRARIES = ("jinja2", "jsonschema", "construct")  # the generator extra, and the test oracle


@pytest.mark.parametrize("source", sorted(ALLOWED))
def test_lower_parts_import_only_what_is_below_them(source):
    crossing = {(module, target) for module, target in dependencies().get(source, set())
                if target not in ALLOWED[source]}
    assert not crossing, f"kwire.{source} imports parts above it: {sorted(crossing)}"


# the generator's sub-packages (one concern each) -> those they may import: one way, each only
# those listed before it; every sub-package is listed.
GENERATOR_ALLOWED = {
    "definitions": set(),  # definitions read into the model
    "emit": {"definitions"},  # the model into modules
    "records": {"emit"},  # the record layout into decoders (spelt with emit's Lines)
    "evolution": {"definitions"},  # compatibility, history merge, release tables
    "native": {"definitions", "emit", "records"},  # compiles what emit and records write
}


def generator_part(name: str) -> str | None:
    """The generator's sub-package a module belongs to (``kwire.generator.emit.ops`` -> ``emit``)."""
    pieces = name.split(".")
    return pieces[2] if len(pieces) > 2 and pieces[:2] == ["kwire", "generator"] else None


@pytest.mark.parametrize("source", sorted(GENERATOR_ALLOWED))
def test_the_generators_sub_packages_import_one_way(source):
    crossing = sorted((module, name) for module, path in modules() if generator_part(module) == source
                      for name in imported_names(module, path)
                      if generator_part(name) not in {None, source} | GENERATOR_ALLOWED[source])
    assert not crossing, f"kwire.generator.{source} imports sub-packages above it: {crossing}"


def test_every_generator_module_is_in_a_sub_package():
    loose = sorted(p.name for p in (REPO / "generator").glob("*.py") if p.name != "__init__.py")
    folders = {p.name for p in (REPO / "generator").iterdir() if (p / "__init__.py").exists()}
    assert loose == [] and folders == set(GENERATOR_ALLOWED)
    order = list(GENERATOR_ALLOWED)  # one way: each imports only sub-packages listed before it
    assert all(GENERATOR_ALLOWED[name] <= set(order[:i]) for i, name in enumerate(order))
    assert generator_part("kwire.generator.emit.ops") == "emit" and generator_part("kwire.generator") is None


def named_parts(text: str, pattern: str) -> list[str]:
    """The parts ``text`` names by ``pattern`` (a regex with one group, the part), in order."""
    import re

    return [name for name in re.findall(pattern, text, re.MULTILINE) if name in ALLOWED]


def test_kwire_and_the_readme_describe_the_parts_in_the_order_of_allowed():
    parts = [name for name in ALLOWED if name not in ("kwire", "__main__")]
    docstring = ast.get_docstring(parsed(REPO / "kwire" / "__init__.py")) or ""
    assert named_parts(docstring, r"^- ``kwire\.(\w+)``") == parts
    readme = (REPO / "README.md").read_text().partition("## Layout")[2].partition("\n## ")[0]
    rows = named_parts(readme, r"^\| `(?:kwire/)?(\w+)/` \|")
    assert rows == parts
    generator_row = next(line for line in readme.splitlines() if line.startswith("| `generator/`"))
    assert all(f"`{name}/`" in generator_row for name in GENERATOR_ALLOWED)


def test_no_runtime_part_imports_the_generator_or_the_command_line():
    offenders = sorted((module, target) for source, edges in dependencies().items() if source in RUNTIME_PARTS
                       for module, target in edges if target in ("generator", "cli"))
    assert not offenders


def test_only_kwire_spark_needs_pyspark():
    offenders = sorted(module for module, path in modules()
                       if any(name == "pyspark" or name.startswith("pyspark.") for name in imported_names(module, path))
                       and part(module) != "spark")
    assert not offenders


def test_the_runtime_imports_no_build_time_library():
    offenders = sorted((module, name) for module, path in modules()
                       if part(module) in RUNTIME_PARTS | {"kwire"}
                       for name in imported_names(module, path)
                       if name.partition(".")[0] in BUILD_TIME_LIBRARIES)
    assert not offenders


def test_the_generator_imports_its_libraries_only_when_it_uses_them():
    # the command line imports the generator's modules to build its parser; without the generator
    # extra `kwire generate` must say which extra to install, not fail to start
    offenders = sorted((module, node.lineno) for module, path in modules() if part(module) == "generator"
                       for node in parsed(path).body
                       if isinstance(node, (ast.Import, ast.ImportFrom))
                       and any(name.partition(".")[0] in BUILD_TIME_LIBRARIES
                               for name in ([a.name for a in node.names] if isinstance(node, ast.Import)
                                            else [node.module or ""])))
    assert not offenders


def test_import_kwire_imports_no_part_above_the_wire_core():
    imported = imported_names("kwire", REPO / "kwire" / "__init__.py")
    assert {part(name) for name in imported} - {None, "kwire"} <= {"wire"}


def test_every_part_says_what_it_may_import():
    folders = {p.name for p in (REPO / "kwire").iterdir() if (p / "__init__.py").exists()}
    assert folders | {"generated", "generator", "kwire", "__main__"} == set(ALLOWED)


def test_the_folders_of_kwire_name_its_parts():
    folders = {p.name for p in (REPO / "kwire").iterdir() if (p / "__init__.py").exists()}
    loose = sorted(p.name for p in (REPO / "kwire").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == [], "modules belong in a part's folder"
    assert RUNTIME_PARTS - {"generated"} <= folders | {"features"} and "cli" in folders


def test_pyproject_lists_every_package():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapping = config["package-dir"]
    on_disk = {"kwire.message_defs", "kwire.generator.emit.templates"}  # data only: definitions, jinja2 templates
    for package, folder in mapping.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            on_disk.add(".".join([package, *relative]))
    assert sorted(config["packages"]) == sorted(on_disk)


def test_the_analysis_sees_a_crossing_import(tmp_path):
    # the checker itself: an import of the generator inside a function is found
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from kwire.generator.definitions import loader\n    from ..records import x\n")
    assert {"kwire.generator.definitions", "kwire.generator.definitions.loader", "kwire.records", "kwire.records.x"} \
        == imported_names("kwire.logs.m", module)


# --- one owner for varints (issue 23, section 3) ------------------------------------------------

VARINT_MODULE = "kwire.wire.varint"


def varint_loops(tree: ast.AST) -> list[int]:
    """Lines of loops that read or write varints: a loop that masks a group of 7 bits (``& 0x7F``)
    and steps by 7 bits (``shift += 7``, ``value >>= 7``). The inline one- and two-byte cases of
    the hot decoders are no loops and are not counted."""
    found = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.While, ast.For)):
            continue
        inside = list(ast.walk(loop))
        masks = any(isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd)
                    and any(isinstance(side, ast.Constant) and side.value == 0x7F for side in (node.left, node.right))
                    for node in inside)
        steps = any(isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.RShift))
                    and isinstance(node.value, ast.Constant) and node.value.value == 7 for node in inside)
        if masks and steps:
            found.append(loop.lineno)
    return found


def test_only_the_varint_module_has_varint_loops():
    offenders = sorted((module, line) for module, path in modules() if module != VARINT_MODULE
                       for line in varint_loops(parsed(path)))
    assert not offenders, f"varints are read and written in {VARINT_MODULE} only: {offenders}"
    assert varint_loops(ast.parse((REPO / "kwire/wire/varint.py").read_text())), "the check finds nothing"


def test_the_varint_check_sees_a_hand_written_loop():
    reader = "def f(buf, pos):\n    while True:\n        b = buf[pos]\n        value |= (b & 0x7F) << shift\n"
    writer = "def g(n):\n    while n >= 0x80:\n        out.append(n & 0x7f | 0x80)\n        n >>= 7\n"
    reader = reader + "        shift += 7\n"
    assert varint_loops(ast.parse(reader)) == [2] and varint_loops(ast.parse(writer)) == [2]
    inline = "for _ in range(n):\n    b, c = buf[pos], buf[pos + 1]\n    v = (b & 0x7F) | (c << 7)\n    pos += 2\n"
    assert varint_loops(ast.parse(inline)) == []


# --- no import cycle inside a part (issue 23) ---------------------------------------------------

#: Cycles inside a part found when this check was added, each a set of modules that import one
#: another (directly or through others). Their parts are other engineers' to untangle; when one is
#: gone its entry must go too, so the check fails on any change, a cycle fixed or a new one.
KNOWN_CYCLES: dict[str, list[set[str]]] = {}


def import_cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The sets of two or more modules that each reach all the others in ``graph`` (module ->
    modules it imports), sorted by their smallest name."""
    def reachable(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for name in graph.get(todo.pop(), ()):
                if name not in seen:
                    seen.add(name)
                    todo.append(name)
        return seen

    reach = {module: reachable(module) for module in graph}
    cycles: list[set[str]] = []
    for module in sorted(graph):
        if module in reach[module] and not any(module in cycle for cycle in cycles):
            cycles.append({other for other in reach[module] if module in reach[other]} | {module})
    return sorted(cycles, key=min)


@functools.cache
def part_import_graphs() -> dict[str, dict[str, set[str]]]:
    """part -> its modules -> the modules of the same part each imports (parsed once for all parts)."""
    paths = dict(modules())
    graphs: dict[str, dict[str, set[str]]] = {}
    for module, path in paths.items():
        source = part(module)
        if source is None or source == "kwire":
            continue
        graphs.setdefault(source, {})[module] = {name for name in imported_names(module, path)
                                                 if name in paths and name != module and part(name) == source}
    return graphs


@pytest.mark.parametrize("source", sorted(RUNTIME_PARTS | {"generator", "cli"}))
def test_no_import_cycle_inside_a_part(source):
    cycles = import_cycles(part_import_graphs().get(source, {}))
    assert cycles == KNOWN_CYCLES.get(source, []), f"import cycles inside kwire.{source}: {cycles}"


def test_the_cycle_check_sees_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_cycles(graph) == [{"a", "b", "c"}, {"e"}]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


# --- one description of the record layout (issue 23, section 3) -------------------------------


def inline_varint_lines(tree: ast.AST) -> list[int]:
    """Lines that decode a varint by hand: a zigzag step (``(x >> 1) ^ -(x & 1)``) or two 7-bit
    groups joined (``(b & 0x7F) | (c << 7)``)."""
    def is_op(node, op, right=None):
        return (isinstance(node, ast.BinOp) and isinstance(node.op, op)
                and (right is None or isinstance(node.right, ast.Constant) and node.right.value == right))

    found = []
    for node in ast.walk(tree):
        zigzag = (is_op(node, ast.BitXor) and is_op(node.left, ast.RShift, 1)
                  and isinstance(node.right, ast.UnaryOp) and isinstance(node.right.op, ast.USub)
                  and is_op(node.right.operand, ast.BitAnd, 1))
        groups = is_op(node, ast.BitOr) and is_op(node.left, ast.BitAnd, 0x7F) and is_op(node.right, ast.LShift, 7)
        if zigzag or groups:
            found.append(node.lineno)
    return found


def generated_lines(text: str) -> set[int]:
    """Every line of a module kwire.generator.records.decoders writes (whole: named _generated_*,
    its first line says so); none of any other."""
    from kwire.generator.records.decoders import MODULE_HEADER

    if text.startswith(MODULE_HEADER[0] + "\n"):
        return set(range(1, len(text.splitlines()) + 1))
    return set()


def test_records_are_decoded_by_hand_only_in_the_generated_decoders():
    # Both record decoders are emitted from generator/records/layout.py; a record layout or an
    # unrolled varint written by hand elsewhere is the duplication issue 23 removed. The
    # generated message codecs (the emitter's output) and the varint module are the other owners.
    offenders, seen = [], 0
    for module, path in modules():
        if module == VARINT_MODULE or part(module) == "generated":
            continue
        text = path.read_text()
        lines = inline_varint_lines(parsed(path))
        allowed = generated_lines(text)
        seen += len([line for line in lines if line in allowed])
        offenders += [(module, line) for line in lines if line not in allowed]
    assert not offenders, f"hand-written varint decoding outside the generated record decoders: {offenders}"
    assert seen == 2 * 3 * 5, "the check finds the five inline varints of both record decoders"


def test_the_inline_varint_check_sees_a_hand_written_one():
    unrolled = "b = data[pos]\nif b < 0x80:\n    n = (b >> 1) ^ -(b & 1)\nelse:\n    b = (b & 0x7F) | (c << 7)\n"
    assert inline_varint_lines(ast.parse(unrolled)) == [3, 5]
    assert inline_varint_lines(ast.parse("x = (a >> 2) ^ -(a & 1)\ny = (a & 0x3F) | (c << 7)\n")) == []
