"""The two flavours of generated code: pure Python, and the sources ``--compile`` hands to mypyc.

A flavour is a table of spellings and of switches the plan (:mod:`.plan`) reads; it knows no
step. Where the two differ in what code to write, the plan picks another step (those of
:mod:`.compiled_ops` for compiled code); here are only:

- the runtime's hot readers (``read_count``, ``read_uuid``, ...): called through
  ``kwire.wire.primitives`` when pure, imported from the package's compiled copy of
  ``kwire/wire/struct_base.py`` (``_base``) when compiled, so that no Python frame is entered;
- a new instance: ``object.__new__`` plus the defaults no read sets (pure), the native
  constructor (compiled);
- module-level constants: plain globals (pure: CPython caches the look-up), ``Final`` (compiled:
  read from a C static instead of the module's dict);
- the switches below, each saying which fast path or step the plan takes for this flavour.
"""
from __future__ import annotations

from .code import Lines

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
    # A records field read as a view is left unset: the reader stores where it lies in the input
    # (three hidden slots, ``_<attr>_buf/_start/_end``) and its first read makes the RecordsView
    # (``_MADE_FROM_INPUT``, kwire.wire.message), so a consumer that never reads it makes no
    # object for it: an allocation and a deallocation fewer per FetchResponse partition.
    records_view_on_first_read = True
    # __eq__ comes from GeneratedStruct, one loop over FIELDS (it keeps generated/ small), except
    # in the structs writers compare with their default (views.ModuleView).
    field_by_field_eq = False
    # The plan picks the steps shaped for mypyc (.compiled_ops): fixed-width integers read inline
    # one by one (where CPython is faster with one struct call), a struct's leading integers
    # read into its constructor, arrays of structs appended to through typed lists.
    compiled_steps = False
    # The type of a reader's position (``pos``) and of the buffer's size: compiled, a machine
    # integer, so that the position arithmetic of every read is a C add and compare.
    position_type = "int"
    size_annotation = ""

    # What a module with a records field imports for it beside the plain RecordsView, and the
    # annotation of such a field.
    records_imports: tuple[str, ...] = ()
    records_hint = "RecordsView | bytes"

    def records_view(self, view: str, start: str, end: str) -> Lines:
        """Make ``view``, a RecordsView of ``buf[start:end]`` (already checked to fit)."""
        return [f"{view} = {self.blank('RecordsView')}  # its slots are set here, as RecordsView allows",
                f"{view}._buf = buf",
                f"{view}._start = {start}",
                f"{view}._end = {end}"]

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
                     defaults: list[tuple[str, str]], given: list[tuple[str, str]]) -> Lines:
        """Make ``obj``, an instance of ``cls`` whose every field the reader then sets.

        ``arrays`` are the (attribute, keyed) of the arrays the reader sets, ``defaults`` the
        (attribute, expression) of fields no read at these versions sets, ``given`` the
        (attribute, read expression) of fields read as the constructor's arguments (compiled only).
        """
        assert not given, "pure readers read every field into the instance"
        return [f"{obj} = {self.blank(cls)}"] + [f"{obj}.{attr} = {value}" for attr, value in defaults]


class Compiled(PurePython):
    """Generated code shaped for mypyc (``kwire generate --compile``)."""

    name = "compiled"
    message_imports = ("FieldInfo", "KeyedList", "NEVER", "check_unsupported")
    header = [
        "",
        "from typing import TYPE_CHECKING, ClassVar, Final",
        "",
        "from librt.strings import read_i16_be, read_i32_be, read_i64_be",
        "",
        "from ._base import (GeneratedStruct, read_bool, read_count, read_int8, read_length, read_tag_count,",
        "                    read_tag_header, read_uint16, read_uint32, read_uuid)",
        "",
        "# librt (mypyc's run-time library, a dependency of kwire): its readers of big-endian integers are",
        "# compiled inline (a bounds check and a load each), not called through _base's export table.",
        "# Positions are machine integers (i64): an annotation only, not imported at run time.",
        "if TYPE_CHECKING:",
        "    from mypy_extensions import i64",
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
    # itself shows as a descriptor (framing reads cls.API_KEY)
    class_vars = True
    attribute_docstrings = False
    documented_slots = False
    reads_elements_inline = False
    leaves_empty_arrays_unset = False  # a native class has every attribute set
    # A FetchResponse partition has three tagged structs, rarely sent: making their defaults in
    # every decoded partition cost a third of its decode.
    struct_defaults_on_first_read = True
    bridges_empty_arrays = False
    records_view_on_first_read = False  # a native class has every attribute set
    # Each class on the hot path compares field by field in its own __eq__: writers test whether
    # a tagged struct still holds its default with !=, per element (a Fetch partition's three
    # tagged structs), and a native comparison costs a fraction of the base class's generic loop.
    # Off the hot path the base class's loop serves (their own __eq__ cost C compile time:
    # benchmarks/README.md, "Figures behind design choices"), except in the structs writers compare with their
    # defaults, which keep their own in every module (views.ModuleView). The compiled sources
    # are not committed, so this costs no lines.
    field_by_field_eq = True
    compiled_steps = True
    position_type = "i64"
    size_annotation = ": i64"

    # The native twin of RecordsView compiled beside _base (kwire.generator.native.inline): its
    # constructor is one allocation and three slot stores, where the plain class costs compiled
    # code object.__new__ and three generic attribute sets (~1k instructions a view). Fields
    # still take a plain RecordsView (or bytes) from the user.
    records_imports = ("from ._records_view import RecordsView as _NativeRecordsView",)
    records_hint = "RecordsView | _NativeRecordsView | bytes"

    def records_view(self, view: str, start: str, end: str) -> Lines:
        return [f"{view} = _NativeRecordsView(buf, {start}, {end})"]

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
                     defaults: list[tuple[str, str]], given: list[tuple[str, str]]) -> Lines:
        arguments = ", ".join([f"{attr}={read}" for attr, read in given]
                              + [f"{attr}={'_KEYED_PLACEHOLDER' if keyed else '_LIST_PLACEHOLDER'}"
                                 for attr, keyed in arrays])
        return ["# Compiled, the native constructor is the cheapest way to a complete object; arrays read",
                "# below get a shared placeholder instead of a new empty list (every path replaces it)."
                + ("\n# The leading integers are read as its arguments: each field is written once." if given else ""),
                f"{obj} = {cls}({arguments})"]


Flavour = PurePython
PURE = PurePython()
COMPILED = Compiled()
