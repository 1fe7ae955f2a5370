"""The steps a generated reader and writer take (one class per kind of step), and the
layouts they make up (:class:`Layout`: versions of a struct that share generated functions).

Each step knows the code that reads and writes its field(s), and names the runtime
functions of :mod:`kwire.wire.primitives` it calls in full (``read_compact_string_nn``), so
that nothing downstream dispatches on a kind or assembles a function name. The plan
(:mod:`.plan`) decides which step a field becomes and which fast paths it takes, also where pure
and compiled code differ (``IntegerRun``, ``IntegerArray``, ``CompiledStructArray`` are the
compiled flavour's steps, in :mod:`.compiled_ops`); a step only writes code for what it was given, and reads no more
than spellings (the hot readers' names, how an instance is made) from the flavour.

Code comes back as a list of lines at column 0; callers indent. Arguments name the generated
locals the code works on: ``obj`` holds the struct instance, ``out`` the output buffer.
Locals a step makes for itself carry its field's attribute name
(``topics_items``), so that every local has one type (mypy and mypyc need that) and says
what it holds.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import cached_property
from typing import ClassVar

from kwire.wire.primitives import SMALL_ARRAY

from ..definitions.model import Field, Struct
from .code import Lines, indent
from .flavours import Flavour

# --- the runtime functions of length-prefixed types ------------------------------------------


@dataclass(frozen=True)
class LengthPrefixed:
    """The kwire.wire.primitives functions of a string or bytes type in one encoding."""

    read: str           # returns None for a null value
    read_non_null: str  # refuses a null value
    write: str


STRING_FUNCTIONS = {
    False: LengthPrefixed("read_string", "read_string_nn", "write_string"),
    True: LengthPrefixed("read_compact_string", "read_compact_string_nn", "write_compact_string"),
}
BYTES_FUNCTIONS = {
    False: LengthPrefixed("read_bytes", "read_bytes_nn", "write_bytes"),
    True: LengthPrefixed("read_compact_bytes", "read_compact_bytes_nn", "write_compact_bytes"),
}

# The Python type of an array element, for the annotations of the locals that collect them.
PYTHON_ELEMENT_TYPES = {"string": "str", "bytes": "bytes", "records": "bytes", "uuid": "UUID"}

def null_refusal(op: Op) -> str:
    """The error of a writer given None for a field that is not nullable at these versions: it
    names the field, the versions of the writer and those where the field is nullable."""
    f, layout = op.field, op.owner
    where = "this version does"
    if layout is not None:
        plural = len(layout.versions) > 1
        where = f"{layout.struct} version{'s' if plural else ''} {layout.version_text} do{'' if plural else 'es'}"
    allowed = "never nullable" if f.nullable_versions.empty else f"nullable in versions {f.nullable_versions}"
    return f"field {op.attr} is null, which {where} not allow ({allowed})"


def null_refused(op: Op, value: str) -> Lines:
    """A writer's refusal of None, inline (the hot path: no call)."""
    return [f"if {value} is None:", f'    raise EncodeError("{null_refusal(op)}")']


def non_null(op: Op, value: str) -> str:
    """``value`` through the runtime's refusal of None (off the hot path: one line, not two)."""
    return f'_w.non_null({value}, "{null_refusal(op)}")'


# --- steps -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Op:
    """One step of a reader/writer: one field, or a run of fixed-width fields."""

    fields: tuple[Field, ...]
    tag: int | None = dc_field(default=None, kw_only=True)  # set when the field is tagged here
    owner: LayoutName | None = dc_field(default=None, kw_only=True, repr=False)  # the layout of this step
    # A writer refuses None inline (two lines, no call) or through _w.non_null (the plan decides)
    refuses_null_inline: bool = dc_field(default=True, kw_only=True)

    @property
    def reads_buffer_size(self) -> bool:
        """Whether the read's inline fast path compares against the buffer's size (a local)."""
        return False

    @property
    def field(self) -> Field:
        return self.fields[0]

    @property
    def attr(self) -> str:
        return self.fields[0].attr_name

    @property
    def label(self) -> str:
        """The field path element shown in errors (``topics[]`` for an array of structs)."""
        return self.attr

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        """Names of the kwire.wire.primitives functions the generated code of this step calls."""
        return ()

    @property
    def reports_element_index(self) -> bool:
        """Whether a failure names the element (``topics[3]``) the read was in."""
        return False

    def read_step(self, obj: str, flavour: Flavour) -> Lines:
        """The read, after recording the field (and element) that a failure will name."""
        lines = [f'field = "{self.label}"']
        if self.reports_element_index:
            lines.append("index = -1  # no element yet: an error in the count names the array itself")
        return lines + self.read(obj, flavour)

    def write_step(self, obj: str, out: str) -> Lines:
        """The write, after recording the field that a failure will name."""
        return [f'field = "{self.label}"'] + self.write(obj, out)

    def read(self, obj: str, flavour: Flavour) -> Lines:
        raise NotImplementedError

    def write(self, obj: str, out: str) -> Lines:
        raise NotImplementedError

    def value(self, obj: str) -> str:
        return f"{obj}.{self.attr}"


@dataclass(frozen=True, eq=False)
class FixedRun(Op):
    """Consecutive fixed-width fields, read and written with one precompiled ``struct`` call."""

    fmt: str = ""        # big-endian struct format of the run: ">hhq"
    width: int = 0       # bytes of the run
    unpack: str = ""     # the module-level helpers made for this run
    pack: str = ""

    @property
    def label(self) -> str:
        return ", ".join(f.attr_name for f in self.fields)

    def read(self, obj: str, flavour: Flavour) -> Lines:
        """The read through the run's precompiled ``struct``."""
        targets = ", ".join(f"{obj}.{f.attr_name}" for f in self.fields)
        if len(self.fields) == 1:
            targets = f"({targets},)"
        return [f"{targets} = {self.unpack}(buf, pos)", f"pos += {self.width}"]

    def write(self, obj: str, out: str) -> Lines:
        return [f"{out} += {self.pack}({', '.join(f'{obj}.{f.attr_name}' for f in self.fields)})"]

    def constructor_arguments(self) -> list[tuple[str, str]] | None:
        """(attribute, read expression) of each field, where a reader passes the run to the
        struct's constructor instead (compiled runs of integers); None: the run is read as above."""
        return None


def bridge_format(before: FixedRun, after: FixedRun, records: bool = False) -> str:
    """The struct format of two runs with an array's count byte between them (and, with
    ``records``, the first two bytes of the compact records length after them)."""
    return before.fmt + "B" + after.fmt[1:] + ("BB" if records else "")


@dataclass(frozen=True, eq=False)
class EmptyArrayBridge:
    """Two fixed-width runs with a nullable compact array between them that is usually null or
    empty (a FetchResponse partition: its five fixed fields, ``aborted_transactions``, then
    ``preferred_read_replica``).

    Where the flavour allows (:attr:`Flavour.bridges_empty_arrays`, read by the plan), the read tests the count
    byte first and, when it says null or empty, reads both runs and the byte with one
    precompiled ``struct`` call (``unpack``): a call, a tuple and three position updates fewer
    (benchmarks/README.md, "Figures behind design choices"). Any other count takes the three
    steps as usual. Writes are unchanged.

    When a compact ``records`` field follows (a FetchResponse partition's records), the same call
    also reads the first two bytes of its length (``records``): a length of one or two bytes is
    then taken from the tuple instead of two subscripts of the buffer. The call needs those two
    bytes in the buffer, which a partition always has after its length (the batches, or its
    tagged section's count).
    """

    before: FixedRun
    array: ArrayOp
    after: FixedRun
    unpack: str  # the module-level helper reading the three at once
    records: RecordsOp | None = None

    @property
    def width(self) -> int:
        return self.before.width + 1 + self.after.width

    @property
    def fmt(self) -> str:
        return bridge_format(self.before, self.after, self.records is not None)

    def read(self, obj: str, flavour: Flavour) -> Lines:
        array, n = self.array, f"{self.array.attr}_byte"  # the count byte: 0 for null, 1 for empty
        steps = [line for op in (self.before, array, self.after) for line in op.read_step(obj, flavour)]
        targets = ([f"{obj}.{f.attr_name}" for f in self.before.fields] + [n]
                   + [f"{obj}.{f.attr_name}" for f in self.after.fields])
        empty = array.read_empty(obj, flavour, array.empty or "[]")
        records, needed, length_bytes = self.records, self.width, []
        if records is not None:
            second = f"{records.attr}_second"
            targets += [f"{records.attr}_n", second]
            needed += 2
            length_bytes = records.read_length_unpacked(second)
        # Nothing in the fast path can fail (the bounds are checked first), so it sets no
        # ``field``; the step after it sets its own.
        lines = [f"if pos + {needed} <= size and buf[pos + {self.before.width}] <= 1:"
                 f"  # the usual case: {array.attr} null or empty, read with the runs around it",
                 f"    {', '.join(targets)} = {self.unpack}(buf, pos)",
                 f"    if {n} == 0:  # null",
                 *indent(null_read(array.attr, array.nullable, array.value(obj)), 2),
                 *(["    else:", *indent(empty, 2)] if empty else []),
                 f"    pos += {self.width}",
                 *indent(length_bytes),
                 *([f'    field = "{records.label}"'] if records is not None else []),
                 "else:",
                 *indent(steps)]
        if records is None:
            return lines
        return [*lines, f'    field = "{records.label}"', *indent(records.read_length_inline()),
                *records.read_after_length(obj, flavour)]


@dataclass(frozen=True, eq=False)
class UuidOp(Op):
    def read(self, obj: str, flavour: Flavour) -> Lines:
        return [f"{self.value(obj)}, pos = {flavour.hot('read_uuid')}(buf, pos)"]

    def write(self, obj: str, out: str) -> Lines:
        return [f"{out} += _w.uuid_bytes({self.value(obj)})"]

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return ("read_uuid", "uuid_bytes")


@dataclass(frozen=True, eq=False)
class BytesOp(Op):
    """A length-prefixed bytes field (classic or compact, nullable or not)."""

    compact: bool = False
    nullable: bool = False
    functions: ClassVar[dict[bool, LengthPrefixed]] = BYTES_FUNCTIONS

    @property
    def runtime(self) -> LengthPrefixed:
        return self.functions[self.compact]

    @property
    def reader(self) -> str:
        return self.runtime.read if self.nullable else self.runtime.read_non_null

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return (self.reader, self.runtime.write)

    def read(self, obj: str, flavour: Flavour) -> Lines:
        return [f"{self.value(obj)}, pos = _w.{self.reader}(buf, pos)"]

    def write(self, obj: str, out: str) -> Lines:
        value = self.value(obj)
        if self.nullable:
            return [f"_w.{self.runtime.write}({out}, {value})"]
        if not self.refuses_null_inline:
            return [f"_w.{self.runtime.write}({out}, {non_null(self, value)})"]
        return null_refused(self, value) + [f"_w.{self.runtime.write}({out}, {value})"]


@dataclass(frozen=True, eq=False)
class StringOp(BytesOp):
    """A string field; ``short_inline`` reads and writes short compact strings without a call."""

    short_inline: bool = False
    functions: ClassVar[dict[bool, LengthPrefixed]] = STRING_FUNCTIONS

    @property
    def reads_buffer_size(self) -> bool:
        return self.short_inline

    def read(self, obj: str, flavour: Flavour) -> Lines:
        if not self.short_inline:
            return super().read(obj, flavour)
        n, end, value = f"{self.attr}_n", f"{self.attr}_end", self.value(obj)
        # The length + 1 in one byte (below 0x80) is the whole varint. The empty string (offset
        # metadata, ...) and null (error messages, racks, ...) are common enough to come first,
        # with no slice to decode; longer lengths and a null that is refused take the long way.
        null = [f"elif {n} == 0:  # null", f"    {value} = None", "    pos += 1"] if self.nullable else []
        return [f"{n} = buf[pos]  # the length + 1",
                f"if {n} == 1:  # the empty string",
                f'    {value} = ""',
                "    pos += 1",
                *null,
                "else:",
                f"    {end} = pos + {n}",
                f"    if 0 < {n} < 0x80 and {end} <= size:  # the usual case: a short string",
                f"        {value} = buf[pos + 1:{end}].decode()",
                f"        pos = {end}",
                "    else:",
                f"        {value}, pos = _w.{self.reader}(buf, pos)"]

    def write(self, obj: str, out: str) -> Lines:
        if not self.short_inline or self.nullable:
            return super().write(obj, out)
        utf8, value = f"{self.attr}_utf8", self.value(obj)
        return null_refused(self, value) + [
            f"{utf8} = {value}.encode()",
            f"if len({utf8}) < 0x7F:  # the usual case: a one-byte length",
            f"    {out}.append(len({utf8}) + 1)",
            f"    {out} += {utf8}",
            "else:",
            f"    _w.{self.runtime.write}({out}, {value})"]


@dataclass(frozen=True, eq=False)
class RecordsOp(Op):
    """Record batches: read as a lazy view over the input, written from a view or bytes."""

    compact: bool = False
    nullable: bool = False

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return ("read_length", "write_records")

    @property
    def reads_buffer_size(self) -> bool:
        return self.compact

    def read(self, obj: str, flavour: Flavour) -> Lines:
        """A lazy view of the batches over the input buffer (no copy). Compact lengths of one or
        two bytes (batches under 16 kB) are read inline and the view is made without its
        ``__init__`` (the bounds are checked here), or, where the flavour says so, on first read
        (:meth:`view`); anything else goes through the runtime."""
        if not self.compact:
            return self.by_runtime(obj, flavour)
        return self.read_length_inline() + self.read_after_length(obj, flavour)

    def read_length_inline(self) -> Lines:
        """The length + 1 and the start of the batches into locals, where the varint is one or
        two bytes; else a start past the buffer, for the runtime to read it."""
        return [f"{self.attr}_n = buf[pos]  # the length + 1, an unsigned varint",
                *self._length_branches("buf[pos + 1]", guard="pos + 1 < size and ")]

    def read_length_unpacked(self, second: str) -> Lines:
        """The same, from the varint's first two bytes already unpacked into the locals
        ``<attr>_n`` and ``second`` while ``pos`` is at the first (EmptyArrayBridge)."""
        return self._length_branches(second)

    def _length_branches(self, second: str, guard: str = "") -> Lines:
        """From the varint's first byte in ``<attr>_n`` and its second in ``second`` (read only
        past ``guard``): the length + 1 and the start of the batches."""
        length, start = f"{self.attr}_n", f"{self.attr}_start"
        return [f"if {length} < 0x80:",
                f"    {start} = pos + 1",
                f"elif {guard}{second} < 0x80:",
                f"    {length} = {length} & 0x7F | {second} << 7",
                f"    {start} = pos + 2",
                "else:",
                f"    {start} = size + 1  # longer: the runtime reads it below"]

    def read_after_length(self, obj: str, flavour: Flavour) -> Lines:
        """The view, once the inline read left the length + 1 and the start in locals (a start
        past the buffer when the length was not read inline)."""
        length, start, end = f"{self.attr}_n", f"{self.attr}_start", f"{self.attr}_end"
        return [f"{end} = {start} + {length} - 1",
                f"if {start} <= {end} <= size:  # the usual case: not null, and a length that fits",
                *indent(self.view(obj, flavour, start, end)),
                f"    pos = {end}",
                "else:  # null, a length of three bytes or more, or one that does not fit",
                *indent(self.by_runtime(obj, flavour))]

    def by_runtime(self, obj: str, flavour: Flavour) -> Lines:
        length = f"{self.attr}_n"
        return [f"{length}, pos = {flavour.hot('read_length')}(buf, pos, {self.compact})",
                f"if {length} < 0:",
                *indent(null_read(self.attr, self.nullable, self.value(obj))),
                "else:",
                *indent(self.view(obj, flavour, "pos", f"pos + {length}")),
                f"    pos += {length}"]

    def view(self, obj: str, flavour: Flavour, start: str, end: str) -> Lines:
        """Set the field to a RecordsView of ``buf[start:end]``, already checked to fit; or,
        where the flavour makes it on first read, store where it lies (see ``hidden_slots``)."""
        if flavour.records_view_on_first_read:
            buf_slot, start_slot, end_slot = self.hidden_slots
            return [f"{obj}.{buf_slot} = buf  # the view is made on first read (_MADE_FROM_INPUT)",
                    f"{obj}.{start_slot} = {start}",
                    f"{obj}.{end_slot} = {end}"]
        view = f"{self.attr}_view"
        return flavour.records_view(view, start, end) + [f"{self.value(obj)} = {view}"]

    @property
    def hidden_slots(self) -> tuple[str, str, str]:
        """The slots that hold the input, start and end of a view not made yet."""
        return records_hidden_slots(self.attr)

    def write(self, obj: str, out: str) -> Lines:
        value = self.value(obj)
        if self.nullable:
            return [f"_w.write_records({out}, {value}, {self.compact})"]
        if not self.refuses_null_inline:
            return [f"_w.write_records({out}, {non_null(self, value)}, {self.compact})"]
        return null_refused(self, value) + [f"_w.write_records({out}, {value}, {self.compact})"]


def records_hidden_slots(attr: str) -> tuple[str, str, str]:
    """Where a pure reader keeps a records field's input, start and end until its first read."""
    return f"_{attr}_buf", f"_{attr}_start", f"_{attr}_end"


def null_read(attr: str, nullable: bool, value: str) -> Lines:
    """What a reader does on a null count or length: store None, or refuse it."""
    if nullable:
        return [f"{value} = None"]
    return [f'raise DecodeError("non-nullable field {attr} was null", offset=pos)']


@dataclass(frozen=True, eq=False)
class StructOp(Op):
    """A nested struct; a nullable one is preceded by a presence byte."""

    target: Layout | None = None  # the nested struct's layout at these versions
    nullable: bool = False

    @property
    def layout(self) -> Layout:
        assert self.target is not None
        return self.target

    @property
    def null_marker(self) -> str:
        """The byte that says "null": 0 in a tagged field, int8 -1 elsewhere (as Kafka writes)."""
        return "0" if self.tag is not None else "0xFF"

    @property
    def null_test(self) -> str:
        """The reader's test of the presence byte: Kafka reads any negative int8 as null."""
        return "== 0" if self.tag is not None else ">= 0x80"

    def read(self, obj: str, flavour: Flavour) -> Lines:
        value, reader, version = self.value(obj), self.layout.reader, self.layout.version_argument
        if not self.nullable:
            return [f"{value}, pos = {reader}(buf, pos{version})"]
        return [f"if buf[pos] {self.null_test}:  # the null marker",
                f"    {value} = None",
                "    pos += 1",
                "else:",
                f"    {value}, pos = {reader}(buf, pos + 1{version})"]

    def write(self, obj: str, out: str) -> Lines:
        value, writer, version = self.value(obj), self.layout.writer, self.layout.version_argument
        if not self.nullable and not self.refuses_null_inline:
            return [f"{writer}({non_null(self, value)}, {out}{version})"]
        if not self.nullable:
            return null_refused(self, value) + [f"{writer}({value}, {out}{version})"]
        return [f"if {value} is None:",
                f"    {out}.append({self.null_marker})  # the null marker",
                "else:",
                f"    {out}.append(1)",
                f"    {writer}({value}, {out}{version})"]


@dataclass(frozen=True, eq=False)
class ArrayOp(Op):
    """What arrays share: the count (classic int32, or compact uvarint n+1) and null handling.

    With ``short_inline`` (compact arrays) a one-byte count is read and written inline; a
    subclass says how the elements go.
    """

    compact: bool = False
    nullable: bool = False
    short_inline: bool = False
    # A read of no elements leaves the field unset (its first read makes it, from _LAZY_DEFAULTS):
    # the plan's choice where the flavour allows it and the field's default is an empty array.
    left_unset_when_empty: bool = False

    @property
    def reads_buffer_size(self) -> bool:
        return self.short_inline

    @property
    def reports_element_index(self) -> bool:
        return True  # elements are read one by one (FixedArray reads them all at once)

    @property
    def keyed(self) -> bool:
        """Whether the array is a KeyedList (its elements are structs with map keys)."""
        return False

    @property
    def items(self) -> str:
        return f"{self.attr}_items"

    @property
    def item(self) -> str:
        return f"{self.attr}_item"

    @property
    def count(self) -> str:
        return f"{self.attr}_n"

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return ("read_count", "write_count")

    # reading
    def read(self, obj: str, flavour: Flavour) -> Lines:
        if not self.short_inline:
            return self.read_counted(obj, flavour, self.read_count(flavour))
        n = self.count
        counted = self.read_counted(obj, flavour, [
            f"if {n} < 0x7F and {n} < size - pos:  # the usual case: a one-byte count that fits",
            "    pos += 1",
            "else:",
            *indent(self.read_count(flavour))])
        if not self.empty:
            return [f"{n} = buf[pos] - 1", *counted]
        return [f"{n} = buf[pos] - 1", *self.empty_first(obj, flavour, self.empty, counted)]

    def empty_first(self, obj: str, flavour: Flavour, new_empty: str, otherwise: Lines) -> Lines:
        """An empty array (aborted transactions, offline replicas, ...) is common enough to be
        settled first, with one comparison on the count already read; ``otherwise`` reads any
        other count."""
        return [f"if {self.count} == 0:  # empty: a count byte of 1",
                "    pos += 1" + ("  # the field is left unset" if self.left_unset_when_empty else ""),
                *indent(self.read_empty(obj, flavour, new_empty)),
                "else:",
                *indent(otherwise)]

    def read_empty(self, obj: str, flavour: Flavour, new_empty: str) -> Lines:
        """What a read of no elements does: nothing where the field is left unset (its first read
        makes it, from _LAZY_DEFAULTS), else set ``new_empty``, a new empty array."""
        if self.left_unset_when_empty:
            return []
        return [f"{self.value(obj)} = {new_empty}"]

    def read_count(self, flavour: Flavour) -> Lines:
        """The count through the runtime (which checks it against the bytes left)."""
        return [f"{self.count}, pos = {flavour.hot('read_count')}(buf, pos, {self.compact})"]

    def read_counted(self, obj: str, flavour: Flavour, count: Lines) -> Lines:
        """``count`` (code that reads the count), then null, empty or the elements. (A count of 0
        reaches here even after the one-byte fast path: a varint may spell 1 in more bytes.)"""
        if not self.empty:
            empty: Lines = []
        else:
            empty = [f"elif {self.count} == 0:  # no element: no loop to set up",
                     *indent(self.read_empty(obj, flavour, self.empty)
                             or ["pass  # left unset: its first read makes it (_LAZY_DEFAULTS)"])]
        return [*count,
                f"if {self.count} < 0:", *indent(null_read(self.attr, self.nullable, self.value(obj))),
                *empty,
                "else:", *indent(self.read_elements(obj, flavour))]

    @property
    def empty(self) -> str:
        """A new empty array, for the read of a count of 0 ('' when the elements' read is as cheap)."""
        return "KeyedList()" if self.keyed else "[]"

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        raise NotImplementedError

    # writing
    def write(self, obj: str, out: str) -> Lines:
        items = self.items
        long_count = [f"_w.write_count({out}, len({items}), {self.compact})"]
        if not self.nullable and not self.refuses_null_inline and not self.short_inline:
            return [f"{items} = {non_null(self, self.value(obj))}", *long_count, *self.write_elements(out)]
        lines = [f"{items} = {self.value(obj)}", f"if {items} is None:"]
        if self.nullable:
            lines.append(f"    _w.write_count({out}, None, {self.compact})")
        else:
            lines += indent(null_refused(self, items)[1:])
        if not self.short_inline:
            return lines + ["else:", *indent(long_count + self.write_elements(out))]
        short_count = [f"{out}.append(len({items}) + 1)"]
        short = self.write_short(out)
        if short is not None:  # short arrays are written another way: a branch each
            return lines + [f"elif len({items}) < {SMALL_ARRAY}:"
                            "  # the usual case: a short array with a one-byte count",
                            *indent(short_count + short),
                            "else:", *indent(long_count + self.write_elements(out))]
        # Either count, then the one element loop (written once, not once per count).
        count = [f"if len({items}) < {SMALL_ARRAY}:  # the usual case: a short array with a one-byte count",
                 *indent(short_count), "else:", *indent(long_count)]
        if self.nullable:
            return lines + ["else:", *indent(count + self.write_elements(out))]
        # (the None branch raised: the count's branches continue its if, the loop follows)
        return lines + ["el" + count[0], *count[1:], *self.write_elements(out)]

    def write_short(self, out: str) -> Lines | None:
        """The elements of an array shorter than SMALL_ARRAY after its one-byte count, where they
        are written another way than those of a longer array; None (one loop after either count)
        where not."""
        return None

    def write_elements(self, out: str) -> Lines:
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class FixedArray(ArrayOp):
    """An array of a fixed-width type. Compact arrays shorter than SMALL_ARRAY read and write
    with one precompiled ``struct`` per length (``unpack`` / ``pack``, indexed by count)."""

    code: str = ""      # struct code of one element: "i"
    width: int = 0      # bytes of one element
    element: str = ""   # the element type: int32
    unpack: str = ""    # module-level tables of precompiled structs, when short_inline
    pack: str = ""

    @property
    def reports_element_index(self) -> bool:
        return False

    @property
    def one_call(self) -> bool:
        """A tagged nullable compact array: read and written by one runtime call that holds the
        inline fast path, said once instead of per field and version (a tagged field is read at
        most once per struct, in the tag loop, so the call costs its struct one frame at most)."""
        return self.short_inline and self.tag is not None and self.nullable and not self.left_unset_when_empty

    @property
    def reads_buffer_size(self) -> bool:
        return self.short_inline and not self.one_call

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        if self.one_call:
            return ("read_nullable_fixed_array", "write_nullable_fixed_array")
        shared = ("read_fixed_array", "write_fixed_array", "write_count")
        return shared + (("UNPACK_ARRAY", "PACK_ARRAY") if self.short_inline else ("read_count",))

    def read(self, obj: str, flavour: Flavour) -> Lines:
        if self.one_call:
            return [f'{self.value(obj)}, pos = _w.read_nullable_fixed_array(buf, pos, "{self.code}", {self.width})']
        if not self.short_inline:
            return super().read(obj, flavour)
        # An empty array first, then the count byte and the elements in one bound check; anything
        # else takes the long way.
        n, end, value = self.count, f"{self.attr}_end", self.value(obj)
        return [f"{n} = buf[pos] - 1", *self.empty_first(obj, flavour, "[]", [
                f"{end} = pos + 1 + {n} * {self.width}",
                f"if 0 < {n} < {SMALL_ARRAY} and {end} <= size:  # the usual case: a short array",
                f"    {value} = {self.read_short()}",
                f"    pos = {end}",
                "else:",
                *indent(self.read_counted(obj, flavour, self.read_count(flavour)))])]

    def read_short(self) -> str:
        """The expression reading ``count`` (< SMALL_ARRAY) elements after the count byte."""
        return f"[*{self.unpack}[{self.count}](buf, pos + 1)]  # [*t] beats list(t) by a call"

    @property
    def empty(self) -> str:
        return ""  # one runtime call reads any count

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        return [f'{self.value(obj)}, pos = _w.read_fixed_array(buf, pos, {self.count}, "{self.code}", {self.width})']

    def write(self, obj: str, out: str) -> Lines:
        if self.one_call:
            return [f'_w.write_nullable_fixed_array({out}, {self.value(obj)}, "{self.code}")']
        return super().write(obj, out)

    def write_short(self, out: str) -> Lines:
        return [f"{out} += {self.pack}[len({self.items})](*{self.items})"]

    def write_elements(self, out: str) -> Lines:
        return [f'_w.write_fixed_array({out}, {self.items}, "{self.code}")']


@dataclass(frozen=True, eq=False)
class UuidArray(ArrayOp):
    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        return element_loop(self, obj, "UUID", f"{flavour.hot('read_uuid')}(buf, pos)")

    def write_elements(self, out: str) -> Lines:
        return [f"for {self.item} in {self.items}:", f"    {out} += _w.uuid_bytes({self.item})"]

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return super().runtime_functions + ("read_uuid", "uuid_bytes")


@dataclass(frozen=True, eq=False)
class BytesArray(ArrayOp):
    """An array of strings or bytes (no element may be null)."""

    element: str = "bytes"  # string, bytes or records

    @property
    def element_runtime(self) -> LengthPrefixed:
        return (STRING_FUNCTIONS if self.element == "string" else BYTES_FUNCTIONS)[self.compact]

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        e = self.element_runtime
        return super().runtime_functions + (e.read_non_null, e.write)

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        python_type = PYTHON_ELEMENT_TYPES[self.element]
        return element_loop(self, obj, python_type, f"_w.{self.element_runtime.read_non_null}(buf, pos)")

    def write_elements(self, out: str) -> Lines:
        item = self.item
        return [f"for {item} in {self.items}:",
                f"    if {item} is None:",
                f'        raise EncodeError("null element in array {self.attr}")',
                f"    _w.{self.element_runtime.write}({out}, {item})"]


def element_loop(op: ArrayOp, obj: str, python_type: str, read_one: str) -> Lines:
    """Read ``op.count`` elements one by one, each with the expression ``read_one``."""
    return [f"{op.items}: list[{python_type}] = []",
            f"for index in range({op.count}):",
            f"    {op.item}, pos = {read_one}",
            f"    {op.items}.append({op.item})",
            f"{op.value(obj)} = {op.items}"]


@dataclass(frozen=True, eq=False)
class StructArray(ArrayOp):
    """An array of structs (a KeyedList when the struct has map keys).

    ``rows`` is set when every element is one fixed-width run (and, in flexible versions, an
    empty tagged section): all rows are then read with one ``struct.iter_unpack``. ``inline``
    reads each element inside the loop (the element layout's steps) instead of calling its
    reader: a call costs CPython a frame and a tuple.
    """

    target: Layout | None = None
    rows: str = ""  # the module-level row reader, when the rows fast path applies
    inline: bool = False  # the plan reads each element inside the loop, without a call

    @property
    def layout(self) -> Layout:
        assert self.target is not None
        return self.target

    @property
    def label(self) -> str:
        return f"{self.attr}[]"

    @property
    def reads_buffer_size(self) -> bool:
        # compiled rows check it, and so may the steps of an element read inline
        return self.short_inline or bool(self.rows) or (self.inline and self.layout.reads_buffer_size)

    @property
    def keyed(self) -> bool:
        return bool(self.field.struct and self.field.struct.map_key_fields)

    @property
    def container(self) -> str:
        return "KeyedList" if self.keyed else "list"

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        rows = self.read_rows(flavour) if self.rows else None
        new_items, result = self.collect_elements()
        return [*new_items,
                *(rows if rows is not None else self.read_one_by_one(flavour)),
                f"{self.value(obj)} = {result}"]

    def collect_elements(self) -> tuple[Lines, str]:
        """Make ``items``, the empty local the elements are appended to; and the expression the
        field is then set to."""
        empty = "KeyedList()" if self.keyed else "[]"
        return [f"{self.items}: {self.container}[{self.layout.struct.name}] = {empty}"], self.items

    def read_rows(self, flavour: Flavour) -> Lines | None:
        """The elements when each is one fixed-width run (``rows``): one ``iter_unpack`` over
        them all; None reads them one by one."""
        layout, items, item = self.layout, self.items, self.item
        cls, width, n = layout.struct.name, layout.row_width, self.count
        end, rows, row = f"{self.attr}_end", f"{self.attr}_rows", f"{self.attr}_row"
        targets = [f"{item}.{f.attr_name}" for f in layout.row_fields] + (["_"] if layout.flexible else [])
        unpacked = f"({targets[0]},)" if len(targets) == 1 else ", ".join(targets)
        # In flexible versions each row ends with its tagged-field count, which must be 0.
        no_tags = f" and not any({rows}[{width - 1}::{width}])" if layout.flexible else ""
        return [f"# Every element is fixed-width{' with an empty tagged section' if layout.flexible else ''}: "
                "one iter_unpack for all.",
                f"{end} = pos + {n} * {width}",
                f"{rows} = buf[pos:{end}]",
                f"if len({rows}) == {n} * {width}{no_tags}:",
                f"    for {row} in {self.rows}({rows}):",
                f"        {item} = {flavour.blank(cls)}",
                f"        {unpacked} = {row}",
                f"        {item}.unknown_tagged_fields = ()",
                f"        {items}.append({item})",
                f"    pos = {end}",
                "else:",
                *indent(self.read_one_by_one(flavour, inline=False))]

    @property
    def loop_index(self) -> str:
        """The loop's local when elements are read inline (``index`` is theirs to set)."""
        return f"{self.attr}_index"

    def read_one_by_one(self, flavour: Flavour, inline: bool = True) -> Lines:
        if not inline or not self.inline:
            return [f"for index in range({self.count}):",
                    f"    {self.item}, pos = {self.layout.reader}(buf, pos)",
                    f"    {self.items}.append({self.item})"]
        # The element's reader without the call: its steps set field and index as they go, so a
        # failure is named by them first, then (as the call's caller would) by this array.
        return [f"for {self.loop_index} in range({self.count}):",
                "    try:",
                *indent(self.layout.element_read(self.item, flavour), 2),
                "    except _w.DECODE_FAILURES as error:",
                "        failure = _w.decode_failure(error, field, index, pos)",
                f'        field, index = "{self.label}", {self.loop_index}',
                "        raise failure from None",
                f"    {self.items}.append({self.item})",
                f'field, index = "{self.label}", {self.loop_index}  # as the last call would have left them']

    def write_elements(self, out: str) -> Lines:
        return [f"for {self.item} in {self.items}:", f"    {self.layout.writer}({self.item}, {out})"]


def version_test(f: Field, versions: tuple[int, ...]) -> tuple[str, str]:
    """The tests of the local ``version`` that hold at exactly those of ``versions`` (a layout's,
    ascending) where ``f`` is on the wire, and where it is not: a field's versions are one range."""
    low, high = f.versions.lowest, f.versions.highest
    above, below = versions[0] < low, versions[-1] > high
    if low == high:
        return f"version == {low}", f"version != {low}"
    if above and below:
        return f"{low} <= version <= {high}", f"not {low} <= version <= {high}"
    return (f"version >= {low}", f"version < {low}") if above else (f"version <= {high}", f"version > {high}")


@dataclass(frozen=True, eq=False)
class VersionTest(Op):
    """Fields that only some versions of the layout have (off the hot path, where one function
    serves a struct's versions): their ``steps`` run under ``test``, a test of the version. The
    other versions (``lacking``) leave the fields at their defaults when reading, and writing
    refuses a value that is not the default unless the field is ignorable (as a layout without
    the field does)."""

    steps: tuple[Op, ...] = ()
    test: str = ""         # "version >= 3"
    absent_test: str = ""  # the test of the versions that lack the fields: "version < 3"
    lacking: str = ""      # the versions of the layout without the fields: "0-2"

    @property
    def reads_buffer_size(self) -> bool:
        return any(op.reads_buffer_size for op in self.steps)

    @property
    def reports_element_index(self) -> bool:
        return any(op.reports_element_index for op in self.steps)

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return tuple(name for op in self.steps for name in op.runtime_functions)

    def read_step(self, obj: str, flavour: Flavour) -> Lines:
        return [f"if {self.test}:", *indent([line for op in self.steps for line in op.read_step(obj, flavour)])]

    def write_step(self, obj: str, out: str) -> Lines:
        return [f"if {self.test}:", *indent([line for op in self.steps for line in op.write_step(obj, out)])]


# --- the tagged section ----------------------------------------------------------------------


def read_tagged_section(obj: str, tagged: list[tuple[int, str, Lines]], flavour: Flavour) -> Lines:
    """The read of a flexible struct's tagged section, the last step of its reader.

    ``tagged`` holds (tag, attribute, read of its payload) for each tagged field the layout
    knows, in tag order; tags it does not know are kept as they came.
    """
    lines = ['field = "(tagged fields)"',
             "if buf[pos] == 0:",
             "    pos += 1",
             f"    {obj}.unknown_tagged_fields = ()"]
    if not tagged:
        return lines + ["else:  # tags these versions do not know, kept as they came",
                        f"    {obj}.unknown_tagged_fields, pos = _w.read_unknown_tagged_fields(buf, pos)"]
    dispatch: Lines = []
    for i, (tag, attr, read) in enumerate(tagged):
        dispatch += [f"{'if' if i == 0 else 'elif'} tag == {tag}:",
                     *indent(read),
                     "    if pos != end:",
                     f'        raise DecodeError(f"tagged field {tag} ({attr}) ends at byte {{pos}}, its payload at '
                     '{end}", offset=pos)']
    return lines + [
        "else:",
        "    # One-byte counts, tags and sizes are the usual case: read those inline (no calls).",
        "    count = buf[pos]",
        "    if count < 0x80 and 2 * count < len(buf) - pos:",
        "        pos += 1",
        "    else:",
        f"        count, pos = {flavour.hot('read_tag_count')}(buf, pos)",
        "    unknown = []",
        "    for _ in range(count):",
        "        if pos + 1 < len(buf) and buf[pos] < 0x80 and buf[pos + 1] < 0x80"
        " and pos + 2 + buf[pos + 1] <= len(buf):",
        "            tag = buf[pos]",
        "            end = pos + 2 + buf[pos + 1]",
        "            pos += 2",
        "        else:",
        f"            tag, end, pos = {flavour.hot('read_tag_header')}(buf, pos)",
        *indent(dispatch, 2),
        "        else:",
        "            unknown.append((tag, buf[pos:end]))",
        "            pos = end",
        f"    {obj}.unknown_tagged_fields = tuple(unknown)"]


# --- layouts -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class LayoutName:
    """A layout by name: its struct and versions, which name its generated functions (and which
    a step's refusals name)."""

    struct: str
    versions: tuple[int, ...]

    @cached_property
    def suffix(self) -> str:
        v = self.versions
        if v == tuple(range(v[0], v[-1] + 1)):
            return f"v{v[0]}" if len(v) == 1 else f"v{v[0]}_{v[-1]}"
        return "v" + "_".join(map(str, v))

    @property
    def version_text(self) -> str:
        v = self.versions
        if len(v) == 1:
            return str(v[0])
        return f"{v[0]}-{v[-1]}" if v == tuple(range(v[0], v[-1] + 1)) else ",".join(map(str, v))


@dataclass(frozen=True, eq=False)
class Layout:
    """Versions of one struct that share generated functions, and the steps of their reads and
    writes, as the plan (:mod:`.plan`) chose them: on the hot path versions with one wire layout;
    off it versions of one encoding that agree on how each field they have is encoded (the fields
    some of them lack are :class:`VersionTest` steps, and the functions take the version)."""

    struct: Struct
    name: LayoutName
    flexible: bool
    ops: tuple[Op, ...]
    tagged: tuple[Op, ...]  # in tag order, as on the wire
    absent: tuple[Field, ...]
    # id(first run) -> the bridge that reads it, the array after it and the run after that
    bridges: Mapping[int, EmptyArrayBridge]
    # (attribute, expression) of the fields no read at these versions sets and that are not made
    # on first access: a new instance gets them
    defaults: tuple[tuple[str, str], ...]
    # An empty tagged section is read and written inline (the plan's
    # tests_empty_tag_section_inline); otherwise a section of tags the layout does not know goes
    # through the runtime in one call
    inline_tag_section: bool = True
    # Its functions take the struct's version (off the hot path, where one function serves
    # several layouts' versions: plan.one_function_per_encoding), and pass it on to nested structs
    takes_version: bool = False

    @property
    def version_argument(self) -> str:
        """What a call of this layout's functions passes after its usual arguments."""
        return ", version" if self.takes_version else ""

    @property
    def versions(self) -> tuple[int, ...]:
        return self.name.versions

    @property
    def suffix(self) -> str:
        return self.name.suffix

    @property
    def version_text(self) -> str:
        return self.name.version_text

    @property
    def reader(self) -> str:
        return f"_read_{self.struct.name}_{self.suffix}"

    @property
    def writer(self) -> str:
        return f"_write_{self.struct.name}_{self.suffix}"

    @property
    def row_run(self) -> FixedRun | None:
        """The one fixed-width run that is the whole layout (no other field, none tagged or
        absent), or None."""
        if self.absent or self.tagged or len(self.ops) != 1 or not isinstance(self.ops[0], FixedRun):
            return None
        return self.ops[0]

    @property
    def row_format(self) -> str:
        """The struct format of one element read as a row: the run, then (flexible) the
        tagged-field count byte, which must be 0 for the row to be read this way."""
        assert self.row_run is not None
        return self.row_run.fmt + ("B" if self.flexible else "")

    @property
    def row_fields(self) -> tuple[Field, ...]:
        return self.row_run.fields if self.row_run is not None else ()

    @property
    def row_width(self) -> int:
        return self.fixed_size + (1 if self.flexible else 0)

    @property
    def reads_buffer_size(self) -> bool:
        """Whether the reader keeps ``len(buf)`` in a local for its steps' fast paths."""
        return any(op.reads_buffer_size for op in self.ops + self.tagged)

    @property
    def inline_attrs(self) -> set[str]:
        """Attribute names of the fields a read of this layout sets, with those of the elements
        it reads inline (their steps' locals are named after them)."""
        names = {f.attr_name for op in self.ops + self.tagged for f in op.fields}
        for op in self.ops + self.tagged:
            if isinstance(op, StructArray) and op.inline:
                names |= op.layout.inline_attrs
        return names

    @property
    def reports_element_index(self) -> bool:
        """Whether a read failure may name an element (the reader then keeps an ``index``)."""
        return any(op.reports_element_index for op in self.ops + self.tagged)

    @property
    def arrays(self) -> list[ArrayOp]:
        """The untagged arrays, which every read of the layout sets."""
        return [op for op in self.ops if isinstance(op, ArrayOp)]

    @property
    def fixed_size(self) -> int:
        """Bytes written by the untagged fixed-width runs."""
        return sum(op.width for op in self.ops if isinstance(op, FixedRun))

    def constructed_run(self) -> FixedRun | None:
        """The struct's leading run when its reads go to the constructor (compiled runs of
        integers, see FixedRun.constructor_arguments): the instance is then made inside the
        reader's ``try``, with those fields, rather than made whole and then overwritten."""
        first = self.ops[0] if self.ops else None
        if isinstance(first, FixedRun) and id(first) not in self.bridges and first.constructor_arguments():
            return first
        return None

    def new_instance(self, obj: str, flavour: Flavour, given: list[tuple[str, str]] | None = None) -> Lines:
        """Make the instance ``obj`` that a read fills (``given``: fields read as its arguments)."""
        if given is None and self.constructed_run() is not None:
            return []  # made by the first read step
        arrays = [(op.attr, op.keyed) for op in self.arrays]
        return flavour.new_instance(self.struct.name, obj, arrays=arrays, defaults=list(self.defaults),
                                    given=given or [])

    def read_steps(self, obj: str, flavour: Flavour) -> Lines:
        """Every step of a read into ``obj``, the tagged section last (inside the reader's try)."""
        lines: Lines = []
        ops = iter(self.ops)
        constructed = self.constructed_run()
        for op in ops:
            bridge = self.bridges.get(id(op))
            if op is constructed:
                lines += [f'field = "{op.label}"', *self.new_instance(obj, flavour, op.constructor_arguments()),
                          f"pos += {op.width}"]
            elif bridge is None:
                lines += op.read_step(obj, flavour)
            else:  # the run, the array and the run after it (and the records after those)
                lines += bridge.read(obj, flavour)
                next(ops), next(ops)
                if bridge.records is not None:
                    next(ops)
        if not self.flexible:
            return lines + [f"{obj}.unknown_tagged_fields = ()"]
        if not self.tagged and not self.inline_tag_section:
            return lines + ['field = "(tagged fields)"',
                            f"{obj}.unknown_tagged_fields, pos = _w.read_unknown_tagged_fields(buf, pos)"]
        tagged = [(op.tag, op.attr, op.read_step(obj, flavour)) for op in self.tagged]
        return lines + read_tagged_section(obj, tagged, flavour)  # type: ignore[arg-type]

    def element_read(self, item: str, flavour: Flavour) -> Lines:
        """The whole read of one element into the local ``item``, for an array that reads its
        elements inline."""
        return self.new_instance(item, flavour) + self.read_steps(item, flavour)
