"""Pointing kwire at a real data directory (issue 22, sections 1 and 3): nothing overwritten without
``--force``, nothing half-written, and every damaged, foreign or empty file named with its byte offset.

Every test works on a copy of a real node's directory (tests/data) in tmp_path; damage is done to
the copy, never to tests/data.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

import kwire.wire.files
from kwire.cli.main import main as kwire_main
from tests.optional import need_module
from tests.paths import KRAFT_361, KRAFT_390

METADATA = "__cluster_metadata-0"
SNAPSHOT_7111 = "00000000000000007111-0000000001.checkpoint"
SEGMENT = "00000000000000000000.log"


@pytest.fixture
def node_361(tmp_path) -> Path:
    """A copy of the Kafka 3.6.1 node's data directory (a log, and a snapshot at 7111)."""
    return Path(shutil.copytree(KRAFT_361, tmp_path / "kafka-361"))


@pytest.fixture
def node_390(tmp_path) -> Path:
    return Path(shutil.copytree(KRAFT_390, tmp_path / "kafka-390"))


def files_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


# ------------------------------------------------------------------------ 1. never destroy a file


@pytest.mark.parametrize("out", ["directory", "file"])
def test_snapshot_never_replaces_the_nodes_own_checkpoint(node_361, capsys, out):
    log_dir = node_361 / METADATA
    before = files_of(log_dir)
    target = str(log_dir) + "/" if out == "directory" else str(log_dir / SNAPSHOT_7111)
    code = kwire_main(["metadata", "snapshot", str(node_361), "--until", "7111", "--metadata-version", "3.5-IV2",
                       "--out", target])
    err = capsys.readouterr().err
    assert code == 1
    assert err == (f"kwire metadata snapshot: refused: {log_dir / SNAPSHOT_7111} already exists "
                   f"(use --force to replace it)\n")
    assert files_of(log_dir) == before


def test_force_replaces_it_and_says_the_node_will_load_it(node_361, capsys):
    log_dir = node_361 / METADATA
    original = (log_dir / SNAPSHOT_7111).read_bytes()
    assert kwire_main(["metadata", "snapshot", str(node_361), "--until", "7111", "--metadata-version", "3.5-IV2",
                       "--out", str(log_dir) + "/", "--force"]) == 0
    err = capsys.readouterr().err
    assert (f"kwire metadata snapshot: note: {log_dir} holds a metadata log: a node started on this directory "
            f"will load {SNAPSHOT_7111}") in err
    assert (log_dir / SNAPSHOT_7111).read_bytes() != original
    assert sorted(p.name for p in log_dir.iterdir()) == sorted(files_of(KRAFT_361 / METADATA))  # no temporary left


def test_an_older_snapshot_written_beside_the_nodes_says_which_one_a_node_loads(node_361, capsys):
    log_dir = node_361 / METADATA
    assert kwire_main(["metadata", "snapshot", str(node_361), "--until", "5000", "--from-log", "--out",
                       str(log_dir) + "/", "-q"]) == 0
    written = sorted(set(files_of(log_dir)) - set(files_of(KRAFT_361 / METADATA)))
    assert len(written) == 1 and written[0] < SNAPSHOT_7111
    assert capsys.readouterr().err == (f"kwire metadata snapshot: note: {log_dir} holds a metadata log: a node "
                                       f"started on this directory loads its newest snapshot, {SNAPSHOT_7111}, "
                                       f"not {written[0]}\n")


def test_a_snapshot_written_elsewhere_says_nothing_about_loading(node_390, tmp_path, capsys):
    out = tmp_path / "elsewhere"
    assert kwire_main(["metadata", "snapshot", str(node_390), "--out", str(out) + "/"]) == 0
    assert "will load" not in capsys.readouterr().err


def test_a_write_failing_half_way_leaves_the_old_snapshot(node_361, monkeypatch, capsys):
    log_dir = node_361 / METADATA
    before = files_of(log_dir)

    def disk_full(descriptor):  # the data is written to the temporary file, then the sync fails
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(kwire.wire.files.os, "fsync", disk_full)
    code = kwire_main(["metadata", "snapshot", str(node_361), "--until", "7111", "--out", str(log_dir) + "/",
                       "--force"])
    assert code == 2
    assert f"kwire metadata snapshot: {log_dir / SNAPSHOT_7111}: No space left on device" in capsys.readouterr().err
    assert files_of(log_dir) == before


def test_an_interrupt_half_way_leaves_the_old_snapshot(node_361, monkeypatch, capsys):
    log_dir = node_361 / METADATA
    before = files_of(log_dir)

    def interrupted(descriptor):  # Ctrl-C after the data went to the temporary file, before the rename
        raise KeyboardInterrupt

    monkeypatch.setattr(kwire.wire.files.os, "fsync", interrupted)
    assert kwire_main(["metadata", "snapshot", str(node_361), "--until", "7111", "--out", str(log_dir) + "/",
                       "--force"]) == 130
    assert files_of(log_dir) == before


def test_storage_format_refuses_the_nodes_bootstrap_and_writes_atomically(node_361, monkeypatch, capsys):
    before = files_of(node_361)
    assert kwire_main(["storage", "format", "--metadata-version", "3.6", "--out", str(node_361)]) == 1
    assert capsys.readouterr().err == (f"kwire storage format: refused: {node_361 / 'bootstrap.checkpoint'} "
                                       f"already exists (use --force to replace it)\n")
    monkeypatch.setattr(kwire.wire.files.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "I/O error")))
    assert kwire_main(["storage", "format", "--metadata-version", "3.6", "--out", str(node_361), "--force"]) == 2
    assert "I/O error" in capsys.readouterr().err
    assert files_of(node_361) == before


def test_downgrade_matrix_refuses_to_replace_its_report(node_390, tmp_path, capsys):
    report = tmp_path / "matrix.json"
    report.write_text("keep me")
    assert kwire_main(["metadata", "downgrade-matrix", str(node_390), "--out", str(report)]) == 1
    assert capsys.readouterr().err == (f"kwire metadata downgrade-matrix: refused: {report} already exists "
                                       f"(use --force to replace it)\n")
    assert report.read_text() == "keep me"
    assert kwire_main(["metadata", "downgrade-matrix", str(node_390), "--out", str(report), "--force", "-q"]) == 0
    assert json.loads(report.read_text())["images"][0]["metadataVersion"]["name"] == "3.9-IV0"
    (tmp_path / "a-file").write_text("mine")
    assert kwire_main(["metadata", "downgrade-matrix", str(node_390),
                       "--out", str(tmp_path / "a-file" / "m.json")]) == 2
    assert capsys.readouterr().err.startswith(f"kwire metadata downgrade-matrix: cannot write {tmp_path / 'a-file'}")


def test_generate_refuses_to_replace_a_file_it_did_not_write(tmp_path, capsys):
    out = tmp_path / "codecs"
    out.mkdir()
    (out / "api_versions_request.py").write_text("# my own module\n")
    assert kwire_main(["generate", "--defs", "kwire:builtin", "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"kwire generate: refused: {out / 'api_versions_request.py'} exists and "
                                       f"kwire did not generate it (use --force to replace it)\n")
    assert [p.name for p in out.iterdir()] == ["api_versions_request.py"]  # nothing written at all
    assert kwire_main(["generate", "--defs", "kwire:builtin", "--out", str(out), "--force", "-q"]) == 0
    # a rerun brings kwire's own files up to date without --force
    (out / "api_versions_request.py").write_text('"""ApiVersionsRequest: generated by kwire from an older run."""\n')
    assert kwire_main(["generate", "--defs", "kwire:builtin", "--out", str(out), "-q"]) == 0
    assert "do not edit" in (out / "api_versions_request.py").read_text().splitlines()[0]
    (tmp_path / "a-file").write_text("mine")
    assert kwire_main(["generate", "--defs", "kwire:builtin", "--out", str(tmp_path / "a-file")]) == 2
    assert capsys.readouterr().err == (f"kwire generate: {tmp_path / 'a-file'} is a file: --out names the package "
                                       f"directory to write\n")
    assert (tmp_path / "a-file").read_text() == "mine"


def test_fuzz_report_is_refused_before_the_run(tmp_path, capsys):
    (tmp_path / "report.json").write_text("an earlier run's report")
    assert kwire_main(["fuzz", "--messages", "ApiVersionsRequest", "--cases", "2",
                       "--report", str(tmp_path), "-q"]) == 1
    assert capsys.readouterr().err == (f"kwire fuzz: refused: {tmp_path / 'report.json'} already exists "
                                       f"(use --force to replace it)\n")
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    (tmp_path / "hostile.json").write_text("an earlier run's report")
    assert kwire_main(["fuzz", "--bytes", "--cases", "2", "--target", "records", "--report", str(tmp_path)]) == 1
    assert f"refused: {tmp_path / 'hostile.json'} already exists" in capsys.readouterr().err
    assert (tmp_path / "hostile.json").read_text() == "an earlier run's report"


def test_decode_refuses_an_existing_output_by_default(node_390, tmp_path, capsys):
    out = tmp_path / "decoded"
    out.mkdir()
    assert kwire_main(["decode", str(node_390), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"kwire decode: refused: {out} already exists (use --mode overwrite or "
                                       f"--force to replace it)\n")


def test_schemas_refuses_existing_files(tmp_path, capsys):
    need_module("pyspark")
    assert kwire_main(["schemas", "--out", str(tmp_path), "--messages", "ApiVersionsRequest", "-q"]) == 0
    written = files_of(tmp_path / "ApiVersionsRequest")
    (tmp_path / "ApiVersionsRequest" / "v0.arrow").write_bytes(b"mine")
    assert kwire_main(["schemas", "--out", str(tmp_path), "--messages", "ApiVersionsRequest"]) == 1
    assert "already exists (use --force to replace it)" in capsys.readouterr().err
    assert (tmp_path / "ApiVersionsRequest" / "v0.arrow").read_bytes() == b"mine"
    assert kwire_main(["schemas", "--out", str(tmp_path), "--messages", "ApiVersionsRequest", "--force", "-q"]) == 0
    assert files_of(tmp_path / "ApiVersionsRequest") == written


# ------------------------------------------------------------------ 3. damaged, wrong or empty files


READERS = [["metadata", "image"], ["features", "describe"], ["metadata", "snapshot", "--dry-run"]]


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_a_cut_segment_is_named_with_its_offset_and_what_to_do(node_361, capsys, command):
    segment = node_361 / METADATA / SEGMENT
    segment.write_bytes(segment.read_bytes()[:100_000])  # a crash mid-write
    assert kwire_main([*command, str(node_361)]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"{segment}: the last batch is incomplete (byte offset 99952); "
                        f"--until 1401 reads the log up to the damage\n")
    assert kwire_main(["metadata", "image", str(node_361), "--until", "1401", "-q"]) == 0  # as the hint says


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c[:2]))
def test_random_bytes_are_not_a_record_batch(tmp_path, capsys, command):
    directory = tmp_path / METADATA
    directory.mkdir()
    noise = random.Random(3).randbytes(4096)
    assert noise[16] not in (0, 1, 2)
    (directory / SEGMENT).write_bytes(noise)
    assert kwire_main([*command, str(directory)]) == 2
    err = capsys.readouterr().err
    assert f"{directory / SEGMENT}: not a record batch: its magic byte is {noise[16]} (Kafka writes 0, 1 or 2) " \
           f"(byte offset 0)" in err
    assert "incomplete" not in err


def test_an_impossible_length_is_not_a_record_batch_and_a_bad_checksum_a_crc_mismatch(node_390, capsys):
    segment = node_390 / METADATA / SEGMENT
    real = segment.read_bytes()
    segment.write_bytes(real[:8] + b"\xff\xff\xff\xf0" + real[12:])
    assert kwire_main(["metadata", "image", str(node_390)]) == 2
    assert (f"{segment}: not a record batch: its length field says -16 bytes, below the smallest entry (14) "
            f"(byte offset 0)" in capsys.readouterr().err)
    damaged = bytearray(real)
    damaged[70] ^= 0xFF  # inside the first batch's records: its CRC no longer matches
    segment.write_bytes(bytes(damaged))
    assert kwire_main(["metadata", "image", str(node_390)]) == 2
    err = capsys.readouterr().err
    # a checksum that fails is a CRC mismatch at offset 0 too (issue 36: one classification)
    assert f"{segment}: CRC-32C mismatch in the record batch at base offset 0" in err
    assert err.rstrip().endswith("(byte offset 0)")


def test_a_damaged_snapshot_is_named_with_what_to_do(node_361, capsys):
    snapshot = node_361 / METADATA / SNAPSHOT_7111
    snapshot.write_bytes(snapshot.read_bytes()[:3000])
    assert kwire_main(["metadata", "image", str(node_361)]) == 2
    err = capsys.readouterr().err
    assert f"{snapshot}: the last batch is incomplete (byte offset " in err
    assert "--from-log replays the log without it" in err
    assert kwire_main(["metadata", "image", str(node_361), "--from-log", "-q"]) == 0


@pytest.mark.parametrize("command", [*READERS, ["metadata", "downgrade-matrix"]], ids=lambda c: " ".join(c[:2]))
def test_an_empty_segment_is_exit_2_saying_what_was_looked_for(tmp_path, capsys, command):
    directory = tmp_path / METADATA
    directory.mkdir()
    (directory / SEGMENT).write_bytes(b"")
    assert kwire_main([*command, str(directory)]) == 2
    captured = capsys.readouterr()
    assert (f"{directory}: no metadata records: looked for record batches of the metadata log in "
            f"{SEGMENT} (0 bytes)") in captured.err
    assert "would write 0 records" not in captured.out
