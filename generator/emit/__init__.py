"""Emit one Python module per definition, and the package ``__init__`` that indexes them."""
from __future__ import annotations

import sysconfig
from collections.abc import Iterable
from pathlib import Path

import jinja2

from kwire.wire import struct_base

from ..native_inline import paste_varint
from ..model import Message, snake_case
from .flavours import COMPILED, PURE
from .views import ModuleView

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("kwire.generator", "templates"),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)


# The compiled build's copy of kwire/struct_base.py (see there for why it is copied).
NATIVE_BASE = "_base.py"


def module_name(message: Message) -> str:
    return snake_case(message.name)


def render_message(message: Message, source: str | None = None, *, native: bool = False) -> str:
    """The module for one definition; ``native`` renders the flavour built by ``--compile``."""
    view = ModuleView(message, COMPILED if native else PURE, source)
    return _ENV.get_template("module.py.j2").render(module=view)


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
        # kwire.wire.varint pasted in: _base is compiled alone and would call it as plain Python
        files[NATIVE_BASE] = paste_varint(Path(struct_base.__file__).read_text())
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
