"""Build kwire's API reference from its docstrings with pdoc: ``python docs/api.py OUT_DIR``.

``make docs`` writes it to build/docs. Each part of kwire gets its pages; of the shipped codecs
only the package page (the classes are generated alike, and documented in their modules).
Exit status: 0 built, 1 pdoc warned about something (a broken reference or a name it cannot find).
"""
from __future__ import annotations

import subprocess
import sys

MODULES = [
    "kwire", "kwire.wire", "kwire.records", "kwire.logs", "kwire.network", "kwire.fuzz", "kwire.arrow", "kwire.spark",
    "kwire.cli", "kwire.generator", "kwire.generated",
]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    done = subprocess.run([sys.executable, "-m", "pdoc", *MODULES, "--docformat", "restructuredtext",
                           "-o", argv[0]], capture_output=True, text=True)
    sys.stderr.write(done.stdout + done.stderr)
    if done.returncode:
        return done.returncode
    return 1 if "Warn" in done.stdout + done.stderr else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
