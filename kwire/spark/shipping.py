"""Ship kwire to a cluster's executors so that its compiled modules load there too.

Python cannot import an extension module from a zip on ``sys.path``, so a zip added with
``addPyFile`` would leave every executor on the plain-Python record decoder (13-15x slower) and
a mypyc-compiled ``kwire.generated`` unused. Instead each top-level package goes as an archive
added with ``SparkContext.addArchive("....zip#NAME")``: every executor unpacks it into
``NAME/`` under its SparkFiles root, which PySpark's Python workers put on ``sys.path``, so
``import NAME`` finds a plain directory there, ``.so`` files included.

When the shipped files hold compiled modules, mypyc's run-time support goes with them (the
``librt`` package and the ``mypy_extensions`` module, from the driver's environment), so the
executors need only the same Python with PyArrow. Each archive carries
:data:`~kwire.spark.shipped.MARKER`: what its compiled modules were built for, read by
:mod:`kwire.spark.shipped` on the executor, where a compiled module that cannot load falls back
to its Python source instead of failing the task.

Executors that have kwire installed themselves (pip, a compiled wheel) need none of this: set
``spark.kwire.ship`` to ``false`` (``spark-defaults.conf``, ``build_session(config=...)``) or
pass ``build_session(ship=())``.
"""
from __future__ import annotations

import importlib.util
import json
import platform
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from kwire.spark.shipped import MARKER, compiled_files

#: What the kwire commands ship: kwire, with the codecs (their own folder in a source checkout).
SHIPPED_PACKAGES = ("kwire", "kwire.generated")
#: What mypyc-compiled modules import when they load.
COMPILED_RUNTIME = ("librt", "mypy_extensions")
#: The Spark setting that turns shipping off ("false"): the executors import their own kwire.
SHIP_SETTING = "spark.kwire.ship"


def shipping_enabled(spark) -> bool:
    return spark.sparkContext.getConf().get(SHIP_SETTING, "true").strip().lower() != "false"


def ship_packages(spark, packages: Iterable[str] = SHIPPED_PACKAGES) -> list[Path]:
    """Archive ``packages`` (grouped by top-level name) and add each archive to the executors.

    What this SparkContext already got is not shipped again (a second ``build_session`` in one
    process ships nothing); asking later for files of a top-level package already shipped without
    them is an error, since executors would unpack its two archives in no set order. Returns the
    archives written.
    """
    context = spark.sparkContext
    shipped: dict[str, set[str]] = context.__dict__.setdefault("_kwire_shipped", {})
    by_top: dict[str, list[str]] = {}
    for name in packages:
        by_top.setdefault(name.partition(".")[0], []).append(name)
    archives = []
    compiled = False
    for top, names in by_top.items():
        files = package_files(names)
        if top in shipped:
            missing = sorted(set(files) - shipped[top])
            if missing:
                raise ValueError(f"{top} was already shipped to this SparkContext without {missing[0]} "
                                 f"({len(missing)} files): ship {', '.join(names)} with it in the first call")
            continue
        if not files:
            continue
        compiled = compiled or bool(compiled_files(files))
        archives.append(_add_archive(context, top, files))
        shipped[top] = set(files)
    if compiled:
        archives += _ship_runtime(context, shipped)
    return archives


def package_files(names: Iterable[str]) -> dict[str, Path]:
    """Path inside the top-level package -> file, for every file of the packages ``names`` (all
    under one top-level package), sources and compiled modules alike, no bytecode caches."""
    files: dict[str, Path] = {}
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        package_dir = Path(next(iter(spec.submodule_search_locations))).resolve()
        inside = Path(*name.split(".")[1:])
        for file in sorted(package_dir.rglob("*")):
            relative = file.relative_to(package_dir)
            if (file.is_file() and "__pycache__" not in relative.parts and file.suffix != ".pyc"
                    and not file.name.startswith(".")):  # .name.PID: a build being installed
                # an installed kwire already holds kwire.generated: the first one listed wins
                files.setdefault((inside / relative).as_posix(), file)
    return files


def build_description(files: Iterable[str]) -> dict:
    """What :data:`MARKER` holds: the interpreter and platform the compiled files were built on."""
    return {
        "extension_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()} {' '.join(platform.libc_ver())}".strip(),
        "compiled": sorted(compiled_files(files)),
    }


#: What the shipped copy of ``kwire/__init__.py`` ends with: an installed kwire never imports
#: kwire.spark, while the copy on an executor must install the fallback for compiled modules as
#: it is imported, before any compiled codec loads.
GUARD_LINES = """

# Added by kwire.spark.shipping to the copy shipped to Spark executors: compiled modules that do
# not load there give way to their Python source (kwire/spark/shipped.py).
from kwire.spark.shipped import guard as _guard_shipped_copy

_guard_shipped_copy(__path__[0])
"""


def write_archive(target: Path, files: dict[str, Path]) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, file in sorted(files.items()):
            if name == "__init__.py" and "spark/shipped.py" in files:  # kwire's own: with the guard
                archive.writestr(name, file.read_text(encoding="utf-8") + GUARD_LINES)
            else:
                archive.write(file, name)
        archive.writestr(MARKER, json.dumps(build_description(files), indent=1) + "\n")
    return target


def _add_archive(context, top: str, files: dict[str, Path]) -> Path:
    # one folder per archive: Spark keys files by name, and "#top" names the folder it unpacks to
    target = write_archive(Path(tempfile.mkdtemp(prefix="kwire-ship-")) / f"{top}.zip", files)
    context.addArchive(f"{target}#{top}")
    return target


def _ship_runtime(context, shipped: dict[str, set[str]]) -> list[Path]:
    """mypyc's run-time support, as the driver has it: a package as an archive, a module as a file
    in the SparkFiles root (on the workers' ``sys.path``). Absent ones are left out: the compiled
    modules then do not load on executors without them, and kwire falls back there."""
    added = []
    for name in COMPILED_RUNTIME:
        if name in shipped:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        if spec.submodule_search_locations:
            files = package_files([name])
            added.append(_add_archive(context, name, files))
            shipped[name] = set(files)
        elif spec.origin and spec.origin.endswith(".py"):
            context.addFile(spec.origin)
            added.append(Path(spec.origin))
            shipped[name] = {Path(spec.origin).name}
    return added


def executor_report(spark, tasks: int | None = None) -> list[dict]:
    """What the executors' Python workers import: a small job of ``tasks`` tasks (default: one per
    task slot) that each answer where ``kwire`` came from and which record decoder runs there.

    Keys: ``host``, ``directory`` (the worker's current directory: on a standalone cluster, the
    executor's), ``python``, ``kwire`` and ``generated`` (``__file__``), ``record_decoder``
    ("mypyc" or "python"), ``record_decoder_file``, ``fallback_reason`` (why not compiled, or
    None), ``librt`` and ``mypy_extensions`` (where mypyc's run-time support came from, None
    when not loaded).
    """
    def report(_: int) -> dict:
        import os as task_os
        import platform as task_platform
        import socket
        import sys as task_sys

        import kwire
        import kwire.generated
        from kwire.records import columns

        return {
            "host": socket.gethostname(), "directory": task_os.getcwd(),
            "python": f"{task_platform.python_version()} ({task_sys.executable})",
            "kwire": kwire.__file__, "generated": kwire.generated.__file__,
            "record_decoder": columns.IMPLEMENTATION_NAME, "record_decoder_file": columns.IMPLEMENTATION.__file__,
            "fallback_reason": columns.FALLBACK_REASON,
            "librt": getattr(task_sys.modules.get("librt.strings"), "__file__", None),
            "mypy_extensions": getattr(task_sys.modules.get("mypy_extensions"), "__file__", None),
        }

    count = tasks or spark.sparkContext.defaultParallelism
    return spark.sparkContext.parallelize(range(count), count).map(report).collect()
