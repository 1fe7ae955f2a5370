"""``kwire decode --spark`` on a corrupt file: one clear line on stderr; the JVM's logs and stack frames
(hundreds of lines) and its start-up warning only with ``-v``. Each run starts its own JVM."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.paths import KRAFT_361

SEGMENT = KRAFT_361 / "__cluster_metadata-0" / "00000000000000000000.log"


def corrupt_copy(folder):
    """The first 16 KB of a real segment (whole batches), a record length in its second batch broken."""
    folder.mkdir()
    data = bytearray(SEGMENT.read_bytes()[:16384])
    end = 0
    while end + 12 <= len(data) and end + 12 + int.from_bytes(data[end + 8:end + 12], "big") <= len(data):
        end += 12 + int.from_bytes(data[end + 8:end + 12], "big")
    data = data[:end]
    data[300:304] = b"\xff\xff\xff\xff"  # inside the second batch: a record whose length is wrong
    (folder / SEGMENT.name).write_bytes(bytes(data))


def decode(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    return subprocess.run([sys.executable, "-m", "kwire", "decode", "--spark", *argv], capture_output=True, text=True,
                          env=env, timeout=300)


def test_a_failed_decode_prints_one_clear_line_and_the_rest_behind_verbose(tmp_path):
    corrupt_copy(tmp_path / "log")
    quiet = decode(str(tmp_path / "log"), "--out", str(tmp_path / "out"), "-q")
    assert quiet.returncode == 2  # damaged input is unusable input (exit 2), as in kwire metadata image
    # the damaged record breaks its batch's CRC, which decode checks first, as every command does
    first, then = quiet.stderr.splitlines()
    assert first.startswith(f"kwire decode: {tmp_path / 'log'}: DamagedFileError: {tmp_path / 'log' / SEGMENT.name}: "
                            "CRC-32C mismatch in the record batch at base offset 5: stored 0x")
    assert first.endswith("(byte offset 236)")
    assert then == "kwire decode: stopped there; --skip-undecodable goes on past such ranges and counts them"

    verbose = decode(str(tmp_path / "log"), "--out", str(tmp_path / "out2"), "-v")
    assert verbose.returncode == 2
    assert "WARNING: Using incubator modules" in verbose.stderr and "PythonException" in verbose.stderr
    assert len(verbose.stderr.splitlines()) > 20
