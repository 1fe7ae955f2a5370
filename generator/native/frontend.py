"""The mypyc half of a compiled build: type-check the staged sources and translate them to C.

Run as a child process (``python -m kwire.generator.native.frontend REQUEST.json``) from the
staging directory, because mypyc exits the process on type errors and keeps about a gigabyte
of type information that the C half does not need. It calls mypyc's public entry point,
``mypycify``, in the mode that scales:

- ``separate=True``: every module is its own group, i.e. its own shared library, so the C of
  one module depends only on its own source and on the base module's headers;
- ``multi_file=True``: mypyc's runtime library is not pasted into each group's C file (which
  costs a second of compiling per module) but listed as separate C files, which the C half
  compiles once for the whole build;
- mypy's incremental cache under the staging directory, so a rebuild translates only the
  modules whose sources changed (mypyc leaves the C files of the others untouched).

It writes what ``mypycify`` returned as a manifest: for each extension module, its name, C
sources, include directories and compiler flags; ``native.compiler`` builds from that.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def translate(request: dict) -> dict:
    """Run mypycify as ``request`` says; return the manifest of extensions to build."""
    from mypyc.build import mypycify

    extensions = mypycify(
        request["mypy_args"] + request["paths"],
        opt_level=request["opt_level"],
        debug_level="0",
        multi_file=True,
        separate=True,
        target_dir=request["target_dir"],
    )
    return {"extensions": [
        {"name": ext.name, "sources": list(ext.sources), "include_dirs": list(ext.include_dirs),
         "flags": list(ext.extra_compile_args)}
        for ext in extensions
    ]}


def main(argv: list[str]) -> int:
    (request_path,) = argv
    request = json.loads(Path(request_path).read_text())
    manifest = translate(request)
    Path(request["manifest"]).write_text(json.dumps(manifest, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
