"""What the emitter makes of a module's imports and version tables (generator/emit/imports.py,
generator/emit/views.py), and that generated/ holds it: lines within LINE_LENGTH, no unused import."""
from __future__ import annotations

import ast

import pytest

from kwire.generator.emit.code import LINE_LENGTH
from kwire.generator.emit.imports import tidy_imports
from kwire.generator.emit.views import table_source
from tests.paths import REPO

GENERATED = sorted((REPO / "generated").glob("*.py"))


def test_unused_names_and_imports_are_dropped() -> None:
    source = ("from __future__ import annotations\n\nimport struct\nfrom uuid import UUID\n\n"
              "from kwire.wire.message import NEVER, FieldInfo, blank_instance\n\nx = FieldInfo(UUID)\n")
    assert tidy_imports(source) == ("from __future__ import annotations\n\nfrom uuid import UUID\n\n"
                                    "from kwire.wire.message import FieldInfo\n\nx = FieldInfo(UUID)\n")


def test_imports_are_ordered_as_isort_orders_them() -> None:
    source = ("from __future__ import annotations\n\nfrom ._base import read_int8\n"
              "from kwire.wire.message import check_unsupported, KeyedList, NEVER\nfrom uuid import UUID\n"
              "import struct\n\nx = (read_int8, check_unsupported, KeyedList, NEVER, UUID, struct)\n")
    assert tidy_imports(source).split("\n\nx =")[0] == (
        "from __future__ import annotations\n\nimport struct\nfrom uuid import UUID\n\n"
        "from kwire.wire.message import NEVER, KeyedList, check_unsupported\n\nfrom ._base import read_int8")


@pytest.mark.parametrize("width, wrapped", [(LINE_LENGTH, False), (LINE_LENGTH + 1, True)])
def test_a_from_import_wraps_just_past_the_line_length(width: int, wrapped: bool) -> None:
    lead = "from kwire.wire.message import "
    names = ["a" * (width - len(lead) - len(", b")), "b"]
    source = f"{lead}{', '.join(names)}\n\nx = ({', '.join(names)})\n"
    block = tidy_imports(source).split("\n\nx =")[0]
    assert (block == f"from kwire.wire.message import (\n    {names[0]},\n    b,\n)") is wrapped
    assert max(len(line) for line in block.split("\n")) <= LINE_LENGTH


@pytest.mark.parametrize("bound", [False, True])
@pytest.mark.parametrize("spare", [0, 1])  # the one-line table exactly fills LINE_LENGTH, or is one past it
def test_a_version_table_wraps_just_past_the_line_length(bound: bool, spare: int) -> None:
    items = [f"_read_X_v{v}" for v in range(6)]
    one_line = f"({', '.join(items)})"
    if bound:
        one_line = f"_w.bind_versions({one_line})"
    lead = "X" * (LINE_LENGTH + spare - len(one_line) - len("._READERS = ")) + "._READERS = "
    assert len(lead) + len(one_line) == LINE_LENGTH + spare
    text = table_source(lead, items, bound)
    assert (text == one_line) is (spare == 0)
    assert all(len(line) <= LINE_LENGTH for line in (lead + text).split("\n"))
    namespace = {name: name for name in items} | {"_w": type("W", (), {"bind_versions": staticmethod(lambda t: t)})}
    assert eval(text, namespace) == tuple(items)  # the same table, wrapped or not


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: p.name)
def test_generated_version_tables_fit_the_line_length(path) -> None:
    lines = path.read_text().split("\n")
    tables = [n for n, line in enumerate(lines) if "._READERS = " in line or "._WRITERS = " in line]
    for n in tables:
        end = n
        while lines[end].endswith(("(", ",")):  # a wrapped table: its rows, to the closing line
            end += 1
        assert all(len(line) <= LINE_LENGTH for line in lines[n:end + 1]), f"{path.name}:{n + 1}"
    ast.parse("\n".join(lines))
