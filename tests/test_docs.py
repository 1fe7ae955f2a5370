"""The API reference builds from the docstrings (``make docs``), with no warning from pdoc."""
from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO


def test_the_api_reference_builds(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "docs" / "api.py"), str(tmp_path)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    for part in ("wire", "records", "logs", "network", "fuzz", "arrow", "spark", "cli", "generator", "generated"):
        assert f"kwire/{part}.html" in pages
    assert {"kwire/wire/errors.html", "kwire/network/framing.html", "kwire/network/client.html"} <= pages
    front = (tmp_path / "kwire.html").read_text()
    assert "Where to start" in front and "KwireError" in front
