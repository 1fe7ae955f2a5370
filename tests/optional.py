"""One rule for a test whose optional package or compiled-build toolchain is missing.

Every package the tests use is in the ``test`` extra (pyproject.toml), and the compiled builds need
mypyc (the ``test`` extra too) and a C compiler. On a light checkout a test that lacks one skips,
saying what is missing; under CI (``CI=true``, where ``make test`` installs the extra) a missing one
is a broken environment, so the test fails instead of hiding behind a skip. Tests use these helpers,
never ``pytest.importorskip`` or a skip of their own.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any, NoReturn

import pytest


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def missing(what: str) -> NoReturn:
    """Skip, or fail under CI, because ``what`` is not available."""
    if under_ci():
        pytest.fail(f"{what}; under CI=true this is a failure, not a skip (install the test extra and a "
                    f"C compiler)", pytrace=False)
    pytest.skip(what)


def need_module(name: str) -> ModuleType:
    """Import ``name`` (a package of the ``test`` extra), or skip / fail as :func:`missing` says."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        missing(f"needs {name}: {exc}")


def need_toolchain() -> Any:
    """mypyc and a C compiler (kwire.generator.native_build.check_toolchain), or skip / fail."""
    from kwire.generator.native_build import CompileUnavailable, check_toolchain

    try:
        return check_toolchain()
    except CompileUnavailable as exc:
        missing(f"no compiled build: {exc}")
