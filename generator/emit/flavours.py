"""The two flavours of generated code: pure Python, and the sources ``--compile`` hands to mypyc.

Both flavours share the plan and every step's code (:mod:`.ops`); they differ only where
compiled code is faster another way, and each such place is one method here:

- the runtime's hot readers (``read_count``, ``read_uuid``, ...): called through
  ``kwire.wire.primitives`` when pure, imported from the package's compiled copy of
  ``kwire/wire/struct_base.py`` (``_base``) when compiled, so that no Python frame is entered;
- a new instance: ``object.__new__`` plus the defaults no read sets (pure), the native
  constructor (compiled);
- fixed-width fields: one ``struct`` call per run (pure), the integer readers of ``_base``
  (compiled: a few machine instructions each, no tuple);
- an array of fixed-width structs: ``struct.iter_unpack`` over all rows (pure), each row built
  directly when it fits (compiled);
- module-level constants: plain globals (pure: CPython caches the look-up), ``Final`` (compiled:
  read from a C static instead of the module's dict).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .code import Lines, indent

if TYPE_CHECKING:
    from .ops import FixedArray, FixedRun, StructArray

# Fixed-width types the compiled flavour reads with the integer readers of kwire.wire.struct_base
# (float64 keeps struct: compiled arithmetic has no cheaper way to build a double).
INTEGER_READERS = {"bool": "read_bool", "int8": "read_int8", "int16": "read_int16", "uint16": "read_uint16",
                   "int32": "read_int32", "uint32": "read_uint32", "int64": "read_int64"}

# Short arrays of integers the compiled flavour reads as a list display, by count.
SHORT_DISPLAY = 3

# The readers generated code calls in hot loops (kwire.wire.struct_base, re-exported by primitives).
HOT_READERS = ("read_count", "read_length", "read_tag_count", "read_tag_header", "read_uuid")


class PurePython:
    """Generated code as CPython runs it best."""

    name = "pure"
    message_imports: tuple[str, ...] = ("DEFAULT", "FieldInfo", "GeneratedStruct", "KeyedList", "NEVER",
                                        "blank_instance", "check_unsupported")
    header: Lines = []
    # The annotation of the module-level constants hot code reads (struct helpers, defaults).
    constant_annotation = ""
    # Whether a message class declares API_KEY, MESSAGE_TYPE, ... as ClassVar.
    class_vars = False
    # Field about texts as docstrings: the attribute's (a string after its annotation: IDEs, pdoc)
    # and its slot's (``__slots__`` as a dict: help()). Compiled classes keep them as comments.
    attribute_docstrings = True
    documented_slots = True
    # Arrays of structs read their elements inside the loop where the plan allows it: a call
    # costs CPython a frame and a tuple (in compiled code a call is a C call, so it keeps them).
    reads_elements_inline = True
    # An array read empty is left unset where its default is an empty array: the class's
    # __getattr__ makes it on first access (kwire.wire.message), as for fields a version lacks.
    leaves_empty_arrays_unset = True
    # Struct fields whose default is a new struct get it from a property on first read (compiled
    # classes, which have no __getattr__ fallback; pure readers leave such fields unset instead).
    struct_defaults_on_first_read = False
    # A nullable compact array between two fixed-width runs, when null or empty, is read with them
    # in one struct call (ops.EmptyArrayBridge); compiled code reads runs with integer readers.
    bridges_empty_arrays = True

    def omitted(self, struct: str | None) -> str:
        """The default of a constructor parameter (an array, or a ``struct``) whose definition's
        default is not null: a marker that an omitted argument is told from None (null) by.

        kwire.wire.message.DEFAULT, typed Any for type checkers, reads well in help() and IDEs.
        """
        return "DEFAULT"

    def hot(self, function: str) -> str:
        """How generated code calls one of the HOT_READERS."""
        assert function in HOT_READERS, function
        return f"_w.{function}"

    def omitted_struct(self, struct: str) -> str | None:
        return None  # DEFAULT serves every type

    def blank(self, cls: str) -> str:
        """An expression making an instance of ``cls`` without running its ``__init__``."""
        return f"blank_instance({cls})"  # object.__new__ itself: no Python frame, no look-up on the class

    def new_instance(self, cls: str, obj: str, arrays: list[tuple[str, bool]],
                     defaults: list[tuple[str, str]]) -> Lines:
        """Make ``obj``, an instance of ``cls`` whose every field the reader then sets.

        ``arrays`` are the (attribute, keyed) of the arrays the reader sets, ``defaults`` the
        (attribute, expression) of fields no read at these versions sets.
        """
        return [f"{obj} = {self.blank(cls)}"] + [f"{obj}.{attr} = {value}" for attr, value in defaults]

    def read_fixed_run(self, run: FixedRun, obj: str) -> Lines:
        return run.read_with_struct(obj)

    def collect_elements(self, op: StructArray) -> tuple[Lines, str]:
        """Make ``op.items``, the empty local an array's elements are appended to; and the
        expression the field is then set to."""
        empty = "KeyedList()" if op.keyed else "[]"
        return [f"{op.items}: {op.container}[{op.layout.struct.name}] = {empty}"], op.items

    def read_short_fixed_array(self, op: FixedArray) -> str:
        """The expression reading ``op.count`` (< SMALL_ARRAY) elements after the count byte."""
        return f"[*{op.unpack}[{op.count}](buf, pos + 1)]  # [*t] beats list(t) by a call"

    def read_rows(self, op: StructArray) -> Lines | None:
        """The elements of an array whose elements are one fixed-width run each (``op.rows``);
        None reads them one by one."""
        layout, items, item = op.layout, op.items, op.item
        cls, width, n = layout.struct.name, layout.row_width, op.count
        end, rows, row = f"{op.attr}_end", f"{op.attr}_rows", f"{op.attr}_row"
        targets = [f"{item}.{f.attr_name}" for f in layout.row_fields] + (["_"] if layout.flexible else [])
        unpacked = f"({targets[0]},)" if len(targets) == 1 else ", ".join(targets)
        # In flexible versions each row ends with its tagged-field count, which must be 0.
        no_tags = f" and not any({rows}[{width - 1}::{width}])" if layout.flexible else ""
        return [f"# Every element is fixed-width{' with an empty tagged section' if layout.flexible else ''}: "
                "one iter_unpack for all.",
                f"{end} = pos + {n} * {width}",
                f"{rows} = buf[pos:{end}]",
                f"if len({rows}) == {n} * {width}{no_tags}:",
                f"    for {row} in {op.rows}({rows}):",
                f"        {item} = {self.blank(cls)}",
                f"        {unpacked} = {row}",
                f"        {item}.unknown_tagged_fields = ()",
                f"        {items}.append({item})",
                f"    pos = {end}",
                "else:",
                *indent(op.read_one_by_one(inline=False))]


class Compiled(PurePython):
    """Generated code shaped for mypyc (``kwire generate --compile``)."""

    name = "compiled"
    message_imports = ("FieldInfo", "KeyedList", "NEVER", "check_unsupported")
    header = [
        "",
        "from typing import ClassVar, Final",
        "",
        "from ._base import (GeneratedStruct, read_bool, read_count, read_int8, read_int16, read_int32, read_int64,",
        "                    read_length, read_tag_count, read_tag_header, read_uint16, read_uint32, read_uuid)",
        "",
        "# Final: compiled code reads Final module constants directly, other globals from a dict.",
        "_LIST_PLACEHOLDER: Final[list] = []",
        "_KEYED_PLACEHOLDER: Final[KeyedList] = KeyedList()",
        "# The default of array parameters: a list of its own, so that the check is one pointer compare.",
        "_OMITTED_LIST: Final[list] = []",
        "_new_object: Final = object.__new__",
    ]
    constant_annotation = ": Final"
    # mypyc makes any other attribute set in a class body a per-instance slot, which the class
    # itself shows as a descriptor (ApiRegistry reads cls.API_KEY)
    class_vars = True
    attribute_docstrings = False
    documented_slots = False
    reads_elements_inline = False
    leaves_empty_arrays_unset = False  # a native class has every attribute set
    # A FetchResponse partition has three tagged structs, rarely sent: making their defaults in
    # every decoded partition cost a third of its decode.
    struct_defaults_on_first_read = True
    bridges_empty_arrays = False

    def omitted(self, struct: str | None) -> str:
        # mypyc checks a parameter's default against its type, so DEFAULT (typed Any) would fail
        # there: the marker is a value of the parameter's type, made once (omitted_struct).
        return "_OMITTED_LIST" if struct is None else f"_OMITTED_{struct}"

    def omitted_struct(self, struct: str) -> str:
        """The module-level marker of an omitted ``struct`` argument, after that struct's class."""
        # (an instance of its own, made by the constructor: object.__new__ refuses native classes)
        return f"{self.omitted(struct)}: Final[{struct}] = {struct}()"

    def hot(self, function: str) -> str:
        assert function in HOT_READERS, function
        return function

    def blank(self, cls: str) -> str:
        # object.__new__ from a Final: one C call (``cls.__new__`` is a method look-up first);
        # typeshed types its result as ``cls``
        return f"_new_object({cls})"

    def new_instance(self, cls: str, obj: str, arrays: list[tuple[str, bool]],
                     defaults: list[tuple[str, str]]) -> Lines:
        placeholders = ", ".join(f"{attr}={'_KEYED_PLACEHOLDER' if keyed else '_LIST_PLACEHOLDER'}"
                                 for attr, keyed in arrays)
        return ["# Compiled, the native constructor is the cheapest way to a complete object; arrays read",
                "# below get a shared placeholder instead of a new empty list (every path replaces it).",
                f"{obj} = {cls}({placeholders})"]

    def read_fixed_run(self, run: FixedRun, obj: str) -> Lines:
        reads = integer_reads(run)
        if reads is None:
            return run.read_with_struct(obj)
        return [f"{obj}.{attr} = {read}" for attr, read in reads] + [f"pos += {run.width}"]

    def collect_elements(self, op: StructArray) -> tuple[Lines, str]:
        if not op.keyed:
            return super().collect_elements(op)
        # Appended to through a local typed list: mypyc calls PyList_Append (a KeyedList is a
        # list that keeps append), instead of looking append up by name on a Python subclass,
        # ~180 instructions an element (60 per ApiVersionsResponse).
        keyed, name = f"{op.attr}_keyed", op.layout.struct.name
        return [f"{keyed}: KeyedList[{name}] = KeyedList()",
                f"{op.items}: list[{name}] = {keyed}"], keyed

    def read_short_fixed_array(self, op: FixedArray) -> str:
        reader = INTEGER_READERS.get(op.element)
        if reader is None:
            return super().read_short_fixed_array(op)
        # Up to SHORT_DISPLAY elements (replicas, in-sync replicas) as a list display: mypyc makes
        # it at its size and stores each item, where a comprehension appends (and grows) element
        # by element and does the index arithmetic in tagged ints.
        displays = [f"[{', '.join(f'{reader}(buf, pos + {1 + op.width * k})' for k in range(n))}] if {op.count} == {n}"
                    for n in range(1, SHORT_DISPLAY + 1)]
        return " else ".join(displays + [f"[{reader}(buf, pos + 1 + {op.width} * k) for k in range({op.count})]"])

    def read_rows(self, op: StructArray) -> Lines | None:
        layout, item = op.layout, op.item
        run = layout.row_run
        reads = integer_reads(run) if run is not None else None
        if reads is None:
            return None
        width = layout.row_width
        no_tags = f" and buf[pos + {width - 1}] == 0" if layout.flexible else ""
        arguments = ", ".join(f"{attr}={read}" for attr, read in reads)
        return [f"# Elements are usually fixed-width{' with an empty tagged section' if layout.flexible else ''}: "
                "build those directly.",
                f"for index in range({op.count}):",
                f"    if pos + {width} <= size{no_tags}:",
                f"        {item} = {layout.struct.name}({arguments})",
                f"        pos += {width}",
                "    else:",
                f"        {item}, pos = {layout.reader}(buf, pos)",
                f"    {op.items}.append({item})"]


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


Flavour = PurePython
PURE = PurePython()
COMPILED = Compiled()
