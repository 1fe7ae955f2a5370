"""``kwire decode`` on a corrupt file: one clear line on stderr; the JVM's logs and stack frames
(hundreds of lines) and its start-up warning only with ``-v``. Each run starts its own JVM."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests.paths import KRAFT_361

SEGMENT = KRAFT_361 / "__cluster_metadata-0" / "00000000000000000000.log"


def corrupt_copy(folder):
    folder.mkdir()
    copy = folder / SEGMENT.name
    shutil.copy(SEGMENT, copy)
    with open(copy, "r+b") as f:  # a record's length inside the second batch: the batch no longer parses
        f.seek(300)
        f.write(b"\xff\xff\xff\xff")
    return copy


def decode(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([sys.executable, "-m", "kwire", "decode", *argv], capture_output=True, text=True,
                          env=env, timeout=300)


def test_a_failed_decode_prints_one_clear_line_and_the_rest_behind_verbose(tmp_path):
    corrupt_copy(tmp_path / "log")
    quiet = decode(str(tmp_path / "log"), "--out", str(tmp_path / "out"), "-q")
    assert quiet.returncode == 1
    assert quiet.stderr.splitlines() == [
        f"kwire decode: {tmp_path / 'log'}: DecodeError: record fields take 13 bytes, its length says 94 "
        f"in {tmp_path / 'log' / SEGMENT.name} (byte offset 297)"]

    verbose = decode(str(tmp_path / "log"), "--out", str(tmp_path / "out2"), "-v")
    assert verbose.returncode == 1
    assert "WARNING: Using incubator modules" in verbose.stderr and "PythonException" in verbose.stderr
    assert len(verbose.stderr.splitlines()) > 20
