"""The steps the plan picks for compiled code (``kwire generate --compile``) where mypyc runs
another read faster than the pure-Python step it replaces (:mod:`.ops`): integers read inline
(librt's big-endian readers; the rarer types through the integer readers of ``_base``) instead
of a ``struct`` call, a struct's leading run of integers read into its native constructor's
arguments, short integer arrays as list displays, keyed arrays appended to through a typed list.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..definitions.model import Field  # noqa: F401  (the inherited constructors' annotations: pdoc resolves them here)
from .code import Lines
from .flavours import Flavour
from .ops import FixedArray, FixedRun, Layout, LayoutName, StructArray  # noqa: F401  (the same)

# Fixed-width types compiled code reads with the integer readers of kwire.wire.struct_base
# (float64 keeps struct: compiled arithmetic has no cheaper way to build a double).
# int16, int32 and int64 (nearly every integer Kafka sends) with librt's readers, which mypyc
# compiles inline; the rarer types through _base.
INTEGER_READERS = {"bool": "read_bool", "int8": "read_int8", "int16": "read_i16_be", "uint16": "read_uint16",
                   "int32": "read_i32_be", "uint32": "read_uint32", "int64": "read_i64_be"}

# Short arrays of integers compiled code reads as a list display, by count.
SHORT_DISPLAY = 3


@dataclass(frozen=True, eq=False)
class IntegerRun(FixedRun):
    """A fixed-width run of integers read with INTEGER_READERS (compiled code: a few machine
    instructions each, no tuple); written with its ``struct`` as any run."""

    def read(self, obj: str, flavour: Flavour) -> Lines:
        reads = integer_reads(self)
        assert reads is not None, "the plan makes an IntegerRun of integers only"
        return [f"{obj}.{attr} = {read}" for attr, read in reads] + [f"pos += {self.width}"]

    def constructor_arguments(self) -> list[tuple[str, str]] | None:
        # Leading a struct, the run is read into the native constructor's arguments: every
        # field is then written once, not first with its default.
        return integer_reads(self)


def integer_reads(run: FixedRun) -> list[tuple[str, str]] | None:
    """(attribute, read expression) of each field of ``run`` with the integer readers, or None
    when a field of the run has none (float64)."""
    reads, offset = [], 0
    for f in run.fields:
        reader = INTEGER_READERS.get(f.type.name)
        if reader is None:
            return None
        reads.append((f.attr_name, f"{reader}(buf, pos{f' + {offset}' if offset else ''})"))
        offset += f.type.fixed_width or 0
    return reads


@dataclass(frozen=True, eq=False)
class IntegerArray(FixedArray):
    """An array of integers in compiled code: short ones are read with INTEGER_READERS, short
    enough ones as a list display."""

    @property
    def one_call(self) -> bool:
        return False  # inline in tagged fields too: in compiled code the reads are C calls, no frame

    def read_short(self) -> str:
        reader = INTEGER_READERS[self.element]
        # Up to SHORT_DISPLAY elements (replicas, in-sync replicas) as a list display: mypyc makes
        # it at its size and stores each item, where a comprehension appends (and grows) element
        # by element and does the index arithmetic in tagged ints.
        n = self.count
        displays = [f"[{', '.join(f'{reader}(buf, pos + {1 + self.width * k})' for k in range(size))}] if {n} == {size}"
                    for size in range(1, SHORT_DISPLAY + 1)]
        return " else ".join(displays + [f"[{reader}(buf, pos + 1 + {self.width} * k) for k in range({n})]"])


@dataclass(frozen=True, eq=False)
class CompiledStructArray(StructArray):
    """An array of structs in compiled code: keyed elements are appended through a typed list
    local, and fixed-width rows of integers are built directly with the integer readers."""

    def collect_elements(self) -> tuple[Lines, str]:
        if not self.keyed:
            return super().collect_elements()
        # Appended to through a local typed list: mypyc calls PyList_Append (a KeyedList is a
        # list that keeps append), instead of looking append up by name on a Python subclass
        # (benchmarks/README.md, "Figures behind design choices").
        keyed, name = f"{self.attr}_keyed", self.layout.struct.name
        return [f"{keyed}: KeyedList[{name}] = KeyedList()",
                f"{self.items}: list[{name}] = {keyed}"], keyed

    def read_rows(self, flavour: Flavour) -> Lines | None:
        layout, item = self.layout, self.item
        run = layout.row_run
        reads = integer_reads(run) if run is not None else None
        if reads is None:
            return None
        width = layout.row_width
        no_tags = f" and buf[pos + {width - 1}] == 0" if layout.flexible else ""
        arguments = ", ".join(f"{attr}={read}" for attr, read in reads)
        return [f"# Elements are usually fixed-width{' with an empty tagged section' if layout.flexible else ''}: "
                "build those directly.",
                f"for index in range({self.count}):",
                f"    if pos + {width} <= size{no_tags}:",
                f"        {item} = {layout.struct.name}({arguments})",
                f"        pos += {width}",
                "    else:",
                f"        {item}, pos = {layout.reader}(buf, pos)",
                f"    {self.items}.append({item})"]
