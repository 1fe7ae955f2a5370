"""Records into column buffers: the fastest flavour of the decoder that is built and current.

Three flavours, tried in this order, all emitted from the one description of the record layout
(``generator/records/layout.py``):

1. ``c``: ``kwire.records._column_decoder_c``, the generated C of ``column_decoder_c.c`` (keys and
   values copied straight from the input into the column buffers);
2. ``mypyc``: :mod:`kwire.records.column_decoder` compiled by mypyc into
   ``kwire.records._column_decoder_mypyc``;
3. ``python``: that same source as plain Python (no compiler needed).

The platform wheel (``make wheel``) carries the compiled two, ``kwire build-native`` builds them
for an install from source (``make native`` and ``make test`` in a checkout). A compiled flavour
is used only when it was built from the very source beside it: a stale build (the source changed
since), one that does not import (say, on a Spark executor whose C library is older than the
driver's) or one built for another Python or platform is skipped, and :data:`FALLBACK_REASON`
says why; the first two also warn, once. ``KWIRE_RECORD_DECODER=python`` (or ``mypyc``) in the
environment starts the order there on purpose (to compare, or to rule a flavour out).

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
RECORD_LOOP = SOURCE.with_name("_generated_columns.py")
UTF8_SOURCE = SOURCE.with_name("utf8_check.py")
VARINT_SOURCE = Path(varint.__file__)
COMPILED_MODULE = "kwire.records._column_decoder_mypyc"
C_SOURCE = SOURCE.with_name("column_decoder_c.c")
C_MODULE = "kwire.records._column_decoder_c"
CHOICE_VARIABLE = "KWIRE_RECORD_DECODER"
#: The flavours, fastest first.
FLAVOURS = ("c", "mypyc", "python")


def source_digest(source: bytes | None = None) -> str:
    """What a compiled build records as ``BUILT_FROM``: the SHA-256 of the decoder's source and of
    the three the build pastes into it: its generated record loop, :mod:`kwire.records.utf8_check`
    and :mod:`kwire.wire.varint`."""
    decoder = SOURCE.read_bytes() if source is None else source
    pasted = [decoder, RECORD_LOOP.read_bytes(), UTF8_SOURCE.read_bytes(), VARINT_SOURCE.read_bytes()]
    return hashlib.sha256(b"\0".join(pasted)).hexdigest()


def c_source_digest() -> str:
    """What the C flavour's build records as ``BUILT_FROM``: the SHA-256 of its generated C."""
    return hashlib.sha256(C_SOURCE.read_bytes()).hexdigest()


def load_compiled() -> tuple[ModuleType | None, str | None]:
    """``(module, None)`` for a current mypyc build, else ``(None, why not)``."""
    return _load(COMPILED_MODULE, source_digest,
                 f"{SOURCE.name}, {RECORD_LOOP.name}, {UTF8_SOURCE.name} or {VARINT_SOURCE.name}", ("python",))


def load_c() -> tuple[ModuleType | None, str | None]:
    """``(module, None)`` for a current build of the C flavour, else ``(None, why not)``."""
    return _load(C_MODULE, c_source_digest, C_SOURCE.name, ("python", "mypyc"))


def _load(name: str, digest, sources: str, skipped_by: tuple[str, ...]) -> tuple[ModuleType | None, str | None]:
    chosen = os.environ.get(CHOICE_VARIABLE)
    if chosen in skipped_by:
        return None, f"{CHOICE_VARIABLE}={chosen}"
    if name == C_MODULE and not C_SOURCE.is_file():  # (an install whose packaging left it out)
        return None, f"its source {C_SOURCE.name} is not installed"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # a module the build imports (mypyc's librt) is missing
            return None, f"the build does not import: {exc}"
        others = builds_for_other_interpreters(name)
        if others:
            return None, (f"built for another Python or platform ({', '.join(others)}); this one loads "
                          f"*{importlib.machinery.EXTENSION_SUFFIXES[0]}")
        return None, "not built (run: kwire build-native)"
    except ImportError as exc:
        return None, f"the build does not import: {exc}"
    built_from = getattr(module, "BUILT_FROM", None)
    if built_from != digest():
        return None, f"the build is stale: {sources} changed since (run: kwire build-native)"
    return module, None


def builds_for_other_interpreters(module: str = COMPILED_MODULE) -> list[str]:
    """Compiled files of a flavour beside its source that this interpreter does not load."""
    stem = module.rpartition(".")[2]
    loadable = {stem + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES}
    return sorted(path.name for path in SOURCE.parent.glob(stem + ".*")
                  if path.name.endswith((".so", ".pyd")) and path.name not in loadable)


def _unusable(reason: str) -> bool:
    """A build of this interpreter's kind that is present but not used: stale, or does not load
    (not one never built, switched off, or for another Python: :mod:`kwire.spark.shipped` speaks
    for shipped copies of those)."""
    return reason.startswith(("the build is stale", "the build does not import"))


def choose() -> tuple[str, ModuleType, str | None]:
    """``(flavour, module, why not a faster one)``: the first of :data:`FLAVOURS` that loads and is
    current (the reason None when it is the fastest)."""
    reasons: list[tuple[str, str]] = []
    chosen: tuple[str, ModuleType] = ("python", column_decoder)
    for flavour, load in (("c", load_c), ("mypyc", load_compiled)):
        module, why_not = load()
        if module is not None:
            chosen = (flavour, module)
            break
        reasons.append((flavour, why_not))
    unusable = [(flavour, why) for flavour, why in reasons if _unusable(why)]
    if unusable:  # one warning, however many builds were passed over
        warnings.warn(f"kwire: a compiled record decoder is not used ({_why_not_faster(unusable)}); records "
                      f"decode with a slower flavour", RuntimeWarning, stacklevel=2)
    return (*chosen, _why_not_faster(reasons))


def _why_not_faster(reasons: list[tuple[str, str]]) -> str | None:
    """Why each faster flavour was passed over: one reason said once when they all share it (neither
    built, or a choice in the environment), else ``flavour: reason`` each."""
    distinct = {why for _, why in reasons}
    if not distinct:
        return None
    if len(distinct) == 1 and (len(reasons) > 1 or reasons[0][1].startswith(CHOICE_VARIABLE)):
        return distinct.pop()
    return "; ".join(f"{flavour}: {why}" for flavour, why in reasons)


#: "c", "mypyc" or "python": the flavour in use; FALLBACK_REASON: why not a faster one (None for c).
IMPLEMENTATION_NAME, IMPLEMENTATION, FALLBACK_REASON = choose()

ColumnBuilder = IMPLEMENTATION.ColumnBuilder
RecordColumns = IMPLEMENTATION.RecordColumns
