"""Emit one Python module per definition, and the package ``__init__`` that indexes them."""
from __future__ import annotations

import sysconfig
import textwrap
from collections.abc import Iterable
from pathlib import Path

import jinja2

from kwire.wire import struct_base

from ..model import Field, Message, snake_case
from ..versions import Versions
from .code import block
from .flavours import COMPILED, PURE, PurePython
from .ops import ArrayOp, BytesArray, FixedRun, Op, StructArray, UuidArray
from .plan import Layout, MessagePlan, StructPlan
import math

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("kwire.generator", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)


# The compiled build's copy of kwire/struct_base.py (see there for why it is copied).
NATIVE_BASE = "_base.py"


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


def module_name(message: Message) -> str:
    return snake_case(message.name)


def _doc(text: str, fallback: str) -> str:
    text = (text or fallback).replace('"""', "'''").replace("\\", "\\\\")
    return "\n    ".join(textwrap.wrap(text, 92)) if text else fallback


def _vrange(v: Versions) -> str:
    return f"({v.lowest}, {v.highest})" if not v.empty else "(1, 0)"


def _fresh_default(f: Field, uuid_names: dict[str, str]) -> str:
    """An expression giving a new default value (arrays and structs are never shared)."""
    if f.has_null_default:
        return "None"
    t = f.type
    if t.is_array:
        return "KeyedList()" if f.struct is not None and f.struct.map_key_fields else "[]"
    if t.is_struct:
        return f"{t.name}()"
    return default_literal(f, uuid_names)


def _lazy_factory(f: Field) -> str:
    """What makes the field's default on first access ('' for defaults set eagerly).

    Pure-Python readers leave absent and untransmitted tagged struct/array fields unset; the
    base class's ``__getattr__`` calls this factory the first time such a field is read.
    """
    if f.has_null_default or not (f.type.is_array or f.type.is_struct):
        return ""
    if f.type.is_array:
        return "KeyedList" if f.struct is not None and f.struct.map_key_fields else "list"
    return f.type.name


def _param(f: Field, uuid_names: dict[str, str]) -> tuple[str, str, str]:
    """(type hint, default, init expression) of a constructor parameter."""
    nullable = not f.nullable_versions.empty
    hint = python_type(f, nullable, parameter=True)
    t = f.type
    if t.is_array or t.is_struct:
        # None asks for the default, so that no mutable default is ever shared.
        fresh = _fresh_default(f, uuid_names)
        hint = hint if hint.endswith("| None") else f"{hint} | None"
        if f.has_null_default:
            init = f.attr_name
        elif t.is_array and f.struct is not None and f.struct.map_key_fields:
            init = f"KeyedList() if {f.attr_name} is None else {f.attr_name} if type({f.attr_name}) is KeyedList else KeyedList({f.attr_name})"
        else:
            init = f"{fresh} if {f.attr_name} is None else {f.attr_name}"
        return hint, "None", init
    return hint, default_literal(f, uuid_names), f.attr_name


def _info_default(f: Field, uuid_names: dict[str, str]) -> str:
    if f.has_null_default:
        return "None"
    if f.type.is_array or f.type.is_struct:
        return "()"
    return default_literal(f, uuid_names)


def _step_read(op: Op, flavour: PurePython) -> str:
    lines = [f'_f = "{op.label}"']
    if isinstance(op, (StructArray, BytesArray, UuidArray)):
        lines.append("_i = -1  # no element yet: an error in the count names the array itself")
    return block(lines + op.read("o", flavour))


def render_message(message: Message, source: str | None = None, *, native: bool = False) -> str:
    """The module for one definition; ``native`` renders the flavour built by ``--compile``."""
    flavour = COMPILED if native else PURE
    plan = MessagePlan(message)
    uuid_names: dict[str, str] = {}
    structs: list[StructPlan] = plan.structs
    fields: list[Field] = []
    for sp in structs:
        fields.extend(sp.struct.fields)

    hints: dict[str, dict[str, str]] = {}
    param_hints: dict[str, dict[str, str]] = {}
    param_defaults: dict[str, dict[str, str]] = {}
    init_exprs: dict[str, dict[str, str]] = {}
    docs, valid = {}, {}
    for sp in structs:
        s = sp.struct
        hints[s.name], param_hints[s.name], param_defaults[s.name], init_exprs[s.name] = {}, {}, {}, {}
        for f in s.fields:
            hints[s.name][f.name] = python_type(f, not f.nullable_versions.empty)
            ph, pd, ie = _param(f, uuid_names)
            param_hints[s.name][f.name], param_defaults[s.name][f.name], init_exprs[s.name][f.name] = ph, pd, ie
        if s is message.struct:
            key = f", apiKey {message.api_key}" if message.api_key is not None else ""
            docs[s.name] = _doc("", f"Kafka's {message.name} ({message.type}{key}), versions "
                                    f"{message.valid_versions}, flexible versions {message.flexible_versions}.")
        else:
            docs[s.name] = _doc(s.about, f"The {s.name} structure of {message.name}.")
        present = [v for v, g in enumerate(sp.table) if g is not None]
        valid[s.name] = (present[0], present[-1]) if present else (1, 0)

    checks = {f: non_default_check(f, f"o.{f.attr_name}", uuid_names) for f in fields}
    fresh_defaults = {f: _fresh_default(f, uuid_names) for f in fields}
    lazy_factories = {f: _lazy_factory(f) for f in fields if _lazy_factory(f)}
    info_defaults = {f: _info_default(f, uuid_names) for f in fields}

    def new_instance(layout: Layout) -> str:
        unset = layout.absent + [op.field for op in layout.tagged]
        return block(flavour.new_instance(
            layout.struct.name, "o",
            arrays=[(op.attr, isinstance(op, StructArray) and op.keyed) for op in layout.ops if isinstance(op, ArrayOp)],
            defaults=[(f.attr_name, fresh_defaults[f]) for f in unset if f not in lazy_factories]))

    # the message struct's docstring comes from the definition's file-level description, if any
    return _ENV.get_template("module.py.j2").render(
        message=message,
        source=source or Path(message.source).name,
        about_message=f"{message.type.capitalize()} message, versions {message.valid_versions}, "
                      f"flexible versions {message.flexible_versions}.",
        structs=structs,
        helpers=plan.helpers,
        has_records=any(f.type.name == "records" for f in fields),
        uuid_names=uuid_names,
        hints=hints,
        param_hints=param_hints,
        param_defaults=param_defaults,
        init_exprs=init_exprs,
        docs=docs,
        valid=valid,
        checks=checks,
        fresh_defaults=fresh_defaults,
        lazy_factories=lazy_factories,
        info_defaults=info_defaults,
        vrange=_vrange,
        flavour=flavour,
        new_instance=new_instance,
        read=lambda op: _step_read(op, flavour),
        write=lambda op, out: block([f'_f = "{op.label}"'] + op.write("o", out)),
        size=lambda op, acc: block(op.size("o", acc)),
        is_fixed=lambda op: isinstance(op, FixedRun),
    )


def render_package_init(messages: Iterable[Message]) -> str:
    return _ENV.get_template("package_init.py.j2").render(
        modules=[(module_name(m), m.name) for m in sorted(messages, key=lambda m: m.name)]
    )


def render_all(messages: Iterable[Message], *, native: bool = False) -> dict[str, str]:
    """File name -> content for the whole generated package.

    ``native`` renders the sources that ``kwire generate --compile`` hands to mypyc: the same
    plan, with reads shaped for compiled code, and the base class copied in as ``_base.py``.
    """
    messages = list(messages)
    files = {f"{module_name(m)}.py": render_message(m, native=native) for m in messages}
    files["__init__.py"] = render_package_init(messages)
    files["py.typed"] = ""  # PEP 561: the generated classes' annotations are for the user's type checker
    if native:
        files[NATIVE_BASE] = Path(struct_base.__file__).read_text()
    return files


def write_package(files: dict[str, str], out_dir: Path) -> list[str]:
    """Write files that changed, remove stale modules; return the names written or removed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, content in files.items():
        path = out_dir / name
        if not path.exists() or path.read_text() != content:
            path.write_text(content)
            changed.append(name)
    for path in out_dir.glob("*.py"):
        if path.name not in files:
            path.unlink()
            changed.append(path.name)
    if changed:
        # Extension modules of a compiled build would shadow the new sources: drop them
        # (`kwire generate --compile` builds them again).
        for path in out_dir.glob("*" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")):
            path.unlink()
            changed.append(path.name)
    return changed


def stale_files(files: dict[str, str], out_dir: Path) -> list[str]:
    """Names of files that `write_package` would write or remove."""
    stale = [n for n, c in files.items() if not (out_dir / n).exists() or (out_dir / n).read_text() != c]
    stale += [p.name for p in out_dir.glob("*.py") if p.name not in files]
    return sorted(stale)
