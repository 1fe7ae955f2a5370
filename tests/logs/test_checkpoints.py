"""Kafka's text state files (``kwire.logs.checkpoints``) and ``kwire dump`` of them and of renamed segments.

Golden bytes and verdicts: ``tests/data/kafka-checkpoints`` (written and read by Kafka 3.9's own
classes, its README says how) and the real 3.6.1 and 3.9.0 nodes' files.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from kwire.cli.main import main as kwire_main
from kwire.logs.checkpoints import (
    CheckpointError,
    EpochEntry,
    OffsetEntry,
    read_leader_epoch_checkpoint,
    read_offset_checkpoint,
    read_partition_metadata,
)
from kwire.logs.dump import dump_paths
from kwire.wire.jsonform import uuid_to_text
from tests.paths import KAFKA_CHECKPOINTS, KRAFT_361, KRAFT_390

WRITTEN = KAFKA_CHECKPOINTS / "written"
DAMAGED = KAFKA_CHECKPOINTS / "damaged"
OFFSET_FILES = ("replication-offset-checkpoint", "recovery-point-offset-checkpoint", "log-start-offset-checkpoint",
                "cleaner-offset-checkpoint")
READERS = {"epochs": read_leader_epoch_checkpoint, "offsets": read_offset_checkpoint,
           "partition": read_partition_metadata}


def _kafka_reads() -> dict[str, str]:
    lines = (KAFKA_CHECKPOINTS / "kafka-reads.txt").read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines)


def _as_kafka_prints(name: str, answer) -> str:
    """kwire's answer in the form the driver printed Kafka's (KafkaCheckpoints.java)."""
    if name.startswith("epochs"):
        return "[" + ", ".join(f"EpochEntry(epoch={e.epoch}, startOffset={e.start_offset})" for e in answer) + "]"
    if name.startswith("offsets"):
        return "[" + "".join(f"{e.topic} {e.partition} {e.offset};" for e in answer) + "]"
    return f"topicId={uuid_to_text(answer.topic_id)}"


def test_kafkas_written_files_read_back():
    assert read_leader_epoch_checkpoint(WRITTEN / "orders-3" / "leader-epoch-checkpoint") == [
        EpochEntry(0, 0), EpochEntry(1, 61), EpochEntry(3, 6948), EpochEntry(2**31 - 1, 2**63 - 1)]
    metadata = read_partition_metadata(WRITTEN / "orders-3" / "partition.metadata")
    assert (metadata.version, uuid_to_text(metadata.topic_id)) == (0, "3rRiSJWoStS_jKosjd7CtQ")
    for name in OFFSET_FILES:
        assert read_offset_checkpoint(WRITTEN / name) == [
            OffsetEntry("orders", 3, 6950), OffsetEntry("__consumer_offsets", 49, 0),
            OffsetEntry("orders", 0, 2**63 - 1)]
    assert read_offset_checkpoint(WRITTEN / "empty-offset-checkpoint") == []


@pytest.mark.parametrize("name", sorted(p.name for p in DAMAGED.iterdir()))
def test_every_input_gets_kafkas_verdict(name):
    """Where Kafka reads entries, kwire reads the same; where Kafka throws an IOException, kwire's error
    is its message; where Kafka's reader crashes (NumberFormatException, NullPointerException...),
    kwire gives one error naming what Kafka throws."""
    kafka = _kafka_reads()[name]
    path = DAMAGED / name
    reader = READERS[name.split(".")[0]]
    failure = re.match(r"(\w+): (.*)", kafka) if not kafka.startswith(("[", "topicId=")) else None
    if failure is None:
        assert _as_kafka_prints(name, reader(path)) == kafka
        return
    with pytest.raises(CheckpointError) as caught:
        reader(path)
    exception, message = failure.groups()
    if exception == "IOException":
        assert caught.value.reason == message.replace("DIR", str(DAMAGED.absolute()))
    else:
        assert exception in caught.value.reason
    assert caught.value.offset is not None


def test_errors_give_line_and_byte_offset(tmp_path):
    path = tmp_path / "leader-epoch-checkpoint"
    path.write_bytes(b"0\n2\n1 0\n1 0 5\n")
    with pytest.raises(CheckpointError) as caught:
        read_leader_epoch_checkpoint(path)
    assert (caught.value.line, caught.value.offset) == (4, 8)
    assert str(caught.value).endswith(": 1 0 5 (line 4, byte offset 8)")
    # offsets count bytes: the count 1 written as an Arabic-Indic digit (two bytes; Integer.parseInt reads it)
    path.write_bytes("0\n\u0661\n1 0 5\n".encode())
    with pytest.raises(CheckpointError) as caught:
        read_leader_epoch_checkpoint(path)
    assert (caught.value.line, caught.value.offset) == (3, 5)


@pytest.mark.parametrize("field, ok", [("2147483647", True), ("2147483648", False), ("-2147483648", True),
                                       ("-2147483649", False)])
def test_epochs_are_java_ints_at_and_past_the_bound(tmp_path, field, ok):
    path = tmp_path / "leader-epoch-checkpoint"
    path.write_text(f"0\n1\n{field} 0\n")
    if ok:
        assert read_leader_epoch_checkpoint(path) == [EpochEntry(int(field), 0)]
    else:
        with pytest.raises(CheckpointError, match="NumberFormatException"):
            read_leader_epoch_checkpoint(path)


def test_real_nodes_state_files():
    for node in (KRAFT_361, KRAFT_390):
        directory = node / "__cluster_metadata-0"
        metadata = read_partition_metadata(directory / "partition.metadata")
        # Kafka's METADATA_TOPIC_ID, Uuid(0L, 1L)
        assert (metadata.version, uuid_to_text(metadata.topic_id)) == (0, "AAAAAAAAAAAAAAAAAAAAAQ")
        raw = (directory / "leader-epoch-checkpoint").read_text().split("\n")
        epochs = read_leader_epoch_checkpoint(directory / "leader-epoch-checkpoint")
        assert len(epochs) == int(raw[1]) > 0 and epochs[0] == EpochEntry(*map(int, raw[2].split()))


def test_dump_reads_state_files_and_says_where_they_break(tmp_path, capsys):
    shutil.copytree(WRITTEN, tmp_path / "data")
    assert kwire_main(["dump", "--json", str(tmp_path / "data")]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = {e["file"].rsplit("/", 1)[1]: e["kind"] for e in events if e["event"] == "file"}
    assert kinds == {"leader-epoch-checkpoint": "leader-epoch-checkpoint", "partition.metadata": "partition-metadata",
                     **dict.fromkeys(OFFSET_FILES, "offset-checkpoint")}
    entries = [e for e in events if e["event"] == "checkpoint-entry"]
    assert len(entries) == 4 + 1 + 3 * 4
    assert {"event": "checkpoint-entry", "file": str(tmp_path / "data" / "replication-offset-checkpoint"),
            "topic": "orders", "partition": 3, "offset": 6950, "meaning": "high watermark"} in entries
    shutil.copy(DAMAGED / "epochs.07-three-fields", tmp_path / "data" / "orders-3" / "leader-epoch-checkpoint")
    assert kwire_main(["dump", str(tmp_path / "data" / "orders-3")]) == 2  # damage, as every command says
    assert (f"kwire dump: {tmp_path}/data/orders-3/leader-epoch-checkpoint: line 3 (file position 4): Malformed line "
            f"in checkpoint file [{tmp_path}/data/orders-3/leader-epoch-checkpoint]: 1 0 5\n"
            ) in capsys.readouterr().err


@pytest.mark.parametrize("suffix, why", [(".deleted", "scheduled for deletion"),
                                         (".cleaned", "being written by the log cleaner"),
                                         (".swap", "being swapped in by the log cleaner")])
def test_dump_reads_renamed_segments_as_what_they_were(tmp_path, suffix, why):
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir()
    log = KRAFT_390 / "__cluster_metadata-0" / "00000000000000000000.log"
    shutil.copy(log, directory / f"00000000000000000000.log{suffix}")
    renamed = list(dump_paths([tmp_path]))
    plain = list(dump_paths([log]))
    assert renamed[0]["renamed"] == suffix[1:] and renamed[0]["renamedWhy"] == why
    assert renamed[0]["kind"] == "segment" and renamed[0]["decoder"] == "metadata" and renamed[0]["baseOffset"] == 0
    assert [{k: v for k, v in e.items() if k != "file"} for e in renamed[1:]] == \
        [{k: v for k, v in e.items() if k != "file"} for e in plain[1:]]


def test_a_renamed_index_keeps_its_base_offset(tmp_path):
    path = tmp_path / "00000000000000000100.index.deleted"
    path.write_bytes((30).to_bytes(4, "big") + (4096).to_bytes(4, "big"))  # relative offset, position
    events = list(dump_paths([path]))
    assert [(e["offset"], e["position"]) for e in events if e["event"] == "index-entry"] == [(130, 4096)]
