"""Records into column buffers: the compiled decoder when it is built, else the same code as Python.

:mod:`kwire.records.column_decoder` is compiled by mypyc into
``kwire.records._column_decoder_mypyc`` (``make native``, and ``make test``, build it; see
``python -m kwire.generator.native_records --help``). That module is used only when it was built
from the very source beside it: a stale build (the source changed since) or one that does not
import is skipped, and :data:`FALLBACK_REASON` says why. ``KWIRE_RECORD_DECODER=python`` in the
environment skips it on purpose (to compare, or to rule it out).

Usage::

    from kwire.records.columns import ColumnBuilder

    builder = ColumnBuilder()
    for batch in BatchReader(buf):
        batch.add_columns_to(builder)      # magic 2; legacy records: builder.add_record(...)
    columns = builder.finish()             # RecordColumns: Arrow-layout buffers
"""
from __future__ import annotations

import hashlib
import importlib
import os
from pathlib import Path
from types import ModuleType

from kwire.records import column_decoder

SOURCE = Path(column_decoder.__file__)
COMPILED_MODULE = "kwire.records._column_decoder_mypyc"
CHOICE_VARIABLE = "KWIRE_RECORD_DECODER"


def source_digest(source: bytes | None = None) -> str:
    """What a compiled build records as ``BUILT_FROM``: the SHA-256 of the decoder's source."""
    return hashlib.sha256(SOURCE.read_bytes() if source is None else source).hexdigest()


def load_compiled() -> tuple[ModuleType | None, str | None]:
    """``(module, None)`` for a current compiled build, else ``(None, why not)``."""
    if os.environ.get(CHOICE_VARIABLE) == "python":
        return None, f"{CHOICE_VARIABLE}=python"
    try:
        module = importlib.import_module(COMPILED_MODULE)
    except ImportError as exc:
        if getattr(exc, "name", None) == COMPILED_MODULE:
            return None, "not built (make native)"
        return None, f"the build does not import: {exc}"
    built_from = getattr(module, "BUILT_FROM", None)
    if built_from != source_digest():
        return None, f"the build is stale: {SOURCE.name} changed since (make native)"
    return module, None


_compiled, FALLBACK_REASON = load_compiled()
#: The implementation in use: the mypyc build, or the Python source it is compiled from.
IMPLEMENTATION: ModuleType = _compiled if _compiled is not None else column_decoder
#: "mypyc" or "python".
IMPLEMENTATION_NAME = "mypyc" if _compiled is not None else "python"

ColumnBuilder = IMPLEMENTATION.ColumnBuilder
RecordColumns = IMPLEMENTATION.RecordColumns
