"""`mypy --strict` on a user's script that uses the connection and the error enum, and on a
user's typed handling of error codes (``ErrorCode(6)``, ``ErrorCode.of(999)``).

mypy reads kwire from a folder laid out as the installed package (kwire, kwire.generated, ...),
made of links to this checkout; kwire's own modules are checked silently, the script strictly.
"""
from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO

SCRIPTS = [REPO / "tests" / "network" / "typing" / name for name in ("user_client.py", "error_codes.py")]


def test_mypy_strict_accepts_a_client_script(tmp_path):
    package = tmp_path / "site" / "kwire"
    package.mkdir(parents=True)
    for entry in (REPO / "kwire").iterdir():
        (package / entry.name).symlink_to(entry)
    (package / "generated").symlink_to(REPO / "generated")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n\n[mypy-kwire.*]\nfollow_imports = silent\n")
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental",
                             "--cache-dir", str(tmp_path / "cache"), *map(str, SCRIPTS)],
                            check=False, capture_output=True, text=True, timeout=600,
                            env={"MYPYPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout
