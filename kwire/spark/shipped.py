"""A copy of kwire shipped to Spark executors: compiled modules that cannot load there give way to
their Python source, and kwire says so once instead of failing tasks.

:mod:`kwire.spark.shipping` sends each top-level package as an archive that holds :data:`MARKER`,
which says what the compiled modules (mypyc's ``.so`` files) in it were built for. On an executor:

- whose Python loads another extension suffix (another Python version, machine or C library
  flavour), Python never looks at those files and imports the ``.py`` sources: :func:`guard`
  warns once that the compiled modules are not used there;
- whose Python has the same suffix but cannot load a compiled module all the same (an older C
  library, a missing run-time library), the finder :func:`guard` installs loads the ``.py``
  beside that module instead, and warns once. The compiled record decoder has no ``.py`` of its
  own name: :mod:`kwire.records.columns` falls back for it, and says so.

The shipped copy's ``kwire/__init__.py`` calls :func:`guard` (:mod:`kwire.spark.shipping` adds
the call when it writes the archive; this module imports nothing else, and no PySpark). Any
other kwire (a checkout, an installed wheel) neither imports this module nor has a marker.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Iterable

#: The file at the top of each shipped package that describes its compiled modules (JSON).
MARKER = "SHIPPED.json"
_COMPILED_SUFFIXES = (".so", ".pyd")

_warned = False


def compiled_files(names: Iterable[str]) -> list[str]:
    """The names in ``names`` that are compiled extension modules, for any platform."""
    return [name for name in names if name.endswith(_COMPILED_SUFFIXES)]


def guard(package_dir: str) -> None:
    """Called as kwire is imported: in a shipped copy (``package_dir`` holds :data:`MARKER`), check
    the build against this interpreter and install the fallback finder, once per process."""
    description = _read_marker(package_dir)
    if description is None:
        return
    if not any(isinstance(finder, ShippedCompiledFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, ShippedCompiledFinder())
    _check_suffix(os.path.basename(package_dir), description)


def _read_marker(package_dir: str) -> dict | None:
    path = os.path.join(package_dir, MARKER)
    if not os.path.exists(path):
        return None
    import json

    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return {}


def _check_suffix(package: str, description: dict) -> None:
    built_for = description.get("extension_suffix")
    if description.get("compiled") and built_for not in importlib.machinery.EXTENSION_SUFFIXES:
        import platform

        here = f"Python {platform.python_version()} on {platform.system()} {platform.machine()}"
        warn_once(f"the compiled modules shipped in {package} were built for Python "
                  f"{description.get('python')} on {description.get('platform')} (*{built_for}); this "
                  f"executor runs {here} (*{importlib.machinery.EXTENSION_SUFFIXES[0]}) and cannot load "
                  f"them: {package} runs as plain Python here")


def warn_once(message: str) -> None:
    """One warning per process (on an executor it lands in the executor's stderr log)."""
    global _warned
    if _warned:
        return
    _warned = True
    import warnings

    warnings.warn(f"kwire: {message}", RuntimeWarning, stacklevel=3)


class ShippedCompiledFinder(importlib.abc.MetaPathFinder):
    """Finds modules of shipped packages as Python would, but gives a compiled module that has a
    ``.py`` beside it a loader that falls back to that source when the extension does not load."""

    def __init__(self) -> None:
        self._shipped: dict[str, bool] = {}

    def find_spec(self, fullname, path, target=None):
        top, dot, _rest = fullname.partition(".")
        if not dot or path is None or not self._is_shipped(top):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return spec
        source = os.path.join(os.path.dirname(spec.origin), fullname.rpartition(".")[2] + ".py")
        if os.path.exists(source):
            spec.loader = CompiledOrSourceLoader(spec.loader, source)
        return spec

    def _is_shipped(self, top: str) -> bool:
        if top not in self._shipped:
            directories = getattr(sys.modules.get(top), "__path__", None) or []
            descriptions = [d for d in (_read_marker(directory) for directory in directories) if d is not None]
            self._shipped[top] = bool(descriptions)
            for description in descriptions:
                _check_suffix(top, description)
        return self._shipped[top]


class CompiledOrSourceLoader(importlib.abc.Loader):
    """The compiled module when it loads, else the Python source it was built from."""

    def __init__(self, compiled: importlib.machinery.ExtensionFileLoader, source: str) -> None:
        self.compiled = compiled
        self.source = source
        self.fallback: importlib.machinery.SourceFileLoader | None = None

    def create_module(self, spec):
        try:
            return self.compiled.create_module(spec)
        except ImportError as exc:
            warn_once(f"the compiled module {spec.name} does not load on this executor ({exc}): its Python "
                      f"source runs instead (as for any other compiled module that fails here, unreported)")
            self.fallback = importlib.machinery.SourceFileLoader(spec.name, self.source)
            spec.origin = self.source  # the module's __file__
            return None  # a plain module object, filled by the source

    def exec_module(self, module) -> None:
        (self.fallback or self.compiled).exec_module(module)
