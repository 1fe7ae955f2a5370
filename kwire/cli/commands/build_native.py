"""``kwire build-native``: compile the record decoder (and, asked, the codecs) into an installed kwire.

The platform wheel (``make wheel``) already carries both compiled. An install from source (``pip
install kwire`` from the sdist, ``pip install -e .``) runs them as plain Python until this
command builds them: the record decoder (:mod:`kwire.generator.native.records`, about ten
seconds) always, the codecs (``kwire.generated``, :func:`kwire.generator.native.build.compile_package`)
with ``--codecs`` (those on the hot path, where compiled code pays; ``--codecs all`` every one) or
``--messages``. The extension modules go beside the
installed sources (or into ``--into DIR``, another kwire package directory), each put in place by
``os.replace``, so a program importing kwire meanwhile sees the old files or the new ones. Builds
are cached (``--cache``), so running it again after nothing changed takes well under a second
for the record decoder.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path

import kwire
from kwire.cli import errors
from kwire.cli.commands import add_command, positive_int

INSTALL_HINT = "pip install 'kwire[native]'"


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kwire" / f"native-{kwire.__version__}"


def message_names(text: str) -> set[str]:
    names = {name.strip() for name in text.split(",") if name.strip()}
    if not names:
        raise argparse.ArgumentTypeError("expected one or more message names, comma-separated")
    return names


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "build-native", raw=True,
        exit_status="0 built, 1 the build failed, 2 no mypyc or C compiler, or bad usage.",
        description="Compile kwire's record decoder with mypyc (about ten seconds) and, with --codecs or "
                    "--messages, the codecs of kwire.generated (those on the hot path; about a minute and a "
                    "quarter on two cores), and install the extension modules into this kwire (or --into DIR). "
                    "Needs mypyc and a C "
                    f"compiler: {INSTALL_HINT} and, say, apt-get install gcc. kwire doctor tells what runs compiled.")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--codecs", nargs="?", const="hot", choices=("hot", "all"), metavar="{hot,all}",
                      help="also compile the codecs of kwire.generated: those on the hot path (the default), "
                           "whose code runs 1.3-3.5x as fast compiled (benchmarks/README.md), or all of them "
                           "(the others gain a few percent, for most of the build's time)")
    what.add_argument("--messages", type=message_names, metavar="NAME[,NAME...]",
                      help="also compile the codecs of these messages only (the others stay plain Python)")
    p.add_argument("--into", type=Path, metavar="DIR",
                   help="a kwire package directory to install into, with records/ and generated/ inside "
                        "(default: where this kwire's record decoder and codecs are, editable installs included)")
    p.add_argument("--cache", type=Path, default=default_cache(), metavar="DIR",
                   help="where builds are kept, so a rebuild compiles only what changed (default: %(default)s)")
    p.add_argument("--jobs", type=positive_int, help="C compilers to run at once for the codecs (default: the cores)")
    p.add_argument("--json", action="store_true", help="print what was built as JSON on stdout")
    p.set_defaults(func=run)


def fail(code: int, message: str) -> int:
    return errors.fail("build-native", message, code)


def run(args: argparse.Namespace) -> int:
    from kwire.generator.native import records as native_records
    from kwire.generator.native.build import CompileFailed, CompileUnavailable, check_toolchain

    try:
        check_toolchain()
    except CompileUnavailable as exc:
        missing = "mypyc is not installed" if "mypyc" in str(exc) else str(exc).split(";")[0]
        return fail(2, f"cannot compile: {missing}; install it with: {INSTALL_HINT} (and a C compiler, e.g. gcc)")
    if args.into is None:  # an editable install keeps kwire.generated outside kwire/ (generated/)
        generated = importlib.import_module("kwire.generated")
        into = Path(kwire.__file__).resolve().parent
        records_dir, generated_dir = native_records.PACKAGE_DIR, Path(str(generated.__file__)).resolve().parent
    else:
        into = args.into.resolve()
        records_dir, generated_dir = into / "records", into / "generated"
    decoder = records_dir / native_records.SOURCE.name
    if not decoder.is_file() or decoder.read_bytes() != native_records.SOURCE.read_bytes():
        return fail(2, f"{into} is not this kwire's package directory ({decoder} is missing or differs from "
                       f"{native_records.SOURCE})")
    messages: list | None = None
    if args.codecs or args.messages:  # checked before anything is built
        found = codec_definitions(generated_dir, args.messages)
        if isinstance(found, str):
            return fail(2, found)
        messages = found
    say = (lambda _message: None) if args.quiet or args.json else (lambda message: print(message, flush=True))
    report: dict[str, object] = {"into": str(into)}
    try:
        installed = native_records.build(args.cache / "record-decoder", install_dir=records_dir, log=say)
        report["record_decoder"] = {"installed": [p.name for p in installed]}
        say(f"record decoder: compiled ({len(installed)} files in {records_dir})")
        if messages is not None:
            only = {m.name for m in messages} if args.codecs == "all" else args.messages  # None: the hot path
            result = build_codecs(messages, generated_dir, only, args.cache / "codecs", args.jobs, say)
            report["codecs"] = result
            say(f"codecs: compiled {len(result['modules'])} modules in {result['seconds']:.0f}s "
                f"({result['c_compiled']} of {result['c_files']} C files compiled, the rest cached)")
    except CompileFailed as exc:
        if args.verbose:
            print(exc.log[-3000:], file=sys.stderr)
        return fail(1, str(exc))
    except OSError as exc:
        return fail(2, f"cannot install into {into}: {exc}")
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


def codec_definitions(generated_dir: Path, only: set[str] | None) -> list | str:
    """kwire's definitions, or a one-line reason (str) why the codecs in ``generated_dir`` cannot be built."""
    from kwire.generator.definitions.loader import builtin_definitions_dir, load_definitions
    from kwire.generator.emit import render_all, stale_files

    messages = load_definitions([builtin_definitions_dir()])
    unknown = sorted((only or set()) - {m.name for m in messages})
    if unknown:
        return f"no such messages: {', '.join(unknown)}"
    stale = stale_files(render_all(messages), generated_dir)
    if stale:  # compiled modules would not be twins of the .py files they shadow
        return (f"{generated_dir} does not match kwire's definitions ({', '.join(stale[:3])}, ...): "
                "compile a package you generated with kwire generate --compile instead")
    return messages


def build_codecs(messages: list, generated_dir: Path, only: set[str] | None, build_dir: Path, jobs: int | None,
                 say) -> dict:
    from kwire.generator.native.build import compile_package

    build_dir.mkdir(parents=True, exist_ok=True)
    result = compile_package(messages, generated_dir, package="kwire.generated", only=only, build_dir=build_dir,
                             jobs=jobs, progress=say)
    return {"modules": result.modules, "installed": result.extensions, "seconds": round(result.seconds, 1),
            "c_files": result.c_files, "c_compiled": result.c_compiled}
