"""One file, one verdict: every command that reads a Kafka file of record batches says the same
thing about the same damage (issue 36 §1): the exit code, the class of damage, the file and the
byte offset, in one wording (:mod:`kwire.logs.damage`).

The damaged files are made here from a snapshot a real Kafka 3.6.1 node wrote; where each damage
sits is worked out from the planting and the file's own length fields, not from kwire's output.
"""
from __future__ import annotations

import random
import re
import shutil
import struct

import pytest

from kwire.cli.main import main
from tests.paths import KRAFT_361

SNAPSHOT = KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint"
SEGMENT_NAME = "00000000000000000000.log"


def _first_entry_size(data: bytes) -> int:
    return 12 + struct.unpack_from(">i", data, 8)[0]  # baseOffset int64, length int32, then the entry


def _flip(data: bytes, at: int, bit: int = 1) -> bytes:
    out = bytearray(data)
    out[at] ^= bit
    return bytes(out)


def _random_bytes() -> bytes:
    data = bytearray(random.Random(36).randbytes(64 * 1024))
    data[8:12] = struct.pack(">i", 1 << 20)  # a plausible length, past the end: not "below the smallest entry"
    data[16] = 9
    return bytes(data)


REAL = SNAPSHOT.read_bytes()
SECOND = _first_entry_size(REAL)  # where the snapshot's second batch (its records) starts: 83
# name of the case -> (file name, bytes, damage class phrase, byte offset of the damaged entry)
CASES = {
    "empty-snapshot": (SNAPSHOT.name, b"", "the file is empty", 0),
    "empty-segment": (SEGMENT_NAME, b"", "the file is empty", 0),
    "random": (SEGMENT_NAME, _random_bytes(), "not a record batch: its magic byte is 9", 0),
    "truncated": (SNAPSHOT.name, REAL[:2000], "the last batch is incomplete", SECOND),
    "bit-flipped-header": (SNAPSHOT.name, _flip(REAL, 22), "CRC-32C mismatch in the record batch at base offset 0", 0),
    "bit-flipped-body": (SNAPSHOT.name, _flip(REAL, 600), "CRC-32C mismatch in the record batch at base offset 1",
                         SECOND),
    "wrong-magic": (SNAPSHOT.name, REAL[:16] + b"\x03" + REAL[17:], "not a record batch: its magic byte is 3", 0),
}

COMMANDS = {
    "dump": lambda f, tmp: ["dump", str(f)],
    "decode": lambda f, tmp: ["decode", str(f), "--out", str(tmp / "decoded")],
    "metadata image": lambda f, tmp: ["metadata", "image", str(f)],
    "metadata snapshot": lambda f, tmp: ["metadata", "snapshot", str(f), "--out", str(tmp / "snapshots"), "--dry-run"],
    "metadata quorum": lambda f, tmp: ["metadata", "quorum", str(f)],
    "metadata downgrade-matrix": lambda f, tmp: ["metadata", "downgrade-matrix", str(f)],
    "features describe": lambda f, tmp: ["features", "describe", str(f)],
}

_VERDICT = r"(?P<file>{file}): (?P<reason>.+?) \(byte offset (?P<offset>\d+)\)"


def verdict(command: str, path, tmp_path, capsys) -> tuple[int, str, str, int]:
    code = main(COMMANDS[command](path, tmp_path))
    captured = capsys.readouterr()
    pattern = re.compile(_VERDICT.format(file=re.escape(str(path))))
    found = [m for m in map(pattern.search, (captured.err + captured.out).splitlines()) if m]
    assert found, f"{command} named no damage in {path}: {captured.err!r}"
    first = found[0]
    return code, first["reason"], first["file"], int(first["offset"])


@pytest.mark.parametrize("case", CASES)
def test_every_command_gives_the_same_verdict(case, tmp_path, capsys):
    name, data, phrase, offset = CASES[case]
    damaged = tmp_path / case / name
    damaged.parent.mkdir()
    damaged.write_bytes(data)
    verdicts = {command: verdict(command, damaged, tmp_path, capsys) for command in COMMANDS}
    for command, (code, reason, file, at) in verdicts.items():
        assert (code, file, at) == (2, str(damaged), offset), command
        assert reason.startswith(phrase), (command, reason)
    assert len({reason for _, reason, _, _ in verdicts.values()}) == 1, verdicts  # one wording
    assert not (tmp_path / "decoded").exists() and not (tmp_path / "snapshots").exists()


def test_reading_past_damage_is_a_finding_never_clean(tmp_path, capsys):
    # A flipped bit whose records still decode: decode used to call the file clean (exit 0).
    damaged = tmp_path / SNAPSHOT.name
    damaged.write_bytes(_flip(REAL, 1000))
    assert main(["decode", str(damaged), "--out", str(tmp_path / "out")]) == 2
    assert main(["decode", str(damaged), "--out", str(tmp_path / "out"), "--skip-undecodable"]) == 1
    assert "1 batch failing its CRC (rows with crc_valid false)" in capsys.readouterr().out
    assert main(["dump", str(damaged), "--skip-undecodable"]) == 1
    shutil.copy(SNAPSHOT, damaged)
    assert main(["dump", str(damaged)]) == 0
    assert main(["decode", str(damaged), "--out", str(tmp_path / "clean")]) == 0


def test_features_and_the_matrix_take_the_options_their_messages_suggest(tmp_path, capsys):
    node = tmp_path / "node"
    shutil.copytree(KRAFT_361, node)
    log = node / "__cluster_metadata-0" / SEGMENT_NAME
    log.write_bytes((KRAFT_361 / "__cluster_metadata-0" / SEGMENT_NAME).read_bytes()[:100000])  # a crash mid-write
    assert main(["features", "describe", str(node)]) == 2
    hint = re.search(r"--until (\d+) reads the log up to the damage", capsys.readouterr().err)
    assert hint is not None
    assert main(["features", "describe", str(node), "--until", hint[1]]) == 0
    assert main(["features", "describe", str(node), "--from-log"]) == 2  # the log is still cut
    assert main(["metadata", "downgrade-matrix", str(node), "--from-log", "--until", hint[1]]) == 0


def test_frame_calls_an_empty_file_what_every_command_calls_it(tmp_path, capsys):
    empty = tmp_path / "request.bin"
    empty.write_bytes(b"")
    assert main(["frame", str(empty)]) == 2  # unusable input, not "does not decode" (1)
    assert capsys.readouterr().err == (f"kwire frame: {empty}: the file is empty (0 bytes): "
                                       "no frame to read (byte offset 0)\n")
    assert main(["frame", str(KRAFT_361 / "meta.properties"), "--request", str(empty)]) == 2
    assert f"{empty}: the file is empty (0 bytes)" in capsys.readouterr().err
