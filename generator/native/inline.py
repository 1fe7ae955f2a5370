"""Paste :mod:`kwire.wire.varint` into a module that mypyc compiles on its own.

mypyc turns a call into another compiled module of the same build into a C call, but the record
column decoder (``native.records``) and the generated package's ``_base`` (``native.build``) are
each built alone, where a call to ``kwire.wire.varint`` would be a call into plain Python on
every multi-byte varint. So their source imports the readers on one marked line::

    from kwire.wire.varint import read_zigzag  # pasted in when compiled (kwire.generator.native.inline)

and the compiled copy has, in place of that line, the definitions of ``kwire/wire/varint.py``:
one source of truth for varints, compiled into each build that reads them.

Likewise :func:`records_view_source` pastes :class:`kwire.records.reader.RecordsView` (and the
``check_region`` it calls) into a module of its own for a compiled build of the codecs, so that
their readers make views natively.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import kwire
from kwire.wire import varint

VARINT_SOURCE = Path(varint.__file__)
MARKER = "  # pasted in when compiled (kwire.generator.native.inline)"
_IMPORT = re.compile(r"^from kwire\.wire\.varint import ([\w, ]+)" + re.escape(MARKER) + r"$", re.MULTILINE)


class PasteFailed(ValueError):
    """The source has no single marked import, or imports a name varint.py does not define."""


def varint_definitions(source: str | None = None) -> str:
    """varint.py without its docstring and ``from __future__`` import (those belong at the top)."""
    text = VARINT_SOURCE.read_text() if source is None else source
    tree = ast.parse(text)
    body = [node for node in tree.body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
    lines = text.splitlines(keepends=True)
    first = body[0].lineno - 1
    return "".join(lines[first:])


def paste_varint(text: str, varint_source: str | None = None) -> str:
    """``text`` with its marked ``from kwire.wire.varint import ...`` line replaced by varint.py."""
    found = _IMPORT.findall(text)
    if len(found) != 1:
        raise PasteFailed(f"expected one marked 'from kwire.wire.varint import' line, found {len(found)}")
    definitions = varint_definitions(varint_source)
    defined = {node.name for node in ast.parse(definitions).body if isinstance(node, ast.FunctionDef)}
    missing = sorted({name.strip() for name in found[0].split(",")} - defined)
    if missing:
        raise PasteFailed(f"kwire.wire.varint defines no {', '.join(missing)}")
    banner = "# ---- pasted from kwire/wire/varint.py (kwire.generator.native.inline): edit it there ----\n"
    pasted = banner + definitions + "# ---- end of kwire/wire/varint.py ----"
    return _IMPORT.sub(lambda _: pasted, text, count=1)  # (a function: the text is taken as it is)


# --- the compiled build's RecordsView ------------------------------------------------------------

def _definition(path: Path, name: str) -> str:
    """The source of the top-level class or function ``name`` in ``path``, as it is written there."""
    text = path.read_text()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return "".join(text.splitlines(keepends=True)[first - 1:node.end_lineno])
    raise PasteFailed(f"{path.name} defines no {name}")


def records_view_source() -> str:
    """The module a compiled build of the codecs compiles beside ``_base``: a native twin of
    :class:`kwire.records.reader.RecordsView` and of the ``check_region`` its ``__init__`` calls,
    both pasted from their one source. Compiled readers make their views with its native
    constructor (one allocation, the slots stored directly) where the plain class costs them
    ``object.__new__`` and three generic attribute sets; the twin registers with the plain class
    (an ``ABCMeta``), so either build's views are ``kwire.records.RecordsView`` instances."""
    records = Path(kwire.__file__).parent / "records"  # read as text: the generator imports no runtime part but wire
    return "\n".join([
        '"""The native RecordsView of a compiled build: pasted from kwire/records/reader.py and batch.py by',
        'kwire.generator.native.inline; edit them there."""',
        "from __future__ import annotations",
        "",
        "from abc import ABCMeta",
        "from collections.abc import Iterator",
        "",
        "from kwire.records.reader import Batch, BatchReader",
        "from kwire.records.reader import RecordsView as _PlainRecordsView",
        "from kwire.records.record import Record",
        "from kwire.wire.errors import DecodeError",
        "",
        "",
        _definition(records / "batch.py", "check_region"),
        "",
        _definition(records / "reader.py", "RecordsView"),
        "",
        "_PlainRecordsView.register(RecordsView)",
        ""])
