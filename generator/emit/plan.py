"""Plan the generated code: which versions share a layout, and the steps that read and write it.

Every decision is made here, from the model and the flavour, once per (struct, layout): which
versions share generated functions, which fields coalesce into one fixed-width ``struct`` call,
compact or classic encodings, which step (:mod:`.ops`) each field becomes, which fast paths it
takes (the ``inlines_*`` and ``rows_*`` rules below), which elements are read inline and which
fields a new instance gets (the rest are made on first access). Where pure and compiled code
differ the plan picks another step (``IntegerRun`` for ``FixedRun``, ...); the flavour itself is
only read here for its switches. The views and templates only render.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from uuid import UUID

from ..definitions.model import Field, Message, Struct
from ..definitions.types import STRUCT_CODES
from .compiled_ops import INTEGER_READERS, CompiledStructArray, IntegerArray, IntegerRun
from .constants import ModuleConstants, default_literal
from .flavours import Flavour
from .ops import (
    ArrayOp,
    BytesArray,
    BytesOp,
    EmptyArrayBridge,
    FixedArray,
    FixedRun,
    Layout,
    LayoutName,
    Op,
    RecordsOp,
    StringOp,
    StructArray,
    StructOp,
    UuidArray,
    UuidOp,
    VersionTest,
    bridge_format,
    version_test,
)
from .shared_ops import SharedBytesArray, SharedStructArray, SharedUuidArray

FIXED_TYPES = frozenset(["bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64"])


# --- fast paths --------------------------------------------------------------------------------
# Where generated code inlines the usual case instead of calling the runtime. Each rule is the
# one place its fast path is chosen; where the flavours read it differently the plan picks the
# flavour's step (.compiled_ops), and some paths only one flavour takes (its switches, .flavours).
#
# Inline code pays only where many values are decoded, and it is paid for in size: pasting
# element reads into every parent layout made generated/ 192k lines (issue 23 §5). So inline
# code goes where bench_codec shows it pays, the hot path below; everywhere else the same step
# calls the runtime or the element's shared reader, with the same bytes and the same errors.

# The APIs bench_codec measures (ApiVersions, Metadata, Fetch, OffsetCommit, OffsetFetch) and
# Produce, the other half of a client's data path; their requests and responses both.
HOT_APIS = frozenset({"ApiVersions", "Fetch", "Metadata", "OffsetCommit", "OffsetFetch", "Produce"})
# Definition kinds decoded in bulk: request/response headers (every frame) and KRaft metadata
# records (every record of a metadata log; bench_codec's metadata_records stream).
HOT_KINDS = frozenset({"header", "metadata"})


def on_hot_path(message: Message) -> bool:
    """Whether the definition's generated code takes the fast paths (the rules below)."""
    if message.type in HOT_KINDS:
        return True
    return message.type in ("request", "response") and message.name.removesuffix(message.type.capitalize()) in HOT_APIS


def compiled_by_default(message: Message) -> bool:
    """Whether a compiled build (``kwire generate --compile``) builds the definition's module
    unless asked for every module. Hot-path code is written for mypyc (inline reads, calls into
    the compiled base module) and gains much compiled; code off the hot path is mostly calls into
    kwire's Python runtime and gains little, for most of the C compile time
    (benchmarks/bench_compiled_gain.py; benchmarks/README.md, "What pays")."""
    return on_hot_path(message)


def inlines_short_strings(type_name: str, compact: bool, hot: bool) -> bool:
    """Compact strings on the hot path: a one-byte length (under 128 bytes) is read and written
    inline."""
    return type_name == "string" and compact and hot


def inlines_short_arrays(compact: bool, hot: bool) -> bool:
    """Compact arrays on the hot path: a one-byte count (under SMALL_ARRAY elements, and for
    fixed-width elements the elements too) is read and written inline."""
    return compact and hot


def refuses_null_inline(hot: bool) -> bool:
    """Writers refuse None for a non-nullable field with an inline test on the hot path; elsewhere
    through the runtime's ``non_null`` (one line instead of two, the same error)."""
    return hot


def loops_over_elements(hot: bool) -> bool:
    """Arrays read (of structs, strings, uuids) and written (of structs) element by element
    have a loop of their own on the hot path; elsewhere one call to the runtime's array
    functions (.shared_ops) does the same: a line of generated code instead of a dozen."""
    return hot


def tests_empty_tag_section_inline(hot: bool) -> bool:
    """On the hot path a reader tests the usual empty tagged section (one zero byte) inline and a
    writer writes it inline; elsewhere the runtime reads and writes any tagged section its layout
    knows no tag of, in one call."""
    return hot


def one_function_per_encoding(hot: bool) -> bool:
    """Off the hot path one reader and one writer serve every version of a struct in one
    encoding (classic or flexible), taking the version, as Kafka's own generated code does: a
    field only some of those versions have is read and written under ``if version ...``. That
    writes a struct's code once or twice instead of once per layout (issue 23 §5). On the hot
    path each layout keeps functions of its own, which test no version. Versions share functions
    only where they agree on every field they have (tagged or not, nullable or not, the same
    encoding, the same functions for a nested struct) and on the tagged fields."""
    return not hot


def rows_read_at_once(layout: Layout) -> bool:
    """Arrays of this layout's struct read all elements at once: each element is one
    fixed-width run (and, in flexible versions, the count byte of its tagged section)."""
    return layout.row_run is not None


def bridges_empty_array(before: Op, array: Op, after: Op) -> bool:
    """A nullable compact array between two fixed-width runs is read with them in one
    ``struct`` call when its count byte says null or empty (see EmptyArrayBridge). Nullable
    arrays are the optional ones, usually null or empty (a FetchResponse partition's aborted
    transactions: null from Kafka for read_uncommitted fetches, empty for read_committed); an
    array that is not nullable usually has elements (a topic's partitions), where the test would
    only cost."""
    return (isinstance(before, FixedRun) and isinstance(array, ArrayOp) and isinstance(after, FixedRun)
            and array.compact and array.short_inline and array.nullable)


def bridges_records_length(op: Op | None) -> bool:
    """A compact records field right after an EmptyArrayBridge has the first two bytes of its
    length read by the bridge's struct call (a FetchResponse partition's records)."""
    return isinstance(op, RecordsOp) and op.compact


def reads_elements_inline(array: Field, element: Layout, hot: bool, flexible: bool) -> bool:
    """Arrays of structs may read each element inside their loop instead of calling the
    element's reader (where the flavour reads elements inline: pure Python): that saves the call, its frame and
    the returned tuple (benchmarks/README.md, "Figures behind design choices"). Only on the hot path and in
    flexible versions (what today's clients and brokers speak: every bench_codec workload);
    elsewhere the parent calls the element's one shared reader, so the element's code is
    written once per layout instead of once per parent layout. Not where a field of the
    element, or of what it reads inline in turn, has the array's name: their locals would
    clash."""
    return hot and flexible and array.attr_name not in element.inline_attrs


# --- the plan ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class StructPlan:
    struct: Struct
    layouts: tuple[Layout, ...]
    table: tuple[Layout | None, ...]  # index = version
    # Struct fields whose default a compiled class makes on first read (a property over a slot
    # of its own), by name: see Flavour.struct_defaults_on_first_read
    made_on_first_read: frozenset[str]


@dataclass(frozen=True)
class MessagePlan:
    """The layouts and steps of every struct of one definition, and the module-level helpers
    (precompiled ``struct`` objects) and uuid defaults the steps name. Made by :func:`plan`."""

    message: Message
    flavour: Flavour
    structs: tuple[StructPlan, ...]
    helpers: Mapping[str, str]  # module-level name -> its Python expression, in declaration order
    uuid_names: Mapping[UUID, str]  # uuid default -> its module-level name


def plan(message: Message, flavour: Flavour) -> MessagePlan:
    """Every decision about the generated module of ``message`` in ``flavour``."""
    return _Planner(message, flavour).plan()


class _Planner:
    """Plans one definition in two passes: which versions of each struct share a layout (a
    layout's functions are named after all its versions), then each layout's steps, in the order
    the layouts are first met (which orders the helpers)."""

    def __init__(self, message: Message, flavour: Flavour) -> None:
        self.message = message
        self.flavour = flavour
        self.hot = on_hot_path(message)
        # module-level names of uuid defaults, named in the order the classes declare them
        self.uuids = ModuleConstants()
        for struct in message.all_structs() + [message.struct]:
            for f in struct.fields:
                default_literal(f, self.uuids)
        self.helpers: dict[str, str] = {}
        self._helper_names: dict[tuple, str] = {}
        self._helper_owners: dict[str, str | None] = {}
        self._row_readers: set[str] = set()
        self._keys: dict[tuple[str, int], tuple] = {}
        self._versions: dict[tuple, list[int]] = {}  # layout key -> the versions that share it
        self._key_at: dict[str, dict[int, tuple]] = {}  # struct -> version -> its layout key
        self._layouts: dict[tuple, Layout] = {}  # layout key -> its layout, once built

    def plan(self) -> MessagePlan:
        versions = list(self.message.versions())
        for v in versions:
            self._group(self.message.struct, v)
        if one_function_per_encoding(self.hot):
            for struct in self.message.all_structs() + [self.message.struct]:  # nested structs first
                self._share_across_versions(struct)
        for v in versions:
            self._build(self.message.struct, v)
        structs = self._struct_plans()
        return MessagePlan(self.message, self.flavour, structs, MappingProxyType(self._sorted_helpers(structs)),
                           MappingProxyType(dict(self.uuids.uuids)))

    # --- which versions share a layout -------------------------------------------------------
    def _layout_key(self, struct: Struct, v: int) -> tuple:
        """What decides the code of ``struct`` at ``v``: two versions with one key share it."""
        key = (struct.name, v)
        if key not in self._keys:
            parts: list[tuple] = []
            for f in struct.fields:
                if not f.present_in(v):
                    parts.append((f.name, "absent"))
                    continue
                nested = self._layout_key(f.struct, v) if f.struct is not None else None
                parts.append((f.name, f.tagged_in(v), f.nullable_in(v), self._compact(f, v), nested))
            self._keys[key] = (self.message.flexible_at(v), tuple(parts))
        return self._keys[key]

    def _compact(self, f: Field, v: int) -> bool:
        if f.type.name in ("string", "bytes"):
            return self.message.string_flexible_at(f, v)
        return self.message.flexible_at(v)

    def _group(self, struct: Struct, v: int) -> None:
        at = self._key_at.setdefault(struct.name, {})
        if v in at:
            return
        key = at[v] = (struct.name, self._layout_key(struct, v))
        self._versions.setdefault(key, []).append(v)
        for f in struct.fields:
            if f.struct is not None and f.present_in(v):
                self._group(f.struct, v)

    def _share_across_versions(self, struct: Struct) -> None:
        """Give the versions of ``struct`` in each encoding one layout, where they agree on how
        every field they have is encoded (see one_function_per_encoding)."""
        at = self._key_at.get(struct.name, {})
        for flexible in (False, True):
            versions = sorted(v for v in at if self.message.flexible_at(v) == flexible)
            if len({at[v] for v in versions}) < 2 or not self._agree(struct, versions):
                continue
            key = (struct.name, ("one layout", flexible))
            for v in versions:
                at[v] = key
            self._versions[key] = versions

    def _agree(self, struct: Struct, versions: list[int]) -> bool:
        for f in struct.fields:
            present = [v for v in versions if f.present_in(v)]
            encodings = {(f.tagged_in(v), f.nullable_in(v), self._compact(f, v)) for v in present}
            if len(encodings) > 1:
                return False
            if not f.tagged_versions.empty and present and len(present) < len(versions):
                return False  # a tagged field some versions lack: the tag section would differ
            if f.struct is not None and len({self._key_at[f.struct.name][v] for v in present}) > 1:
                return False
        return True

    # --- layouts -----------------------------------------------------------------------------
    def _build(self, struct: Struct, v: int) -> Layout:
        """The layout of ``struct`` at ``v``, built (with those it nests) when first met."""
        key = self._key_at[struct.name][v]
        if key not in self._layouts:
            self._layouts[key] = self._layout(struct, v, LayoutName(struct.name, tuple(self._versions[key])))
        return self._layouts[key]

    def _layout(self, struct: Struct, v: int, name: LayoutName) -> Layout:
        ops: list[Op] = []
        absent: list[Field] = []
        versions = name.versions
        # The untagged fields in order, in groups of consecutive fields that the same versions of
        # the layout have: no test ("", "") for all of them, else the tests of the version (version_test).
        groups: list[tuple[tuple[str, str], list[Field]]] = []
        for f in struct.fields:
            present = [u for u in versions if f.present_in(u)]
            if not present:
                absent.append(f)
            elif not f.tagged_in(present[0]):
                test = version_test(f, versions) if len(present) < len(versions) else ("", "")
                if groups and groups[-1][0] == test:
                    groups[-1][1].append(f)
                else:
                    groups.append((test, [f]))
        for (test, absent_test), fields in groups:
            if not test:
                ops += self._steps(struct, fields, v, name)
                continue
            first = next(u for u in versions if fields[0].present_in(u))
            lacking = LayoutName(struct.name, tuple(u for u in versions if not fields[0].present_in(u)))
            ops.append(VersionTest(tuple(fields), owner=name, steps=tuple(self._steps(struct, fields, first, name)),
                                   test=test, absent_test=absent_test, lacking=lacking.version_text))
        tagged = [self._op(struct, f, v, name, compact=True, tag=f.tag) for f in struct.tagged_fields_at(v)]
        # Fields no read sets here: a new instance gets their defaults, but for arrays and
        # structs whose default is not null (their class makes those on first access).
        tested = [f for op in ops if isinstance(op, VersionTest) for f in op.fields]
        defaults = tuple((f.attr_name, "None" if f.has_null_default else default_literal(f, self.uuids))
                         for f in absent + tested + [op.field for op in tagged]
                         if f.has_null_default or not (f.type.is_array or f.type.is_struct))
        bridges: dict[int, EmptyArrayBridge] = {}
        bridged: set[int] = set()  # the runs a bridge already reads
        for i, (before, array, after) in enumerate(zip(ops, ops[1:], ops[2:], strict=False)):  # each window of three
            if bridges_empty_array(before, array, after) and id(before) not in bridged:
                bridged.add(id(after))
                assert isinstance(before, FixedRun) and isinstance(array, ArrayOp) and isinstance(after, FixedRun)
                records = ops[i + 3] if i + 3 < len(ops) else None
                # (its helper is declared in either flavour: compiled modules have always had it)
                bridge = self._bridge(struct, before, array, after,
                                      records if bridges_records_length(records) else None)
                if self.flavour.bridges_empty_arrays:
                    bridges[id(before)] = bridge
        return Layout(struct, name, self.message.flexible_at(v), tuple(ops), tuple(tagged), tuple(absent),
                      MappingProxyType(bridges), defaults, tests_empty_tag_section_inline(self.hot),
                      takes_version=one_function_per_encoding(self.hot))

    def _steps(self, struct: Struct, fields: list[Field], v: int, owner: LayoutName) -> list[Op]:
        """The steps of ``fields`` (untagged, consecutive) at ``v``: a step each, but for runs of
        fixed-width fields, which share one."""
        ops: list[Op] = []
        run: list[Field] = []
        for f in fields + [None]:  # type: ignore[list-item]  # None ends the last run
            if f is not None and f.type.name in FIXED_TYPES:
                run.append(f)
                continue
            if run:
                ops.append(self._fixed_run(struct, list(run), owner))
                run.clear()
            if f is not None:
                ops.append(self._op(struct, f, v, owner, compact=self._compact(f, v)))
        return ops

    # --- steps -------------------------------------------------------------------------------
    def _op(self, struct: Struct, f: Field, v: int, owner: LayoutName, compact: bool, tag: int | None = None) -> Op:
        """The step that reads and writes ``f`` at ``v``."""
        nullable, t = f.nullable_in(v), f.type
        refuse = refuses_null_inline(self.hot)
        if t.name in FIXED_TYPES:
            return self._fixed_run(struct, [f], owner, tag=tag)
        if t.name == "uuid":
            return UuidOp((f,), tag=tag, owner=owner)
        if t.name == "string":
            return StringOp((f,), owner=owner, refuses_null_inline=refuse,
                            compact=compact, nullable=nullable, tag=tag,
                            short_inline=inlines_short_strings(t.name, compact, self.hot))
        if t.name == "bytes":
            return BytesOp((f,), owner=owner, refuses_null_inline=refuse,
                           compact=compact, nullable=nullable, tag=tag)
        if t.name == "records":
            return RecordsOp((f,), owner=owner, refuses_null_inline=refuse,
                             compact=compact, nullable=nullable, tag=tag)
        if t.is_struct:
            assert f.struct is not None
            return StructOp((f,), owner=owner, refuses_null_inline=refuse,
                            target=self._build(f.struct, v), nullable=nullable, tag=tag)
        assert t.is_array and t.element is not None
        e, short = t.element, inlines_short_arrays(compact, self.hot)
        unset = self.flavour.leaves_empty_arrays_unset and not f.has_null_default
        if e.name in FIXED_TYPES:
            code = STRUCT_CODES[e.name]
            integers = self.flavour.compiled_steps and e.name in INTEGER_READERS
            array = (IntegerArray if integers else FixedArray)(
                (f,), owner=owner, refuses_null_inline=refuse,
                compact=compact, nullable=nullable, short_inline=short, tag=tag,
                left_unset_when_empty=unset, code=code, width=e.fixed_width or 0, element=e.name)
            if short and not array.one_call:
                # Tables of precompiled structs by element count: _unpack_int32s[3] reads three.
                unpack = self._helper(("unpack array", e.name), f"_unpack_{e.name}s", f'_w.UNPACK_ARRAY["{code}"]')
                pack = self._helper(("pack array", e.name), f"_pack_{e.name}s", f'_w.PACK_ARRAY["{code}"]')
                array = dataclasses.replace(array, unpack=unpack, pack=pack)
            return array
        loops = loops_over_elements(self.hot)
        if e.name == "uuid":
            return (UuidArray if loops else SharedUuidArray)((f,), owner=owner, refuses_null_inline=refuse,
                             compact=compact, nullable=nullable, short_inline=short, tag=tag,
                             left_unset_when_empty=unset)
        if e.name in ("string", "bytes", "records"):
            return (BytesArray if loops else SharedBytesArray)((f,), owner=owner, refuses_null_inline=refuse,
                              compact=compact, nullable=nullable, short_inline=short, tag=tag,
                              left_unset_when_empty=unset, element=e.name)
        assert f.struct is not None
        target = self._build(f.struct, v)
        if not loops:
            return SharedStructArray((f,), owner=owner, refuses_null_inline=refuse, compact=compact,
                                     nullable=nullable, tag=tag, target=target)
        inline = self.flavour.reads_elements_inline and reads_elements_inline(f, target, self.hot,
                                                                              self.message.flexible_at(v))
        rows = ""
        if rows_read_at_once(target):  # a row reader, named after the element layout's versions
            rows = self._helper(("rows", target.name), f"_rows_{target.struct.name}_{target.suffix}",
                                f'struct.Struct("{target.row_format}").iter_unpack', target.struct)
            self._row_readers.add(rows)
        return (CompiledStructArray if self.flavour.compiled_steps else StructArray)(
            (f,), owner=owner, refuses_null_inline=refuse,
            compact=compact, nullable=nullable, short_inline=short, tag=tag,
            left_unset_when_empty=unset, target=target, rows=rows, inline=inline)

    def _fixed_run(self, struct: Struct, fields: list[Field], owner: LayoutName,
                   tag: int | None = None) -> FixedRun:
        fmt = ">" + "".join(STRUCT_CODES[f.type.name] for f in fields)
        width = sum(f.type.fixed_width or 0 for f in fields)
        attrs = [f.attr_name for f in fields]
        # Named after the fields they read: _unpack_Topic_partition_index_leader_id, or
        # _unpack_Topic_partition_index_to_leader_epoch for longer runs.
        short = "_".join(attrs) if len(attrs) <= 2 else f"{attrs[0]}_to_{attrs[-1]}"
        key = (struct.name, tuple(attrs))
        unpack = self._helper(("unpack",) + key, f"_unpack_{struct.name}_{short}",
                              f'struct.Struct("{fmt}").unpack_from',
                              struct, f"_unpack_{struct.name}_{'_'.join(attrs)}")
        pack = self._helper(("pack",) + key, f"_pack_{struct.name}_{short}", f'struct.Struct("{fmt}").pack',
                            struct, f"_pack_{struct.name}_{'_'.join(attrs)}")
        # (its helpers are declared in either flavour: compiled modules have always had them)
        integers = self.flavour.compiled_steps and all(f.type.name in INTEGER_READERS for f in fields)
        return (IntegerRun if integers else FixedRun)(tuple(fields), fmt=fmt, width=width, unpack=unpack, pack=pack,
                                                      tag=tag, owner=owner)

    def _bridge(self, struct: Struct, before: FixedRun, array: ArrayOp, after: FixedRun,
                records: RecordsOp | None) -> EmptyArrayBridge:
        first = before.fields[0].attr_name
        last = after.fields[-1].attr_name if records is None else f"{records.attr}_length"
        unpack = self._helper(("bridge", struct.name, first, last), f"_unpack_{struct.name}_{first}_to_{last}",
                              f'struct.Struct("{bridge_format(before, after, records is not None)}").unpack_from',
                              struct)
        return EmptyArrayBridge(before, array, after, unpack, records)

    def _helper(self, key: tuple, name: str, expression: str, owner: Struct | None = None,
                longer_name: str = "") -> str:
        """The module-level name of a helper (made once per key); ``longer_name`` is taken
        when ``name`` already means something else. ``owner`` is the struct it reads."""
        if key not in self._helper_names:
            if name in self.helpers and longer_name:
                name = longer_name
            assert name not in self.helpers, name
            self.helpers[name] = expression
            self._helper_names[key] = name
            self._helper_owners[name] = owner.name if owner is not None else None
        return self._helper_names[key]

    def _sorted_helpers(self, structs: tuple[StructPlan, ...]) -> dict[str, str]:
        """Helpers in the order of the structs they read (as the classes), shared ones last; a
        struct's row readers after its other helpers."""
        order = {sp.struct.name: i for i, sp in enumerate(structs)}
        names = sorted(self.helpers, key=lambda name: (order.get(self._helper_owners[name] or "", len(order)),
                                                       name in self._row_readers))
        return {name: self.helpers[name] for name in names}

    def _struct_plans(self) -> tuple[StructPlan, ...]:
        plans = []
        top = self.message.valid_versions.highest + 1 if not self.message.valid_versions.empty else 0
        for struct in self.message.all_structs() + [self.message.struct]:
            at = self._key_at.get(struct.name, {})
            by_version = {v: self._layouts[key] for v, key in at.items()}
            layouts = sorted({id(g): g for g in by_version.values()}.values(), key=lambda g: g.versions[0])
            plans.append(StructPlan(struct, tuple(layouts), tuple(by_version.get(v) for v in range(top)),
                                    self._made_on_first_read(struct)))
        return tuple(plans)

    def _made_on_first_read(self, struct: Struct) -> frozenset[str]:
        """Struct fields whose default (a new struct) the class makes on first read, where the
        flavour does so; not where null is a value of its own (None cannot mean "not made yet")."""
        if not self.flavour.struct_defaults_on_first_read:
            return frozenset()
        return frozenset(f.name for f in struct.fields if f.type.is_struct and not f.type.is_array
                         and not f.has_null_default and f.nullable_versions.empty)
