"""Plan the generated code: which versions share a layout, and the steps to read/write each.

The templates only render; every decision (coalescing fixed-width fields into one ``struct``
call, grouping versions with identical layouts, compact vs classic encodings, what counts as a
default) is made here, from the model, once per (struct, layout).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field as dc_field
from functools import cached_property

from ..model import Field, Message, Struct
from ..types import STRUCT_CODES

FIXED_TYPES = frozenset(["bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64"])
# Fixed-width types that compiled builds read with kwire.wire.struct_base's integer readers (float64
# keeps struct: compiled arithmetic has no cheaper way to build a double).
NATIVE_READERS = {"bool": "read_bool", "int8": "read_int8", "int16": "read_int16", "uint16": "read_uint16",
                  "int32": "read_int32", "uint32": "read_uint32", "int64": "read_int64"}


@dataclass
class Op:
    """One step of a reader/writer/sizer: a field, or a run of fixed-width fields."""

    kind: str  # fixed | uuid | string | bytes | records | struct | array_fixed | array_var | array_struct
    fields: list[Field]
    compact: bool = False
    nullable: bool = False
    fmt: str = ""  # struct format for 'fixed' runs; element code for 'array_fixed'
    width: int = 0  # bytes of a fixed run, or of one element of 'array_fixed'
    elem: str = ""  # element kind of 'array_var': string | bytes | uuid
    target: "Group | None" = None  # the nested struct's group for struct ops
    tag: int | None = None

    @property
    def field(self) -> Field:
        return self.fields[0]

    @property
    def attr(self) -> str:
        return self.fields[0].attr_name

    @property
    def label(self) -> str:
        """The field path element shown in decode errors."""
        if self.kind == "fixed":
            return ", ".join(f.attr_name for f in self.fields)
        if self.kind in ("array_struct",):
            return f"{self.attr}[]"
        return self.attr

    @property
    def native_reads(self) -> list[tuple[str, str, int]] | None:
        """(attribute, reader, offset) for each field of a 'fixed' run in a compiled build, or
        None when the run has a type that keeps the struct call."""
        if any(f.type.name not in NATIVE_READERS for f in self.fields):
            return None
        reads, offset = [], 0
        for f in self.fields:
            reads.append((f.attr_name, NATIVE_READERS[f.type.name], offset))
            offset += f.type.fixed_width or 0
        return reads

    @property
    def native_element_reader(self) -> str | None:
        """The integer reader of one element of an 'array_fixed' in a compiled build, if any."""
        e = self.field.type.element
        return NATIVE_READERS.get(e.name) if e is not None else None

    @property
    def keyed(self) -> bool:
        return self.kind == "array_struct" and bool(self.field.struct and self.field.struct.map_key_fields)


@dataclass
class Group:
    """Versions of one struct that share a layout, and so share generated functions."""

    struct: Struct
    versions: list[int]
    flexible: bool
    ops: list[Op] = dc_field(default_factory=list)
    tagged: list[Op] = dc_field(default_factory=list)
    absent: list[Field] = dc_field(default_factory=list)

    @cached_property
    def suffix(self) -> str:
        v = self.versions
        if v == list(range(v[0], v[-1] + 1)):
            return f"v{v[0]}" if len(v) == 1 else f"v{v[0]}_{v[-1]}"
        return "v" + "_".join(map(str, v))

    @property
    def reader(self) -> str:
        return f"_read_{self.struct.name}_{self.suffix}"

    @property
    def writer(self) -> str:
        return f"_write_{self.struct.name}_{self.suffix}"

    @property
    def sizer(self) -> str:
        return f"_size_{self.struct.name}_{self.suffix}"

    @property
    def version_text(self) -> str:
        v = self.versions
        return str(v[0]) if len(v) == 1 else f"{v[0]}-{v[-1]}" if v == list(range(v[0], v[-1] + 1)) else ",".join(map(str, v))

    @property
    def row_format(self) -> str | None:
        """The struct format of one element when the whole layout is one fixed-width run.

        Arrays of such elements decode with one ``struct.iter_unpack`` over all elements. In
        flexible versions the format ends with the element's tag-count byte, which must be 0
        for every element (otherwise the generic path runs).
        """
        if self.absent or self.tagged or len(self.ops) > 1 or any(op.kind != "fixed" for op in self.ops):
            return None
        if not self.ops:
            return None
        return self.ops[0].fmt + ("B" if self.flexible else "")

    @property
    def row_fields(self) -> list[Field]:
        return self.ops[0].fields if self.ops else []

    @property
    def row_width(self) -> int:
        return self.fixed_size + (1 if self.flexible else 0)

    @property
    def checks_size(self) -> bool:
        """Whether the reader's inline fast paths compare against the buffer size (kept in a local)."""
        return any(op.kind == "array_struct" or op.compact and (op.kind == "string" or op.kind.startswith("array"))
                   for op in self.ops + self.tagged)

    @property
    def fixed_size(self) -> int:
        """Bytes written by the fixed-width runs (constant part of the size)."""
        return sum(op.width for op in self.ops if op.kind == "fixed")


@dataclass
class StructPlan:
    struct: Struct
    groups: list[Group]
    table: list[Group | None]  # index = version


class MessagePlan:
    """Everything the templates need for one definition."""

    def __init__(self, message: Message) -> None:
        self.message = message
        self._keys: dict[tuple[str, int], tuple] = {}
        self._groups: dict[tuple[str, tuple], Group] = {}
        self._by_struct: dict[str, dict[int, Group]] = {}
        for v in message.versions():
            self._walk(message.struct, v)
        self.structs = self._struct_plans()

    # --- layouts ---------------------------------------------------------------------------
    def _layout_key(self, struct: Struct, v: int) -> tuple:
        key = (struct.name, v)
        if key not in self._keys:
            m = self.message
            parts = []
            for f in struct.fields:
                if not f.present_in(v):
                    parts.append((f.name, "absent"))
                    continue
                nested = self._layout_key(f.struct, v) if f.struct is not None else None
                parts.append((f.name, f.tagged_in(v), f.nullable_in(v), self._compact(f, v), nested))
            self._keys[key] = (m.flexible_at(v), tuple(parts))
        return self._keys[key]

    def _compact(self, f: Field, v: int) -> bool:
        if f.type.name in ("string", "bytes"):
            return self.message.string_flexible_at(f, v)
        return self.message.flexible_at(v)

    def _walk(self, struct: Struct, v: int) -> Group:
        existing = self._by_struct.setdefault(struct.name, {})
        if v in existing:
            return existing[v]
        key = (struct.name, self._layout_key(struct, v))
        group = self._groups.get(key)
        if group is None:
            group = Group(struct, [], self.message.flexible_at(v))
            self._groups[key] = group
            self._fill(group, v)
        group.versions.append(v)
        existing[v] = group
        for f in struct.fields:  # nested structs at this version, also when the group already existed
            if f.struct is not None and f.present_in(v):
                self._walk(f.struct, v)
        return group

    def _fill(self, group: Group, v: int) -> None:
        run: list[Field] = []

        def flush() -> None:
            if run:
                fmt = ">" + "".join(STRUCT_CODES[f.type.name] for f in run)
                width = sum(f.type.fixed_width or 0 for f in run)
                group.ops.append(Op("fixed", list(run), fmt=fmt, width=width))
                run.clear()

        for f in group.struct.fields:
            if not f.present_in(v):
                group.absent.append(f)
            elif f.tagged_in(v):
                continue
            elif f.type.name in FIXED_TYPES:
                run.append(f)
            else:
                flush()
                group.ops.append(self._op(f, v, compact=self._compact(f, v)))
        flush()
        tagged = [f for f in group.struct.fields if f.tagged_in(v)]
        for f in sorted(tagged, key=lambda f: f.tag):  # type: ignore[arg-type, return-value]
            op = self._op(f, v, compact=True)
            op.tag = f.tag
            group.tagged.append(op)

    def _op(self, f: Field, v: int, compact: bool) -> Op:
        nullable = f.nullable_in(v)
        t = f.type
        if t.name in FIXED_TYPES:
            return Op("fixed", [f], fmt=">" + STRUCT_CODES[t.name], width=t.fixed_width or 0)
        if t.name in ("string", "bytes", "records", "uuid"):
            return Op(t.name, [f], compact=compact, nullable=nullable)
        if t.is_struct:
            return Op("struct", [f], nullable=nullable, target=self._walk(f.struct, v))  # type: ignore[arg-type]
        assert t.is_array and t.element is not None
        e = t.element
        if e.name in FIXED_TYPES:
            return Op("array_fixed", [f], compact=compact, nullable=nullable,
                      fmt=STRUCT_CODES[e.name], width=e.fixed_width or 0)
        if e.name in ("string", "bytes", "uuid", "records"):
            return Op("array_var", [f], compact=compact, nullable=nullable, elem=e.name)
        return Op("array_struct", [f], compact=compact, nullable=nullable, target=self._walk(f.struct, v))  # type: ignore[arg-type]

    def _struct_plans(self) -> list[StructPlan]:
        plans = []
        top = self.message.valid_versions.highest + 1 if not self.message.valid_versions.empty else 0
        for struct in self.message.all_structs() + [self.message.struct]:
            by_version = self._by_struct.get(struct.name, {})
            groups: list[Group] = []
            for g in sorted({id(g): g for g in by_version.values()}.values(), key=lambda g: g.versions[0]):
                groups.append(g)
            table = [by_version.get(v) for v in range(top)]
            plans.append(StructPlan(struct, groups, table))
        return plans


# --- python literals for defaults -------------------------------------------------------------

def default_literal(f: Field, uuid_names: dict[str, str]) -> str:
    """Python source of the field's default value (struct/array defaults are handled by callers)."""
    value = f.default_value()
    t = f.type
    if value is None:
        return "None"
    if t.name == "uuid":
        return uuid_names.setdefault(str(value), f"_UUID_{len(uuid_names)}")
    if t.name == "float64":
        if math.isnan(value) or math.isinf(value):
            return f"float({str(value)!r})"
        return repr(value)
    return repr(value)


def non_default_check(f: Field, expr: str, uuid_names: dict[str, str]) -> str:
    """A Python condition that is true when ``expr`` differs from the field's default."""
    t = f.type
    if f.has_null_default:
        return f"{expr} is not None"
    if t.is_array:
        return f"({expr} is None or len({expr}) != 0)"
    if t.is_struct:
        return f"{expr} != {t.name}()"
    if t.name == "bool":
        return expr if f.default_value() is False else f"not {expr}"
    return f"{expr} != {default_literal(f, uuid_names)}"


def python_type(f: Field, nullable: bool, *, parameter: bool = False) -> str:
    """The annotation of a field's attribute: what decoding gives (mapKey arrays are KeyedLists).

    As a constructor ``parameter`` any list will do: the constructor makes it a KeyedList.
    """
    t = f.type
    if not t.is_array:
        base = _py_scalar(t.name)
    else:
        keyed = f.struct is not None and f.struct.map_key_fields and not parameter
        container = "KeyedList" if keyed else "list"
        base = f"{container}[{_py_scalar(t.element.name)}]"  # type: ignore[union-attr]
    return f"{base} | None" if nullable else base


def _py_scalar(name: str) -> str:
    return {
        "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int", "uint32": "int",
        "int64": "int", "float64": "float", "string": "str", "bytes": "bytes", "records": "RecordsView | bytes",
        "uuid": "UUID",
    }.get(name, name)
