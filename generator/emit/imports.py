"""A generated module's imports, computed from the code it emits.

The templates write every import a module may need; :func:`tidy_imports` keeps the names the
module's code uses and writes the block as ruff's isort rules order it (standard library, then
kwire, then the package's own modules; ``import x`` before ``from x import``; in a ``from``
import, constants, then classes, then functions), so generated/ is lint clean without a
formatter at generation time.
"""
from __future__ import annotations

import ast

from .code import LINE_LENGTH, Lines

_SECTIONS = ("stdlib", "first_party", "local")


def _section(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.ImportFrom) and node.level:
        return "local"
    module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
    return "first_party" if (module or "").split(".")[0] == "kwire" else "stdlib"


def _name_order(name: str) -> tuple[int, str]:
    """isort's order by type: CONSTANTS, then Classes, then functions and variables."""
    if name.isupper() and len(name) > 1:
        return 0, name
    return (1 if name[0].isupper() else 2), name


def _alias(alias: ast.alias) -> str:
    return f"{alias.name} as {alias.asname}" if alias.asname else alias.name


def _from_import(module: str, names: list[str]) -> Lines:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return [line]
    return [f"from {module} import ("] + [f"    {name}," for name in names] + [")"]


def _used_names(tree: ast.Module) -> set[str]:
    # generated code quotes no annotation (``from __future__ import annotations`` instead)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def tidy_imports(source: str) -> str:
    """``source`` with only the imported names its code uses, in isort's order.

    The imports after ``from __future__ import annotations`` must be one block (imports and blank
    lines only); whatever follows the block is left as it is."""
    tree = ast.parse(source)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
               and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
    if not imports:
        return source
    lines = source.split("\n")
    first, last = imports[0].lineno - 1, imports[-1].end_lineno or imports[-1].lineno
    spans = {line for node in imports for line in range(node.lineno - 1, node.end_lineno or node.lineno)}
    stray = [n for n in range(first, last) if n not in spans and lines[n].strip()]
    assert not stray, f"not an import inside the import block: {lines[stray[0]]!r}"
    used = _used_names(tree)
    plain: dict[str, set[str]] = {s: set() for s in _SECTIONS}
    froms: dict[str, dict[str, set[str]]] = {s: {} for s in _SECTIONS}
    for node in imports:
        section = _section(node)
        for alias in node.names:
            if (alias.asname or alias.name).split(".")[0] not in used:
                continue
            if isinstance(node, ast.Import):
                plain[section].add(_alias(alias))
            else:
                froms[section].setdefault("." * node.level + (node.module or ""), set()).add(_alias(alias))
    block: Lines = []
    for section in _SECTIONS:
        chunk = [f"import {name}" for name in sorted(plain[section])]
        for module in sorted(froms[section]):
            chunk += _from_import(module, sorted(froms[section][module], key=_name_order))
        if chunk:
            block += ([""] if block else []) + chunk
    return "\n".join(lines[:first] + block + lines[last:])
