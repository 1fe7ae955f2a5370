"""Records into column buffers: the compiled decoder when it is built, else the same code as Python.

:mod:`kwire.records.column_decoder` is compiled by mypyc into
``kwire.records._column_decoder_mypyc``: the platform wheel (``make wheel``) carries it, ``kwire
build-native`` builds it for an install from source (``make native`` and ``make test`` in a
checkout). That module is used only when it was built
from the very source beside it: a stale build (the source changed since), one that does not
import (say, on a Spark executor whose C library is older than the driver's) or one built for
another Python or platform is skipped, and :data:`FALLBACK_REASON` says why; the first two also
warn, once. ``KWIRE_RECORD_DECODER=python`` in the environment skips it on purpose (to compare, or
to rule it out).

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
import importlib.machinery
import os
import warnings
from pathlib import Path
from types import ModuleType

from kwire.records import column_decoder
from kwire.wire import varint

SOURCE = Path(column_decoder.__file__)
VARINT_SOURCE = Path(varint.__file__)
COMPILED_MODULE = "kwire.records._column_decoder_mypyc"
CHOICE_VARIABLE = "KWIRE_RECORD_DECODER"


def source_digest(source: bytes | None = None) -> str:
    """What a compiled build records as ``BUILT_FROM``: the SHA-256 of the decoder's source and of
    :mod:`kwire.wire.varint`, which the build pastes into it."""
    decoder = SOURCE.read_bytes() if source is None else source
    return hashlib.sha256(decoder + b"\0" + VARINT_SOURCE.read_bytes()).hexdigest()


def load_compiled() -> tuple[ModuleType | None, str | None]:
    """``(module, None)`` for a current compiled build, else ``(None, why not)``."""
    if os.environ.get(CHOICE_VARIABLE) == "python":
        return None, f"{CHOICE_VARIABLE}=python"
    try:
        module = importlib.import_module(COMPILED_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != COMPILED_MODULE:  # a module the build imports (mypyc's librt) is missing
            return None, f"the build does not import: {exc}"
        others = builds_for_other_interpreters()
        if others:
            return None, (f"built for another Python or platform ({', '.join(others)}); this one loads "
                          f"*{importlib.machinery.EXTENSION_SUFFIXES[0]}")
        return None, "not built (run: kwire build-native)"
    except ImportError as exc:
        return None, f"the build does not import: {exc}"
    built_from = getattr(module, "BUILT_FROM", None)
    if built_from != source_digest():
        return None, f"the build is stale: {SOURCE.name} or {VARINT_SOURCE.name} changed since (run: kwire build-native)"
    return module, None


def builds_for_other_interpreters() -> list[str]:
    """Compiled files of the decoder beside its source that this interpreter does not load."""
    stem = COMPILED_MODULE.rpartition(".")[2]
    loadable = {stem + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES}
    return sorted(path.name for path in SOURCE.parent.glob(stem + ".*")
                  if path.name.endswith((".so", ".pyd")) and path.name not in loadable)


def warn_if_unusable(reason: str | None) -> None:
    """Warn when a build of this interpreter's kind is present but not used: a stale build, or
    one that does not load (not when it was never built, or is switched off, or is for another
    Python: :mod:`kwire.spark.shipped` speaks for shipped copies of those)."""
    if reason is not None and reason.startswith(("the build is stale", "the build does not import")):
        warnings.warn(f"kwire: the compiled record decoder is not used ({reason}); records decode as "
                      f"plain Python, over ten times slower", RuntimeWarning, stacklevel=2)


_compiled, FALLBACK_REASON = load_compiled()
warn_if_unusable(FALLBACK_REASON)
#: The implementation in use: the mypyc build, or the Python source it is compiled from.
IMPLEMENTATION: ModuleType = _compiled if _compiled is not None else column_decoder
#: "mypyc" or "python".
IMPLEMENTATION_NAME = "mypyc" if _compiled is not None else "python"

ColumnBuilder = IMPLEMENTATION.ColumnBuilder
RecordColumns = IMPLEMENTATION.RecordColumns
