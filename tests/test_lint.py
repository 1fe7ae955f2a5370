"""ruff, configured in pyproject.toml ([tool.ruff]), finds nothing in the folders listed here.

One test per folder, so that a finding names its folder and folders join the list one by one.
"""
from __future__ import annotations

import subprocess

import pytest

from tests.optional import need_module
from tests.paths import REPO

LINTED = ["generated", "generator", "kwire", "tests", "benchmarks", "examples"]


@pytest.mark.parametrize("folder", LINTED)
def test_ruff_finds_nothing(folder: str) -> None:
    ruff_bin = need_module("ruff.__main__").find_ruff_bin()
    run = subprocess.run([ruff_bin, "check", "--no-cache", "--output-format", "concise", folder],
                         cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, f"ruff check {folder}:\n{run.stdout}{run.stderr}"
