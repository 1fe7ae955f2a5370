"""One rule for a test whose optional package or compiled-build toolchain is missing.

Every package the tests use is in the ``test`` extra (pyproject.toml), and the compiled builds need
mypyc (the ``test`` extra too) and a C compiler. On a light checkout a test that lacks one skips,
saying what is missing; under CI (``CI=true``, where ``make test`` installs the extra) a missing one
is a broken environment, so the test fails instead of hiding behind a skip. Tests use these helpers,
never ``pytest.importorskip`` or a skip of their own, and never import such a package at the top of a
module. A module names what it uses with :func:`later` (``KpBatch = later("kafka.record",
"DefaultRecordBatch")`` for ``from kafka.record import DefaultRecordBatch as KpBatch``): the import
happens at first use, through :func:`need_module`, so a test that uses it skips (fails under CI) and
the module's other tests run; used at a module's top level (a decorator, a constant), it skips the
whole module (fails its collection under CI). Parameters computed from such a package come from
:func:`params_from`. tests/test_optional.py collects the suite with the test extra hidden, so a bare
import at a module's top fails a test.
"""
from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, NoReturn

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def missing(what: str) -> NoReturn:
    """Skip, or fail under CI, because ``what`` is not available. At a module's top level this skips
    the whole module (or fails its collection under CI)."""
    if under_ci():
        pytest.fail(f"{what}; under CI=true this is a failure, not a skip (install the test extra and a "
                    f"C compiler)", pytrace=False)
    pytest.skip(what, allow_module_level=True)


def need_module(name: str) -> ModuleType:
    """Import ``name`` (a package of the ``test`` extra), or skip / fail as :func:`missing` says."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"needs {name}: {exc}")


def later(module: str, attribute: str | None = None) -> Later:
    """``module`` of an optional package, or its ``attribute``, imported when first used."""
    return Later(module, attribute)


class Later:
    """A module of an optional package, or one of its attributes, imported through :func:`need_module`
    when first used (called, or an attribute read); its ``__name__`` is known before, so naming it
    (pytest's parameter ids) imports nothing."""

    def __init__(self, module: str, attribute: str | None = None) -> None:
        self.__name__ = attribute or module
        self._module, self._attribute, self._target = module, attribute, None

    def resolve(self) -> Any:
        if self._target is None:
            module = need_module(self._module)
            if self._attribute is None:
                self._target = module
            elif hasattr(module, self._attribute):
                self._target = getattr(module, self._attribute)
            else:  # a submodule its package does not import (from hypothesis import strategies)
                self._target = need_module(f"{self._module}.{self._attribute}")
        return self._target

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol look-ups (copy, pickle, pytest's ids) do not import
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    # a table or a class stands in for what it names when indexed, iterated and in isinstance; never
    # compared (``x == later(...)`` could not be made to ask the other side): name a constant's
    # module and read the constant in the test
    def __getitem__(self, key: Any) -> Any:
        return self.resolve()[key]

    def __iter__(self) -> Any:
        return iter(self.resolve())

    def __len__(self) -> int:
        return len(self.resolve())

    def __contains__(self, item: object) -> bool:
        return item in self.resolve()

    def __instancecheck__(self, instance: object) -> bool:
        return isinstance(instance, self.resolve())

    def __repr__(self) -> str:
        return f"later({self._module!r}, {self._attribute!r})"


def need_program(name: str) -> str:
    """The path of program ``name`` (e.g. git) on PATH, or skip / fail as :func:`missing` says."""
    path = shutil.which(name)
    if path is None:
        missing(f"needs the program {name}: it is not on PATH")
    return path


def params_from(name: str, make: Callable[[ModuleType], Iterable[Any]], width: int = 1) -> list[Any]:
    """Parameters for ``pytest.mark.parametrize`` made by ``make`` from package ``name``; without the
    package, a single parameter (``width`` values of None) whose test skips (fails under CI) saying
    so, never an empty set (which pytest would skip even under CI). tests/conftest.py's
    pytest_runtest_setup reads the mark."""
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        return [pytest.param(*[None] * width, id=f"needs-{name}", marks=pytest.mark.needs_module(name, str(exc)))]
    return list(make(module))


def need_toolchain() -> Any:
    """mypyc and a C compiler (kwire.generator.native.build.check_toolchain), or skip / fail."""
    from kwire.generator.native.build import CompileUnavailable, check_toolchain

    try:
        return check_toolchain()
    except CompileUnavailable as exc:
        missing(f"no compiled build: {exc}")
