"""``kwire storage format --cluster-id ... --initial-controllers/--standalone``: KIP-853's bootstrap snapshot.

Two independent proofs of the bytes: files written by Kafka's own classes (``MemoryRecordsBuilder``
and the generated ``VotersRecord``, ``tests/data/kraft-quorum/kafka-bytes``), and bytes built here by hand, field by
field, from Kafka 4.2.1's sources, with no kwire encoder involved (struct, the tests' own varint writer in
tests/varints.py and a CRC-32C table of this file's own):

* ``Formatter.writeDynamicQuorumSnapshot``: a ``RecordsSnapshotWriter`` at snapshot id (0, 0) with
  lastContainedLogTimestamp = the clock, kraft.version 1 and ``DynamicVoters.toVoterSet(listener)``;
* ``RecordsSnapshotWriter.Builder.build``: one control batch (``MemoryRecordsBuilder``, magic 2,
  CREATE_TIME, no compression, producer id -1, epoch -1, sequence -1, not transactional, control,
  partition leader epoch = snapshot epoch 0) at base offset 0 holding, stamped ``now``:
  ``appendSnapshotHeaderMessage`` (control type 3, SnapshotHeaderRecord v0), ``appendKRaftVersionMessage``
  (type 5, KRaftVersionRecord v0) and ``appendVotersMessage`` (type 6, VotersRecord v0); ``freeze``
  appends the footer batch (type 4, SnapshotFooterRecord v0) at the next offset, 3;
* ``DefaultRecordBatch``/``DefaultRecord``: the v2 batch header, CRC-32C over attributes..end,
  records as zig-zag varints; ``ControlRecordType`` keys are (version int16 0, type int16);
* the record bodies from ``SnapshotHeaderRecord.json``, ``KRaftVersionRecord.json``,
  ``VotersRecord.json`` and ``SnapshotFooterRecord.json`` (all flexible: compact arrays and strings,
  an empty tagged-field section per struct);
* ``DynamicVoter.toVoterNode``: one endpoint named ``ListenerName.normalised(listener)`` (upper
  case), kraft.version range 0..1; voters in ``HashMap<Integer,...>`` order (ascending here).
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import stat
import struct

import pytest

from kwire.cli.main import main
from kwire.features.dynamic_voters import DynamicVoterError, parse_dynamic_voter, parse_dynamic_voters
from kwire.features.formatter import plan_format
from kwire.logs.metadata_log import read_snapshot
from kwire.metadata.loader import load_image
from tests.paths import DATA
from tests.varints import uvarint, zigzag

CLUSTER = "MkU3OEVBNTcwNTJENDM2Qk"
DIRS = {1: "4znU-ou9Taa06bmEJxsjnw", 2: "nKF6yzhxS-2F12yYx2aYRw", 3: "ANbHvzbFTM6KJXvFvFmVnA"}
INITIAL = ",".join(f"{n}@localhost:{9092 + n}:{d}" for n, d in DIRS.items())
NOW = 1_700_000_000_000
CHECKPOINT = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"


# ------------------------------------------------------------------ an encoder of this test's own

def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for byte in data:
        c = _TABLE[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def compact_string(text: str) -> bytes:
    raw = text.encode()
    return uvarint(len(raw) + 1) + raw


def uuid_bytes(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "==")


def control_record(offset_delta: int, control_type: int, value: bytes) -> bytes:
    key = struct.pack(">hh", 0, control_type)
    body = (b"\x00" + zigzag(0) + zigzag(offset_delta) + zigzag(len(key)) + key + zigzag(len(value)) + value
            + zigzag(0))
    return zigzag(len(body)) + body


def control_batch(base_offset: int, timestamp: int, records: list[bytes]) -> bytes:
    after_crc = (struct.pack(">hiqqqhii", 0x20, len(records) - 1, timestamp, timestamp, -1, -1, -1, len(records))
                 + b"".join(records))
    crc = crc32c(after_crc)
    rest = struct.pack(">ibI", 0, 2, crc) + after_crc  # partition leader epoch, magic, crc
    return struct.pack(">qi", base_offset, len(rest)) + rest


def voters_body(voters: list[tuple[int, str, str, str, int]]) -> bytes:
    out = struct.pack(">h", 0) + uvarint(len(voters) + 1)
    for voter_id, directory, listener, host, port in voters:
        out += struct.pack(">i", voter_id) + uuid_bytes(directory)
        out += uvarint(2) + compact_string(listener) + compact_string(host) + struct.pack(">H", port) + b"\x00"
        out += struct.pack(">hh", 0, 1) + b"\x00"  # KRaftVersionFeature 0..1, its tags
        out += b"\x00"  # the voter's tags
    return out + b"\x00"


def expected_checkpoint(voters: list[tuple[int, str, str, str, int]], now: int) -> bytes:
    header = struct.pack(">hq", 0, now) + b"\x00"
    kraft = struct.pack(">hh", 0, 1) + b"\x00"
    footer = struct.pack(">h", 0) + b"\x00"
    first = control_batch(0, now, [control_record(0, 3, header), control_record(1, 5, kraft),
                                   control_record(2, 6, voters_body(voters))])
    return first + control_batch(3, now, [control_record(0, 4, footer)])


# ------------------------------------------------------------------------------------- the tests

def format_node(tmp_path, node_id: int, *extra: str) -> int:
    return main(["storage", "format", "--cluster-id", CLUSTER, "--node-id", str(node_id), "--out", str(tmp_path),
                 "--timestamp", str(NOW), "--release-version", "4.2", *extra])


def test_initial_controllers_checkpoint_is_kafkas_bytes(tmp_path, capsys):
    assert format_node(tmp_path, 2, "--initial-controllers", INITIAL, "--controller-listener", "controller") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Formatting dynamic metadata voter directory {tmp_path} with metadata.version 4.2-IV1.")
    expected = expected_checkpoint([(n, d, "CONTROLLER", "localhost", 9092 + n) for n, d in DIRS.items()], NOW)
    assert (tmp_path / CHECKPOINT).read_bytes() == expected
    assert len(expected) == 344


def test_meta_properties_carries_the_nodes_own_directory_id(tmp_path):
    assert format_node(tmp_path, 3, "--initial-controllers", INITIAL, "-q") == 0
    lines = (tmp_path / "meta.properties").read_text().splitlines()
    assert lines[0] == "#" and lines[1].startswith("#")
    assert lines[2:] == [f"cluster.id={CLUSTER}", f"directory.id={DIRS[3]}", "node.id=3", "version=1"]


def test_formatted_directory_reads_back_through_kwires_readers(tmp_path):
    assert format_node(tmp_path, 1, "--initial-controllers", INITIAL, "-q") == 0
    snapshot = read_snapshot(tmp_path / CHECKPOINT)
    assert snapshot.kraft_version.kraft_version == 1
    image = load_image(tmp_path).image  # the data directory holding __cluster_metadata-0
    assert image.quorum.kraft_version == 1
    assert [(v.id, base64.urlsafe_b64encode(v.directory_id.bytes).rstrip(b"=").decode(), v.endpoints)
            for v in image.quorum.voters] == [(n, d, (("CONTROLLER", "localhost", 9092 + n),)) for n, d in DIRS.items()]
    bootstrap = read_snapshot(tmp_path / "bootstrap.checkpoint")
    assert "kraft.version" not in {r.message.name for r in bootstrap.records}  # never a FeatureLevelRecord


def test_voters_come_in_javas_hash_map_order(tmp_path):
    # DynamicVoters keeps a TreeMap (1, 17, 40); toVoterSet puts them into a HashMap and VoterSet.fromMap
    dirs = ["AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAg", "AAAAAAAAAAAAAAAAAAAAAw"]
    initial = f"17@a:1:{dirs[0]},1@b:2:{dirs[1]},40@c:3:{dirs[2]}"
    assert format_node(tmp_path, 1, "--initial-controllers", initial, "-q") == 0
    # copies it: new HashMap<>(3-entry map) has 8 slots (tableSizeFor(3 / 0.75 + 1)); Integer's hash is the
    # value, so 40 -> slot 0, 1 and 17 -> slot 1 (in that order): 40, 1, 17
    expected = expected_checkpoint([(40, dirs[2], "CONTROLLER", "c", 3), (1, dirs[1], "CONTROLLER", "b", 2),
                                    (17, dirs[0], "CONTROLLER", "a", 1)], NOW)
    assert (tmp_path / CHECKPOINT).read_bytes() == expected


def test_standalone_uses_the_controller_listener(tmp_path, capsys):
    assert format_node(tmp_path, 5, "--standalone", "--controller-listener", "CONTROLLER://ctl.example:9093",
                       "--directory-id", DIRS[1], "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["directoryType"] == "dynamic metadata voter directory"
    assert out["initialControllers"] == f"5@ctl.example:9093:{DIRS[1]}"
    assert (tmp_path / CHECKPOINT).read_bytes() == expected_checkpoint(
        [(5, DIRS[1], "CONTROLLER", "ctl.example", 9093)], NOW)


def test_standalone_needs_a_listener_address(tmp_path, capsys):
    assert format_node(tmp_path, 5, "--standalone") == 2
    assert "--controller-listener NAME://HOST:PORT" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_node_outside_the_initial_controllers_is_a_dynamic_metadata_directory(tmp_path, capsys):
    # Kafka does not refuse it: Formatter.DirectoryType.DYNAMIC_METADATA_NON_VOTER_DIRECTORY
    assert format_node(tmp_path, 9, "--initial-controllers", INITIAL) == 0
    assert "Formatting dynamic metadata directory" in capsys.readouterr().out
    directory_id = dict(line.split("=", 1) for line in (tmp_path / "meta.properties").read_text().splitlines()
                        if "=" in line)["directory.id"]
    assert directory_id not in DIRS.values()
    assert (tmp_path / CHECKPOINT).exists()


def test_no_initial_controllers_sets_kraft_version_1_without_a_snapshot(tmp_path, capsys):
    assert format_node(tmp_path, 4, "--no-initial-controllers", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["features"]["kraft.version"] == 1 and out["directoryType"] == "metadata directory"
    assert not (tmp_path / CHECKPOINT).exists() and (tmp_path / "meta.properties").exists()


def test_static_quorum_is_kraft_version_0(tmp_path, capsys):
    assert format_node(tmp_path, 4, "--json") == 0
    assert json.loads(capsys.readouterr().out)["features"]["kraft.version"] == 0
    assert not (tmp_path / CHECKPOINT).exists()


@pytest.mark.parametrize("feature, flags, message", [
    ("kraft.version=0", ["--initial-controllers", INITIAL],
     "Cannot set kraft.version to 0 if controller.quorum.voters is empty and one of the flags --standalone, "
     "--initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try removing "
     "the --feature flag for kraft.version."),
    ("kraft.version=1", [],
     "Cannot set kraft.version to 1 unless controller.quorum.voters is empty and one of the flags --standalone, "
     "--initial-controllers, or --no-initial-controllers is used. For dynamic controllers support, try using one "
     "of --standalone, --initial-controllers, or --no-initial-controllers and removing controller.quorum.voters."),
])
def test_kraft_version_flag_refusals(tmp_path, capsys, feature, flags, message):
    assert format_node(tmp_path, 1, "--feature", feature, *flags) == 1
    assert capsys.readouterr().err.strip() == f"kwire storage format: {message}"
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("entry, message", [
    ("1localhost:9093:" + DIRS[1], "No @ found in dynamic voter string."),
    ("@localhost:9093:" + DIRS[1], "Invalid @ at beginning of dynamic voter string."),
    ("x@localhost:9093:" + DIRS[1], "Failed to parse node id in dynamic voter string."),
    ("-1@localhost:9093:" + DIRS[1], "Invalid negative node id -1 in dynamic voter string."),
    ("1@", "No hostname found after node id."),
    ("1@[::1:9093:" + DIRS[1], "Hostname began with left bracket, but no right bracket was found."),
    ("1@localhost", "No colon following hostname could be found."),
    ("1@[::1]9093:" + DIRS[1], "Port section must start with a colon."),
    ("1@localhost:9093", "No colon following port could be found."),
    ("1@localhost:port:" + DIRS[1], "Failed to parse port in dynamic voter string."),
    ("1@localhost:70000:" + DIRS[1], "Invalid port 70000 in dynamic voter string."),
    ("1@localhost:9093:notauuid", "Failed to parse directory ID in dynamic voter string."),
])
def test_dynamic_voter_messages(entry, message):
    with pytest.raises(DynamicVoterError) as caught:
        parse_dynamic_voter(entry)
    assert str(caught.value) == message


@pytest.mark.parametrize("text", ["", " ", ",", ",,"])
def test_no_voter_at_all_is_kafkas_no_voters_given(text):
    """``DynamicVoters.parse`` skips empty entries and refuses an empty result with "No voters given."
    (raft/.../DynamicVoters.java; kills ``dynamic_voters.xǁDynamicVotersǁ__post_init____mutmut_3``)."""
    with pytest.raises(DynamicVoterError) as caught:
        parse_dynamic_voters(text)
    assert str(caught.value) == "No voters given."


def test_ipv6_host_and_round_trip_text():
    voter = parse_dynamic_voter(f" 7@[::1]:9093:{DIRS[2]} ")
    assert (voter.node_id, voter.host, voter.port) == (7, "::1", 9093)
    assert str(voter) == f"7@[::1]:9093:{DIRS[2]}"
    assert str(parse_dynamic_voters(f"3@h:1:{DIRS[3]},,1@h:2:{DIRS[1]}")) == f"1@h:2:{DIRS[1]},3@h:1:{DIRS[3]}"


def test_duplicate_and_malformed_entries_write_nothing(tmp_path, capsys):
    duplicate = f"1@a:1:{DIRS[1]},1@b:2:{DIRS[2]}"
    assert format_node(tmp_path, 1, "--initial-controllers", duplicate) == 1
    assert capsys.readouterr().err.strip() == "kwire storage format: Node id 1 was specified more than once."
    assert format_node(tmp_path, 1, "--initial-controllers", "1@a") == 1
    assert "No colon following hostname could be found." in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_standalone_with_initial_controllers_is_refused_as_argparse4j_does(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        format_node(tmp_path, 1, "--standalone", "--initial-controllers", INITIAL)
    assert exit_.value.code == 2
    # argparse4j's mutually exclusive group says the same: "not allowed with argument --standalone/-s"
    assert "argument --initial-controllers/-I: not allowed with argument --standalone/-s" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_dry_run_json_describes_the_directory_and_the_meta_properties_the_run_writes(tmp_path, capsys):
    """``--dry-run --json``'s ``directory`` is the directory given and its ``metaProperties`` are the
    keys and values the real run writes to meta.properties (Kafka's MetaProperties keys) (kills
    ``formatter.x_describe_plan__mutmut_12`` and ``_20``: those two keys renamed)."""
    assert format_node(tmp_path, 3, "--initial-controllers", INITIAL, "--dry-run", "--json") == 0
    planned = json.loads(capsys.readouterr().out)
    assert not any(tmp_path.iterdir())
    assert format_node(tmp_path, 3, "--initial-controllers", INITIAL, "-q") == 0
    written = dict(line.split("=", 1) for line in (tmp_path / "meta.properties").read_text().splitlines()
                   if not line.startswith("#"))
    assert planned["directory"] == str(tmp_path)
    assert {key: str(value) for key, value in planned["metaProperties"].items()} == written


def test_nothing_is_replaced_without_force(tmp_path, capsys):
    assert format_node(tmp_path, 1, "--initial-controllers", INITIAL, "-q") == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    (tmp_path / "meta.properties").unlink()  # one target free, the others present: still nothing written
    assert format_node(tmp_path, 1, "--initial-controllers", INITIAL, "--timestamp", "5") == 1
    assert "already exists (use --force to replace it)" in capsys.readouterr().err
    assert not (tmp_path / "meta.properties").exists()
    assert all(p.read_bytes() == data for p, data in before.items() if p.exists())
    assert format_node(tmp_path, 1, "--initial-controllers", INITIAL, "--force", "-q") == 0
    assert (tmp_path / "meta.properties").exists()


def test_plan_refuses_a_negative_node_id(tmp_path):
    from kwire.features import FeatureError

    with pytest.raises(FeatureError, match="You must specify a valid non-negative node ID."):
        plan_format(tmp_path, cluster_id=CLUSTER, node_id=-1)


def test_cluster_id_without_node_id_is_usage(tmp_path, capsys):
    assert main(["storage", "format", "--cluster-id", CLUSTER, "--out", str(tmp_path)]) == 2
    assert "--cluster-id and --node-id go together" in capsys.readouterr().err


def test_help_names_the_new_options():
    parser = argparse.ArgumentParser()
    from kwire.cli import storage_node

    storage_node.add_node_arguments(parser)
    text = parser.format_help()
    assert "--initial-controllers" in text and "--no-initial-controllers" in text and "--standalone" in text


# ------------------------------------------------ against the bytes Kafka's own classes wrote

KAFKA_BYTES = DATA / "kraft-quorum" / "kafka-bytes"  # tests/data/kraft-quorum/README.md says how


@pytest.mark.parametrize("name, node_id, flags", [
    ("three", 2, ["--initial-controllers", INITIAL, "--controller-listener", "controller"]),
    ("spread", 1, ["--initial-controllers",
                   "17@a:1:AAAAAAAAAAAAAAAAAAAAAQ,1@b:2:AAAAAAAAAAAAAAAAAAAAAg,40@c:3:AAAAAAAAAAAAAAAAAAAAAw"]),
    ("standalone", 5, ["--standalone", "--controller-listener", "CONTROLLER://ctl.example:9093",
                       "--directory-id", DIRS[1]]),
])
def test_checkpoint_is_the_one_kafkas_classes_write(tmp_path, name, node_id, flags):
    assert format_node(tmp_path, node_id, *flags, "-q") == 0
    assert (tmp_path / CHECKPOINT).read_bytes() == (KAFKA_BYTES / f"{name}.checkpoint").read_bytes()


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_formatted_files_have_the_umask_s_mode_as_kafka_storage_format_leaves_them(tmp_path, mask, mode):
    # Kafka writes meta.properties and the checkpoints with the umask's mode (0644 under 022): a node
    # formatted by an operator and run as the `kafka` user must read them.
    old = os.umask(mask)
    try:
        assert format_node(tmp_path, 1, "--initial-controllers", INITIAL, "-q") == 0
    finally:
        os.umask(old)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == [CHECKPOINT, "bootstrap.checkpoint", "meta.properties"]
    assert {p: stat.S_IMODE((tmp_path / p).stat().st_mode) for p in written} == dict.fromkeys(written, mode)
