"""The optional compiled wheel; everything else about the package is in pyproject.toml.

A plain build (``pip install .``, ``python -m build``) makes the pure-Python wheel (``kwire
build-native`` compiles an install of it afterwards). With ``KWIRE_COMPILE`` set, the wheel also
holds the record decoder and ``kwire.generated`` compiled by mypyc and is tagged for this
platform and Python (``make wheel`` runs this)::

    KWIRE_COMPILE=1 python -m build --wheel --no-isolation

- ``KWIRE_COMPILE``: ``1`` (or ``hot``) compiles the modules on the hot path, those whose code is
  written for the compiler (``kwire.generated.COMPILED_BY_DEFAULT``; the others run about as
  fast as plain Python); ``all`` every module; a comma-separated list of message names
  (``ApiVersionsRequest,ApiVersionsResponse``) only those; unset or ``0``: none.
  The record decoder is compiled whenever it is set, in both its flavours: the C one
  (``kwire/records/_column_decoder_c*``, the fastest, which kwire runs) and the mypyc one
  (``kwire/records/_column_decoder_mypyc*``, the fallback for a C flavour that does not load).
- ``KWIRE_RECORD_DECODER_CACHE``: the record decoder's build cache (default:
  ``build/record-decoder`` beside this file, the one ``make native`` uses).
- ``KWIRE_COMPILE_BUILD_DIR``: mypyc's build directory, kept between builds so that a rebuild
  compiles only what changed (default: ``build/kwire-wheel`` beside this file).
- ``KWIRE_COMPILE_JOBS``, ``KWIRE_COMPILE_OPT_LEVEL``: as ``kwire generate --jobs/--opt-level``.

``--no-isolation``: the build needs mypy and kwire's own dependencies (the ``test`` extra),
which an isolated build environment does not have. The pure ``.py`` files stay in the wheel
beside the extension modules, as with ``kwire generate --compile``.
"""
from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
COMPILE = os.environ.get("KWIRE_COMPILE", "").strip()
EXT_SUFFIXES = (sysconfig.get_config_var("EXT_SUFFIX") or ".so", ".so", ".pyd")


class BuildPy(build_py):
    """build_py, minus extension modules an earlier compiled build left in build/lib."""

    def run(self) -> None:
        super().run()
        for package in ("generated", "records"):
            for path in (Path(self.build_lib) / "kwire" / package).glob("*"):
                if path.name.endswith(EXT_SUFFIXES):
                    path.unlink()


class CompiledCodecs(build_ext):
    """Compile kwire.generated and the record decoder as they lie in build/lib (build_py has copied
    them there)."""

    def run(self) -> None:
        lib = Path(self.build_lib).resolve()
        sys.path.insert(0, str(lib))  # the kwire that goes into the wheel, generator included
        from kwire.generator.definitions.loader import load_definitions
        from kwire.generator.emit import render_all, stale_files
        from kwire.generator.native.build import DEFAULT_OPT_LEVEL, compile_package

        messages = load_definitions([lib / "kwire" / "message_defs"])
        generated = lib / "kwire" / "generated"
        stale = stale_files(render_all(messages), generated)
        if stale:  # the compiled modules would not be the .py files' twins
            sys.exit(f"generated/ does not match message_defs/ ({', '.join(stale[:5])}, ...): "
                     "run kwire generate --defs message_defs --out generated")
        if COMPILE.lower() in ("1", "hot"):
            only = None  # the hot path
        elif COMPILE.lower() == "all":
            only = {m.name for m in messages}
        else:
            only = {n.strip() for n in COMPILE.split(",") if n.strip()}
        build_dir = Path(os.environ.get("KWIRE_COMPILE_BUILD_DIR") or HERE / "build" / "kwire-wheel")
        jobs = int(os.environ["KWIRE_COMPILE_JOBS"]) if os.environ.get("KWIRE_COMPILE_JOBS") else None
        result = compile_package(messages, generated, package="kwire.generated", only=only,
                                 build_dir=build_dir, jobs=jobs,
                                 opt_level=os.environ.get("KWIRE_COMPILE_OPT_LEVEL") or DEFAULT_OPT_LEVEL,
                                 progress=lambda message: print(message, flush=True))
        self.outputs = [str(generated / name) for name in result.extensions]
        print(f"compiled {len(result.modules)} modules of kwire.generated in {result.seconds:.0f}s "
              f"({result.cpu_seconds:.0f}s of CPU, {result.c_compiled} of {result.c_files} C files compiled)")
        self.outputs += [str(path) for path in self.record_decoder(lib / "kwire" / "records")]

    @staticmethod
    def record_decoder(records: Path) -> list[Path]:
        from kwire.generator.native import records as native_records

        if native_records.SOURCE != records / "column_decoder.py":  # must compile the wheel's copy
            sys.exit(f"the record decoder to compile is {native_records.SOURCE}, not the wheel's ({records})")
        cache = Path(os.environ.get("KWIRE_RECORD_DECODER_CACHE") or HERE / "build" / "record-decoder")
        return native_records.build(cache, install_dir=records, log=lambda message: print(message, flush=True))

    def get_outputs(self) -> list[str]:
        return list(getattr(self, "outputs", []))


if COMPILE and COMPILE != "0":
    # A stand-in extension: it makes the wheel a platform wheel; CompiledCodecs builds the real ones.
    setup(ext_modules=[Extension("kwire.generated._compiled", sources=[])],
          cmdclass={"build_py": BuildPy, "build_ext": CompiledCodecs})
else:
    setup(cmdclass={"build_py": BuildPy})
