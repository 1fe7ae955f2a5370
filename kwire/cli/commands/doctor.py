"""``kwire doctor``: which parts of this kwire run compiled (C or mypyc), and why not.

Two parts have a compiled build: the record decoder (:mod:`kwire.records.columns` says which
flavour it took, ``c``, ``mypyc`` or ``python``, and why not a faster one,
:data:`~kwire.records.columns.FALLBACK_REASON`) and
the codecs (``kwire.generated``: per module, an extension module beside the ``.py`` file is the
one Python imports). The codecs count as compiled when the modules a compiled build builds by
default (``kwire.generated.COMPILED_BY_DEFAULT``: the hot path, whose code is written for the
compiler) are; the others run about as fast as plain Python. The platform wheel (``make
wheel``) carries both; ``kwire build-native`` builds them for an install from source. ``kwire
--version`` prints the same in one line.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import kwire
from kwire.cli.commands import add_command


@dataclass
class PartStatus:
    compiled: bool                       # every module of the part that pays for it runs compiled
    reason: str | None                   # why not (None when compiled)
    location: str                        # the package directory the part runs from
    modules: int = 1                     # modules of the part
    compiled_modules: int = 0            # of which compiled and imported as such
    hot_path_modules: int | None = None  # codecs: of which on the hot path, compiled by default
    flavour: str | None = None           # record decoder: "c", "mypyc" or "python"


def record_decoder_status() -> PartStatus:
    from kwire.records import columns

    compiled = columns.IMPLEMENTATION_NAME != "python"
    return PartStatus(compiled=compiled, reason=columns.FALLBACK_REASON, location=str(columns.SOURCE.parent),
                      compiled_modules=int(compiled), flavour=columns.IMPLEMENTATION_NAME)


def codecs_status() -> PartStatus:
    """Count the codec modules that have a loadable extension module, and import those to be sure."""
    import kwire.generated as generated

    package = Path(generated.__file__).resolve().parent
    modules = sorted(p.stem for p in package.glob("*.py") if not p.name.startswith("_"))
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    compiled = [m for m in modules if any((package / (m + suffix)).is_file() for suffix in suffixes)]
    broken = []
    for module in compiled:
        try:
            imported = importlib.import_module(f"kwire.generated.{module}")
        except ImportError as exc:  # an extension module that does not load is no fallback: say so
            broken.append(f"{module}: {exc}")
            continue
        if not str(imported.__file__).endswith(tuple(suffixes)):
            broken.append(f"{module}: imported from {imported.__file__}")
    working = len(compiled) - len(broken)
    reason = None
    if broken:
        reason = f"{len(broken)} compiled modules do not import ({broken[0]})"
    elif not compiled:
        others = sorted(p.name for p in package.glob("*") if p.name.endswith((".so", ".pyd")))
        reason = (f"built for another Python or platform ({others[0]}, ...); this one loads *{suffixes[0]}"
                  if others else "not built (run: kwire build-native --codecs)")
    else:
        missing = sorted(generated.COMPILED_BY_DEFAULT - set(compiled))
        if missing:
            reason = (f"{len(missing)} of the {len(generated.COMPILED_BY_DEFAULT)} modules on the hot path are "
                      f"plain Python ({missing[0]}, ...; run: kwire build-native --codecs)")
    return PartStatus(compiled=reason is None, reason=reason, location=str(package), modules=len(modules),
                      compiled_modules=working, hot_path_modules=len(generated.COMPILED_BY_DEFAULT))


def native_status() -> dict[str, PartStatus]:
    return {"record_decoder": record_decoder_status(), "codecs": codecs_status()}


def describe(name: str, part: PartStatus) -> str:
    """One line for a part: ``record decoder: compiled (c)``, ``codecs: 0 of 287 modules compiled, not built ...``."""
    label = name.replace("_", " ")
    if name == "codecs":
        state = f"{part.compiled_modules} of {part.modules} modules compiled"
        if part.compiled and part.compiled_modules == part.hot_path_modules < part.modules:
            state += " (the hot path; the others run about as fast as plain Python)"
    else:
        state = f"compiled ({part.flavour})" if part.compiled else "plain Python"
    return f"{label}: {state}" + (f", {part.reason}" if part.reason else "")


def version_text() -> str:
    """What ``kwire --version`` prints: the version, then which parts run compiled."""
    status = native_status()
    return f"kwire {kwire.__version__}\n" + "; ".join(describe(n, p) for n, p in status.items())


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "doctor", raw=True,
        description="Report, for the record decoder and the codecs, whether this kwire runs them compiled "
                    "(mypyc) and, if not, why. The platform wheel carries both compiled; for an install "
                    "from source, kwire build-native builds them.",
        exit_status="0 every part compiled, 1 some part runs as plain Python (correct, slower), 2 bad usage.")
    p.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    status = native_status()
    if args.json:
        print(json.dumps({"version": kwire.__version__, "python": sys.version.split()[0],
                          "parts": {name: asdict(part) for name, part in status.items()}}, indent=2))
    elif not args.quiet:
        for name, part in status.items():
            print(describe(name, part))
            if args.verbose:
                print(f"  in {part.location}")
    return 0 if all(part.compiled for part in status.values()) else 1
