"""What the templates render: one view per module, struct, field and layout.

A view holds finished pieces of Python source (names, annotations, expressions, the code of
each step) computed from the plan and the model, so that the templates only place them. Views
are built eagerly: building them registers the module-level version ranges that the module's
header declares (the plan names the uuid defaults, which a new instance's code needs).
"""
from __future__ import annotations

import builtins
import keyword
import re
import textwrap
from pathlib import Path

from ..definitions.model import Field, Message, Struct, snake_case
from ..definitions.versions import Versions
from .code import LINE_LENGTH, block
from .constants import ModuleConstants, default_literal
from .flavours import Flavour
from .ops import Layout, Op, VersionTest, records_hidden_slots
from .plan import StructPlan, on_hot_path, plan

# Locals of the generated functions, which a struct's instance local must not shadow.
FUNCTION_LOCALS = frozenset({"buf", "pos", "version", "size", "field", "index", "count", "unknown", "tag", "end", "out",
                             "tagged", "payload", "error", "struct", "other", "k"})
# Words that read as something else in a codec (a protocol version, a byte offset, a field): a
# struct whose name ends in one keeps its whole name as its local (api_version, not version).
AMBIGUOUS_WORDS = frozenset({"version", "versions", "offset", "epoch", "name", "length"})
# Suffixes of the locals a step makes from its field's attribute name (see .ops).
STEP_LOCAL_SUFFIXES = ("_n", "_end", "_items", "_item", "_rows", "_row", "_utf8", "_start", "_view", "_index")
TEXT_WIDTH = 92
COMMENT_WIDTH = 100  # generated lines are long anyway: an about text keeps to one or two


# --- Python source of values and annotations -----------------------------------------------------

def keyed(f: Field) -> bool:
    return f.type.is_array and f.struct is not None and bool(f.struct.map_key_fields)


def python_type(f: Field, nullable: bool, *, parameter: bool = False, records: str = "RecordsView | bytes") -> str:
    """The annotation of a field's attribute: what decoding gives (mapKey arrays are KeyedLists).

    As a constructor ``parameter`` any list will do: the constructor makes it a KeyedList.
    ``records`` is the flavour's annotation of a records field.
    """
    t = f.type
    if t.name == "records":
        base = records
    elif not t.is_array:
        base = _py_scalar(t.name)
    else:
        container = "KeyedList" if keyed(f) and not parameter else "list"
        base = f"{container}[{_py_scalar(t.element.name)}]"  # type: ignore[union-attr]
    return f"{base} | None" if nullable else base


def _py_scalar(name: str) -> str:
    return {
        "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int", "uint32": "int",
        "int64": "int", "float64": "float", "string": "str", "bytes": "bytes", "records": "RecordsView | bytes",
        "uuid": "UUID",
    }.get(name, name)


def versions_note(f: Field) -> str:
    """``versions 3+, nullable, tag 2``: where the field is on the wire, as the definition says."""
    v = f.versions
    notes = [f"version {v}" if v.lowest == v.highest else f"versions {v}"]
    if not f.nullable_versions.empty:
        notes.append("nullable" if f.nullable_versions == v else f"nullable {f.nullable_versions}")
    if not f.tagged_versions.empty:
        notes.append(f"tag {f.tag}" if f.tagged_versions == v else f"tag {f.tag} in {f.tagged_versions}")
    if f.map_key:
        notes.append("map key")
    if f.ignorable:
        notes.append("ignorable")
    return ", ".join(notes)


def docstring_text(text: str) -> str:
    """``text`` as it can stand inside a triple-quoted string."""
    return text.replace('"""', "'''").replace("\\", "\\\\")


def docstring(text: str) -> str:
    """Text for a class docstring, wrapped, at the class body's indent."""
    return "\n    ".join(textwrap.wrap(docstring_text(text), TEXT_WIDTH))


def tuple_source(items: list[str]) -> str:
    """A tuple display of ``items`` (Python expressions)."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def mentions(code: str, name: str) -> bool:
    """Whether Python ``code`` names ``name`` outside its string literals and comments."""
    code = re.sub(r"#.*", "", re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", '""', code))
    return re.search(rf"\b{name}\b", code) is not None


def table_source(lead: str, items: list[str], bound: bool) -> str:
    """A version table (``items``, one per version) assigned after ``lead``: on one line where it
    fits in LINE_LENGTH, else wrapped, as many items a line as fit; ``bound`` wraps the tuple in
    ``_w.bind_versions``."""
    opening, closing = ("_w.bind_versions((", "))") if bound else ("(", ")")
    one_line = f"{opening[:-1]}{tuple_source(items)}{closing[:-1]}" if bound else tuple_source(items)
    if len(lead) + len(one_line) <= LINE_LENGTH:
        return one_line
    rows: list[str] = []
    for item in items:
        if rows and len(rows[-1]) + len(item) + 2 <= LINE_LENGTH:
            rows[-1] += f" {item},"
        else:
            rows.append(f"    {item},")
    return "\n".join([opening, *rows, closing])


def instance_name(struct: Struct) -> str:
    """The local that holds an instance of ``struct`` in its generated functions: the last word
    of its name (``topic`` for MetadataResponseTopic), or the whole name where that is taken."""
    taken = FUNCTION_LOCALS | AMBIGUOUS_WORDS | set(keyword.kwlist) | set(dir(builtins))
    taken |= {f.attr_name + suffix for f in struct.fields for suffix in STEP_LOCAL_SUFFIXES}
    full = snake_case(struct.name)
    for name in (full.rpartition("_")[2], full, f"{full}_obj"):
        if name not in taken:
            return name
    raise AssertionError(f"no local name for {struct.name}")


def version_range(v: Versions, within: Versions) -> str:
    """``(lo, hi)`` of ``v`` inside ``within`` (a "+" range ends where ``within`` does), or ``None``."""
    low, high = max(v.lowest, within.lowest), min(v.highest, within.highest)
    return "None" if v.empty or low > high else f"({low}, {high})"


def message_constants(message: Message) -> list[tuple[str, str, str]]:
    """(name, annotation, value) of the class constants a message class carries besides
    VALID_VERSIONS: what its definition says of its versions and, for a request, its listeners."""
    valid = message.valid_versions
    stable = valid
    if message.latest_version_unstable:  # Kafka's latestVersionUnstable: the top version is not stable yet
        stable = Versions(valid.lowest, valid.highest - 1)
    constants = [("STABLE_VERSIONS", "tuple[int, int] | None", version_range(stable, valid)),
                 ("DEPRECATED_VERSIONS", "tuple[int, int] | None", version_range(message.deprecated_versions, valid))]
    if message.type == "request":
        listeners = ", ".join(f'"{name}"' for name in sorted(message.listeners))
        constants.append(("LISTENERS", "frozenset[str]", f"frozenset({{{listeners}}})" if listeners else "frozenset()"))
    return constants


# --- views ---------------------------------------------------------------------------------------

class FieldView:
    """One field of a generated class: its annotation, constructor parameter, description."""

    def __init__(self, f: Field, constants: ModuleConstants) -> None:
        self.field = f
        self.attr = f.attr_name
        self.hint = python_type(f, not f.nullable_versions.empty)
        self.about = textwrap.wrap(f.about, COMMENT_WIDTH - 6)
        # The about text as the attribute's docstring (IDEs, pdoc) and its slot's (help()).
        self.doc_lines = textwrap.wrap(docstring_text(f.about), COMMENT_WIDTH - 10)
        self.slot_doc = repr(f.about) if f.about else "None"
        self.versions_note = versions_note(f)
        self.fresh_default = self._fresh_default(constants)
        self.lazy_factory = self._lazy_factory()
        self.info = self._field_info(constants)
        # Compiled classes hold a struct default as None in a slot of its own (``slot``) behind a
        # property that makes it on first read (see Compiled.struct_defaults_on_first_read).
        self.made_on_first_read = False
        self.slot = self.attr
        self._default_literal = default_literal(f, constants) if not (f.type.is_array or f.type.is_struct) else ""
        self.param_hint = self.param_default = self.init = ""  # set by parameter(), once the slot is known

    def _fresh_default(self, constants: ModuleConstants) -> str:
        """An expression giving a new default value (arrays and structs are never shared)."""
        f, t = self.field, self.field.type
        if f.has_null_default:
            return "None"
        if t.is_array:
            return "KeyedList()" if keyed(f) else "[]"
        if t.is_struct:
            return f"{t.name}()"
        return default_literal(f, constants)

    def _lazy_factory(self) -> str:
        """What makes the field's default on first access ('' for defaults set eagerly).

        Pure-Python readers leave absent and untransmitted tagged struct/array fields unset; the
        base class's ``__getattr__`` calls this factory the first time such a field is read.
        """
        f = self.field
        if f.has_null_default or not (f.type.is_array or f.type.is_struct):
            return ""
        if f.type.is_array:
            return "KeyedList" if keyed(f) else "list"
        return f.type.name

    def parameter(self, flavour: Flavour) -> None:
        """Set the constructor parameter's type hint, default and init expression.

        None is Kafka's null, as in Kafka's Java classes: the hint allows it only where the field
        is nullable at some version, and the constructor stores it as given (a writer refuses it
        at a version where the field is not nullable). An omitted argument means the definition's
        default: for arrays and structs whose default is not null a fresh one, asked for by the
        flavour's "omitted" marker so that no mutable default is ever shared.
        """
        f, attr = self.field, self.attr
        nullable = not f.nullable_versions.empty
        self.hint = python_type(f, nullable, records=flavour.records_hint)
        self.param_hint = python_type(f, nullable, parameter=True, records=flavour.records_hint)
        self.init = attr
        if not (f.type.is_array or f.type.is_struct):
            self.param_default = self._default_literal
            return
        if f.has_null_default:
            self.param_default = "None"
            return
        if self.made_on_first_read:  # compiled only: the slot's None means "not made yet"
            self.param_hint = python_type(f, True, parameter=True)
            self.param_default = "None"
            return
        omitted = self.param_default = flavour.omitted(f.type.name if f.type.is_struct else None)
        if keyed(f):
            kept = f"type({attr}) is KeyedList or {attr} is None"  # None: null, refused at encode where not nullable
            self.init = f"KeyedList() if {attr} is {omitted} else {attr} if {kept} else KeyedList({attr})"
        else:
            self.init = f"{self.fresh_default} if {attr} is {omitted} else {attr}"

    def _field_info(self, constants: ModuleConstants) -> str:
        """The FieldInfo(...) that describes the field at run time; arguments at their defaults
        (never nullable, never tagged, not ignorable, null default) are left out."""
        f = self.field
        args = [f'attr="{self.attr}"', f'json_name="{f.json_name}"', f'type="{f.type}"',
                f"versions={constants.versions(f.versions)}"]
        if not f.nullable_versions.empty:
            args.append(f"nullable={constants.versions(f.nullable_versions)}")
        if not f.tagged_versions.empty:
            args.append(f"tagged={constants.versions(f.tagged_versions)}")
        if f.tag is not None:
            args.append(f"tag={f.tag}")
        if f.ignorable:
            args.append("ignorable=True")
        if not f.has_null_default:
            args.append(f"default={'()' if f.type.is_array or f.type.is_struct else default_literal(f, constants)}")
        if f.struct is not None:
            args.append(f"struct={f.struct.name}")
        if f.map_key:
            args.append("map_key=True")
        return f"FieldInfo({', '.join(args)})"

    def differs_from_default(self, value: str) -> str:
        """A Python condition that is true when ``value`` differs from the field's default."""
        f, t = self.field, self.field.type
        if f.has_null_default:
            return f"{value} is not None"
        if t.is_array:
            return f"({value} is None or len({value}) != 0)"
        if t.is_struct:
            return f"{value} != {t.name}()"
        if t.name == "bool":
            return value if f.default_value() is False else f"not {value}"
        return f"{value} != {self._default_literal}"


class TaggedStep:
    """One known tagged field of a layout: its tag and the code of its payload."""

    def __init__(self, op: Op, obj: str, present: str) -> None:
        self.tag, self.attr = op.tag, op.attr
        self.present = present  # the writer's test: is the value worth sending (not the default)?
        self.write = block(op.write_step(obj, "payload"))


class LayoutView:
    """The reader and writer of one layout (versions sharing code) of a struct."""

    def __init__(self, layout: Layout, struct: StructView, flavour: Flavour) -> None:
        obj = self.obj = struct.instance
        fields = {f.name: view for f, view in zip(struct.struct.fields, struct.fields, strict=True)}
        self.struct_name = struct.name
        self.reader, self.writer = layout.reader, layout.writer
        self.versions = layout.version_text
        self.heading = (f"{struct.name}, version{'s' if len(layout.versions) > 1 else ''} {layout.version_text}"
                        + (" (flexible)" if layout.flexible else ""))
        self.flexible = layout.flexible
        self.new_instance = block(layout.new_instance(obj, flavour))
        # The field a failure names starts as the first step's (set before the try, not twice).
        reads, writes = layout.read_steps(obj, flavour), [op.write_step(obj, "out") for op in layout.ops]
        self.read_field = reads.pop(0) if reads and reads[0].startswith("field = ") else 'field = ""'
        if writes and writes[0][0].startswith("field = "):
            self.write_field = writes[0].pop(0)
        else:
            self.write_field = 'field = "(tagged fields)"' if layout.flexible and not writes else 'field = ""'
        self.reads = block(reads)
        # The buffer's size as a local, where a step's fast path compares against it (the plan may
        # claim it for a step whose code in this flavour does not: pure rows of fixed-width structs).
        self.reads_buffer_size = layout.reads_buffer_size and mentions(self.reads, "size")
        self.writes = [block(lines) for lines in writes]
        self.tracks_index = layout.reports_element_index
        self.inline_tag_section = layout.inline_tag_section
        self.tagged = [TaggedStep(op, obj, fields[op.field.name].differs_from_default(op.value(obj)))
                       for op in layout.tagged]
        # Fields this layout lacks: writing a non-default value there is refused unless ignorable.
        # (attribute, test, the versions the error names: a literal, or the version the function was given)
        self.refused_absent = [(f.attr_name, fields[f.name].differs_from_default(f"{obj}.{f.attr_name}"),
                                f'"{layout.version_text}"') for f in layout.absent if not f.ignorable]
        self.refused_absent += [
            (f.attr_name, f"{op.absent_test} and {fields[f.name].differs_from_default(f'{obj}.{f.attr_name}')}",
             "str(version)")
            for op in layout.ops if isinstance(op, VersionTest) for f in op.fields if not f.ignorable]
        self.version_parameter = ", version: int" if layout.takes_version else ""
        self.position_type, self.size_annotation = flavour.position_type, flavour.size_annotation


class StructView:
    """One generated class and its functions."""

    def __init__(self, plan: StructPlan, message: Message, constants: ModuleConstants, flavour: Flavour) -> None:
        s = self.struct = plan.struct
        self.name = s.name
        self.is_message = s is message.struct
        self.instance = instance_name(s)
        if self.is_message:
            key = f", apiKey {message.api_key}" if message.api_key is not None else ""
            self.doc = docstring(f"Kafka's {message.name} ({message.type}{key}), versions {message.valid_versions}, "
                                 f"flexible versions {message.flexible_versions}.")
        else:
            self.doc = docstring(s.about or f"The {s.name} structure of {message.name}.")
        present = [v for v, layout in enumerate(plan.table) if layout is not None]
        self.valid_versions = (present[0], present[-1]) if present else (1, 0)
        self.fields = [FieldView(f, constants) for f in s.fields]
        self.omitted_marker: str | None = None  # set by ModuleView
        self.own_eq = False  # a field-by-field __eq__ of its own: set by ModuleView
        self.class_constants = message_constants(message) if self.is_message else []
        for f in self.fields:
            if f.field.name in plan.made_on_first_read:
                f.made_on_first_read = True
                f.slot = f"_{f.attr}"
        for f in self.fields:
            f.parameter(flavour)
        self.layouts = [LayoutView(layout, self, flavour) for layout in plan.layouts]
        # functions that take the version: the table holds each with its version bound
        bound = any(layout is not None and layout.takes_version for layout in plan.table)
        self.readers = table_source(f"{self.name}._READERS = ",
                                    [layout.reader if layout else "None" for layout in plan.table], bound)
        self.writers = table_source(f"{self.name}._WRITERS = ",
                                    [layout.writer if layout else "None" for layout in plan.table], bound)
        self.lazy_defaults = [(f.attr, f.lazy_factory) for f in self.fields if f.lazy_factory]
        # records fields whose view a pure reader makes on first read (ops.RecordsOp.view): the
        # slots that hold where it lies, and the function that makes it
        self.made_from_input = []
        self.hidden_slots: list[tuple[str, str]] = []
        if flavour.records_view_on_first_read:
            for f in s.fields:
                if f.type.name == "records":
                    buf, start, end = records_hidden_slots(f.attr_name)
                    self.hidden_slots += [(buf, f"Until {f.attr_name} is first read: the input it lies in."),
                                          (start, f"Until {f.attr_name} is first read: where it starts."),
                                          (end, f"Until {f.attr_name} is first read: where it ends.")]
                    self.made_from_input.append(
                        (f.attr_name, f"lambda data: RecordsView(data.{buf}, data.{start}, data.{end})"))
        self.map_keys = tuple_source([f'"{f.attr_name}"' for f in s.map_key_fields]) if s.map_key_fields else ""


class ModuleView:
    """The generated module of one definition."""

    def __init__(self, message: Message, flavour: Flavour, source: str | None = None) -> None:
        module_plan = plan(message, flavour)
        self.message = message
        self.flavour = flavour
        self.source = source or Path(message.source).name
        self.about = (f"{message.type.capitalize()} message, versions {message.valid_versions}, "
                      f"flexible versions {message.flexible_versions}.")
        self.constants = ModuleConstants(dict(module_plan.uuid_names))  # the uuid defaults the plan named
        self.structs = [StructView(sp, message, self.constants, flavour) for sp in module_plan.structs]
        # Structs whose omitted-argument marker a constructor's parameter names (declared after the class).
        marked = {f.field.type.name for s in self.structs for f in s.fields
                  if f.field.type.is_struct and f.param_default == flavour.omitted(f.field.type.name)}
        for s in self.structs:
            s.omitted_marker = flavour.omitted_struct(s.name) if s.name in marked else None
        # Structs that writers compare with a new default instance (a tagged or versioned struct
        # field, FieldView.differs_from_default): once per element, so they keep a field-by-field
        # __eq__ (GeneratedStruct's generic one is slower: benchmarks/README.md, "Figures behind design choices").
        compared = {f.type.name for sp in module_plan.structs for f in sp.struct.fields
                    if f.type.is_struct and not f.type.is_array and not f.has_null_default}
        for s in self.structs:
            s.own_eq = (flavour.field_by_field_eq and on_hot_path(message)) or s.name in compared
        self.helpers = module_plan.helpers
        # one reader and writer per struct and encoding, which take the version (off the hot path)
        self.functions_take_version = any(layout.takes_version for sp in module_plan.structs for layout in sp.layouts)
        self.has_records = any(f.type.name == "records" for sp in module_plan.structs for f in sp.struct.fields)
        self.api_key = message.api_key
        self.flexible_from = message.flexible_versions.lowest if not message.flexible_versions.empty else None
