"""The steps a generated reader and writer take: one class per kind of step.

Each step knows the code that reads and writes its field(s), and names the runtime
functions of :mod:`kwire.wire.primitives` it calls in full (``read_compact_string_nn``), so
that nothing downstream dispatches on a kind or assembles a function name. The plan
(:mod:`.plan`) decides which step a field becomes and which fast paths it takes; a step only
writes code for what it was given.

Code comes back as a list of lines at column 0; callers indent. Arguments name the generated
locals the code works on: ``obj`` holds the struct instance, ``out`` the output buffer.
Locals a step makes for itself carry its field's attribute name
(``topics_items``), so that every local has one type (mypy and mypyc need that) and says
what it holds.
"""
from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from kwire.wire.primitives import SMALL_ARRAY

from ..model import Field
from .code import Lines, indent

if TYPE_CHECKING:
    from .flavours import Flavour
    from .plan import Layout

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


def null_refusal(op: "Op") -> str:
    """The error of a writer given None for a field that is not nullable at these versions: it
    names the field, the versions of the writer and those where the field is nullable."""
    f, layout = op.field, op.owner
    where = "this version does"
    if layout is not None:
        plural = len(layout.versions) > 1
        where = f"{layout.struct.name} version{'s' if plural else ''} {layout.version_text} do{'' if plural else 'es'}"
    allowed = "never nullable" if f.nullable_versions.empty else f"nullable in versions {f.nullable_versions}"
    return f"field {op.attr} is null, which {where} not allow ({allowed})"


def null_refused(op: "Op", value: str) -> Lines:
    """A writer's refusal of None, inline (the hot path: no call)."""
    return [f"if {value} is None:", f'    raise EncodeError("{null_refusal(op)}")']


def non_null(op: "Op", value: str) -> str:
    """``value`` through the runtime's refusal of None (off the hot path: one line, not two)."""
    return f'_w.non_null({value}, "{null_refusal(op)}")'


# --- steps -----------------------------------------------------------------------------------


@dataclass(eq=False)
class Op:
    """One step of a reader/writer: one field, or a run of fixed-width fields."""

    fields: list[Field]
    tag: int | None = dc_field(default=None, kw_only=True)  # set when the field is tagged here
    owner: Layout | None = dc_field(default=None, kw_only=True, repr=False)  # the layout of this step (set by the plan)
    # A writer refuses None inline (two lines, no call) or through _w.non_null (set by the plan)
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


@dataclass(eq=False)
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
        return flavour.read_fixed_run(self, obj)

    def read_with_struct(self, obj: str) -> Lines:
        """The read through the run's precompiled ``struct``."""
        targets = ", ".join(f"{obj}.{f.attr_name}" for f in self.fields)
        if len(self.fields) == 1:
            targets = f"({targets},)"
        return [f"{targets} = {self.unpack}(buf, pos)", f"pos += {self.width}"]

    def write(self, obj: str, out: str) -> Lines:
        return [f"{out} += {self.pack}({', '.join(f'{obj}.{f.attr_name}' for f in self.fields)})"]


@dataclass(eq=False)
class EmptyArrayBridge:
    """Two fixed-width runs with a nullable compact array between them that is usually null or
    empty (a FetchResponse partition: its five fixed fields, ``aborted_transactions``, then
    ``preferred_read_replica``).

    Where the flavour allows (:attr:`Flavour.bridges_empty_arrays`), the read tests the count
    byte first and, when it says null or empty, reads both runs and the byte with one
    precompiled ``struct`` call (``unpack``): a call, a tuple and three position updates fewer,
    ~700 instructions a FetchResponse partition in CPython 3.11. Any other count takes the three
    steps as usual. Writes are unchanged.
    """

    before: FixedRun
    array: ArrayOp
    after: FixedRun
    unpack: str = ""  # the module-level helper reading the three at once

    @property
    def width(self) -> int:
        return self.before.width + 1 + self.after.width

    @property
    def fmt(self) -> str:
        return self.before.fmt + "B" + self.after.fmt[1:]

    def read(self, obj: str, flavour: Flavour) -> Lines:
        array, n = self.array, f"{self.array.attr}_byte"  # the count byte: 0 for null, 1 for empty
        steps = [line for op in (self.before, array, self.after) for line in op.read_step(obj, flavour)]
        targets = ([f"{obj}.{f.attr_name}" for f in self.before.fields] + [n]
                   + [f"{obj}.{f.attr_name}" for f in self.after.fields])
        empty = array.read_empty(obj, flavour, array.empty or "[]")
        # Nothing in the fast path can fail (the bounds are checked first), so it sets no
        # ``field``; the step after it sets its own.
        return [f"if pos + {self.width} <= size and buf[pos + {self.before.width}] <= 1:"
                f"  # the usual case: {array.attr} null or empty, read with the runs around it",
                f"    {', '.join(targets)} = {self.unpack}(buf, pos)",
                f"    if {n} == 0:  # null",
                *indent(null_read(array.attr, array.nullable, array.value(obj)), 2),
                *([f"    else:", *indent(empty, 2)] if empty else []),
                f"    pos += {self.width}",
                "else:",
                *indent(steps)]


@dataclass(eq=False)
class UuidOp(Op):
    def read(self, obj: str, flavour: Flavour) -> Lines:
        return [f"{self.value(obj)}, pos = {flavour.hot('read_uuid')}(buf, pos)"]

    def write(self, obj: str, out: str) -> Lines:
        return [f"{out} += _w.uuid_bytes({self.value(obj)})"]

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return ("read_uuid", "uuid_bytes")


@dataclass(eq=False)
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


@dataclass(eq=False)
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


@dataclass(eq=False)
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
        ``__init__`` (the bounds are checked here); anything else goes through the runtime."""
        length, value = f"{self.attr}_n", self.value(obj)
        by_runtime = [f"{length}, pos = {flavour.hot('read_length')}(buf, pos, {self.compact})",
                      f"if {length} < 0:",
                      *indent(null_read(self.attr, self.nullable, value)),
                      "else:",
                      *indent(self.view(obj, flavour, "pos", f"pos + {length}")),
                      f"    pos += {length}"]
        if not self.compact:
            return by_runtime
        start, end = f"{self.attr}_start", f"{self.attr}_end"
        return [f"{length} = buf[pos]  # the length + 1, an unsigned varint",
                f"if {length} < 0x80:",
                f"    {start} = pos + 1",
                f"elif pos + 1 < size and buf[pos + 1] < 0x80:",
                f"    {length} = {length} & 0x7F | buf[pos + 1] << 7",
                f"    {start} = pos + 2",
                "else:",
                f"    {start} = size + 1  # longer: the runtime reads it below",
                f"{end} = {start} + {length} - 1",
                f"if {start} <= {end} <= size:  # the usual case: not null, and a length that fits",
                *indent(self.view(obj, flavour, start, end)),
                f"    pos = {end}",
                "else:  # null, a length of three bytes or more, or one that does not fit",
                *indent(by_runtime)]

    def view(self, obj: str, flavour: Flavour, start: str, end: str) -> Lines:
        """Set the field to a RecordsView of ``buf[start:end]``, already checked to fit."""
        view = f"{self.attr}_view"
        return [f"{view} = {flavour.blank('RecordsView')}  # its slots are set here, as RecordsView allows",
                f"{view}._buf = buf",
                f"{view}._start = {start}",
                f"{view}._end = {end}",
                f"{self.value(obj)} = {view}"]

    def write(self, obj: str, out: str) -> Lines:
        value = self.value(obj)
        if self.nullable:
            return [f"_w.write_records({out}, {value}, {self.compact})"]
        if not self.refuses_null_inline:
            return [f"_w.write_records({out}, {non_null(self, value)}, {self.compact})"]
        return null_refused(self, value) + [f"_w.write_records({out}, {value}, {self.compact})"]


def null_read(attr: str, nullable: bool, value: str) -> Lines:
    """What a reader does on a null count or length: store None, or refuse it."""
    if nullable:
        return [f"{value} = None"]
    return [f'raise DecodeError("non-nullable field {attr} was null", offset=pos)']


@dataclass(eq=False)
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
        value, reader = self.value(obj), self.layout.reader
        if not self.nullable:
            return [f"{value}, pos = {reader}(buf, pos)"]
        return [f"if buf[pos] {self.null_test}:  # the null marker",
                f"    {value} = None",
                "    pos += 1",
                "else:",
                f"    {value}, pos = {reader}(buf, pos + 1)"]

    def write(self, obj: str, out: str) -> Lines:
        value, writer = self.value(obj), self.layout.writer
        if not self.nullable and not self.refuses_null_inline:
            return [f"{writer}({non_null(self, value)}, {out})"]
        if not self.nullable:
            return null_refused(self, value) + [f"{writer}({value}, {out})"]
        return [f"if {value} is None:",
                f"    {out}.append({self.null_marker})  # the null marker",
                "else:",
                f"    {out}.append(1)",
                f"    {writer}({value}, {out})"]


@dataclass(eq=False)
class ArrayOp(Op):
    """What arrays share: the count (classic int32, or compact uvarint n+1) and null handling.

    With ``short_inline`` (compact arrays) a one-byte count is read and written inline; a
    subclass says how the elements go.
    """

    compact: bool = False
    nullable: bool = False
    short_inline: bool = False

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
                "    pos += 1" + ("  # the field is left unset" if self.left_unset_when_empty(flavour) else ""),
                *indent(self.read_empty(obj, flavour, new_empty)),
                "else:",
                *indent(otherwise)]

    def read_empty(self, obj: str, flavour: Flavour, new_empty: str) -> Lines:
        """What a read of no elements does: nothing where the field is left unset (its first read
        makes it, from _LAZY_DEFAULTS), else set ``new_empty``, a new empty array."""
        if self.left_unset_when_empty(flavour):
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
                     *indent(self.read_empty(obj, flavour, self.empty) or ["pass  # left unset: its first read makes it (_LAZY_DEFAULTS)"])]
        return [*count,
                f"if {self.count} < 0:", *indent(null_read(self.attr, self.nullable, self.value(obj))),
                *empty,
                "else:", *indent(self.read_elements(obj, flavour))]

    @property
    def empty(self) -> str:
        """A new empty array, for the read of a count of 0 ('' when the elements' read is as cheap)."""
        return "KeyedList()" if self.keyed else "[]"

    def left_unset_when_empty(self, flavour: Flavour) -> bool:
        """Whether a read of no elements leaves the field unset: the flavour allows it, and the
        field's default is an empty array (made on first access), not null."""
        return flavour.leaves_empty_arrays_unset and not self.field.has_null_default

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
            return lines + [f"elif len({items}) < {SMALL_ARRAY}:  # the usual case: a short array with a one-byte count",
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


@dataclass(eq=False)
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
    def runtime_functions(self) -> tuple[str, ...]:
        shared = ("read_fixed_array", "write_fixed_array", "write_count")
        return shared + (("UNPACK_ARRAY", "PACK_ARRAY") if self.short_inline else ("read_count",))

    def read(self, obj: str, flavour: Flavour) -> Lines:
        if not self.short_inline:
            return super().read(obj, flavour)
        # An empty array first, then the count byte and the elements in one bound check; anything
        # else takes the long way.
        n, end, value = self.count, f"{self.attr}_end", self.value(obj)
        return [f"{n} = buf[pos] - 1", *self.empty_first(obj, flavour, "[]", [
                f"{end} = pos + 1 + {n} * {self.width}",
                f"if 0 < {n} < {SMALL_ARRAY} and {end} <= size:  # the usual case: a short array",
                f"    {value} = {flavour.read_short_fixed_array(self)}",
                f"    pos = {end}",
                "else:",
                *indent(self.read_counted(obj, flavour, self.read_count(flavour)))])]

    @property
    def empty(self) -> str:
        return ""  # one runtime call reads any count

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        return [f'{self.value(obj)}, pos = _w.read_fixed_array(buf, pos, {self.count}, "{self.code}", {self.width})']

    def write_short(self, out: str) -> Lines:
        return [f"{out} += {self.pack}[len({self.items})](*{self.items})"]

    def write_elements(self, out: str) -> Lines:
        return [f'_w.write_fixed_array({out}, {self.items}, "{self.code}")']


@dataclass(eq=False)
class UuidArray(ArrayOp):
    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        return element_loop(self, obj, "UUID", f"{flavour.hot('read_uuid')}(buf, pos)")

    def write_elements(self, out: str) -> Lines:
        return [f"for {self.item} in {self.items}:", f"    {out} += _w.uuid_bytes({self.item})"]

    @property
    def runtime_functions(self) -> tuple[str, ...]:
        return super().runtime_functions + ("read_uuid", "uuid_bytes")


@dataclass(eq=False)
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


@dataclass(eq=False)
class StructArray(ArrayOp):
    """An array of structs (a KeyedList when the struct has map keys).

    ``rows`` is set when every element is one fixed-width run (and, in flexible versions, an
    empty tagged section): the flavour then reads whole rows at once (:meth:`Flavour.read_rows`).
    """

    target: Layout | None = None
    rows: str = ""  # the module-level row reader, when the rows fast path applies
    inline: bool = False  # the plan allows reading each element inside the loop, without a call
    # The steps that read one element into a given local, when the module's flavour reads elements
    # inline (set by the views, which know each layout's instance and defaults).
    element_reads: Callable[[str], Lines] | None = None

    @property
    def layout(self) -> Layout:
        assert self.target is not None
        return self.target

    @property
    def label(self) -> str:
        return f"{self.attr}[]"

    @property
    def reads_buffer_size(self) -> bool:
        # the compiled flavour's rows check it, and so may the steps of an element read inline
        return (self.short_inline or bool(self.rows)
                or (self.element_reads is not None and self.layout.reads_buffer_size))

    @property
    def keyed(self) -> bool:
        return bool(self.field.struct and self.field.struct.map_key_fields)

    @property
    def container(self) -> str:
        return "KeyedList" if self.keyed else "list"

    def read_elements(self, obj: str, flavour: Flavour) -> Lines:
        rows = flavour.read_rows(self) if self.rows else None
        new_items, result = flavour.collect_elements(self)
        return [*new_items,
                *(rows if rows is not None else self.read_one_by_one()),
                f"{self.value(obj)} = {result}"]

    @property
    def loop_index(self) -> str:
        """The loop's local when elements are read inline (``index`` is theirs to set)."""
        return f"{self.attr}_index"

    def read_one_by_one(self, inline: bool = True) -> Lines:
        if not inline or self.element_reads is None:
            return [f"for index in range({self.count}):",
                    f"    {self.item}, pos = {self.layout.reader}(buf, pos)",
                    f"    {self.items}.append({self.item})"]
        # The element's reader without the call: its steps set field and index as they go, so a
        # failure is named by them first, then (as the call's caller would) by this array.
        return [f"for {self.loop_index} in range({self.count}):",
                "    try:",
                *indent(self.element_reads(self.item), 2),
                "    except _w.DECODE_FAILURES as error:",
                "        failure = _w.decode_failure(error, field, index, pos)",
                f'        field, index = "{self.label}", {self.loop_index}',
                "        raise failure from None",
                f"    {self.items}.append({self.item})",
                f'field, index = "{self.label}", {self.loop_index}  # as the last call would have left them']

    def write_elements(self, out: str) -> Lines:
        return [f"for {self.item} in {self.items}:", f"    {self.layout.writer}({self.item}, {out})"]


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
        "        if pos + 1 < len(buf) and buf[pos] < 0x80 and buf[pos + 1] < 0x80 and pos + 2 + buf[pos + 1] <= len(buf):",
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
