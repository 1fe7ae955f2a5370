"""``kwire dump``: readable lines for real KRaft data, JSON lines, and clear errors that do not stop the dump."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kwire.cli.main import main
from kwire.generated import MESSAGES
from kwire.logs import logdir
from kwire.logs.coordinator_log import CoordinatorLogWriter, CoordinatorRecord
from kwire.logs.entries import ControlRecord
from kwire.logs.metadata_log import MetadataLogWriter, MetadataRecord, RawMetadataRecord
from kwire.records import EndTransactionMarker, RecordBatchBuilder
from tests.paths import CAPTURES, KAFKA_GO, KRAFT_361, KRAFT_390

KAFKA_361 = KRAFT_361
SNAPSHOT_NAME = "00000000000000007111-0000000001.checkpoint"
T0 = 1_700_000_000_000  # 2023-11-14T22:13:20.000Z
T0_TEXT = "2023-11-14T22:13:20.000Z"


def dump(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["dump", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


def test_real_kraft_data_directory_dumps_readably(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = dump(capsys, str(KAFKA_361))
    assert (code, err) == (0, [])
    log = KAFKA_361 / "__cluster_metadata-0" / "00000000000000000000.log"
    assert out[:4] == [
        f"Dumping {log}",
        "Log starting offset: 0 (records decoded as: metadata)",
        "baseOffset: 0 lastOffset: 0 count: 1 epoch: 1 producerId: -1 producerEpoch: -1 baseSequence: -1 "
        "isTransactional: false isControl: true position: 0 CreateTime: 1754470908743 size: 91 magic: 2 "
        "compression: none crc: 0xbbe40341 (ok)",
        '| offset: 0 time: 2025-08-06T09:01:48.743Z control LEADER_CHANGE LeaderChangeMessage '
        '{"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}',
    ]
    assert '| offset: 2 time: 2025-08-06T09:01:49.111Z FeatureLevelRecord v0 ' \
           '{"name":"metadata.version","featureLevel":14}' in out
    assert f"End of {log}: 18149 batches, 18566 records" in out
    snapshot = out.index(f"Dumping {KAFKA_361 / '__cluster_metadata-0' / SNAPSHOT_NAME}")
    assert out[snapshot + 1] == "Snapshot end offset: 7111, epoch: 1"
    assert out[snapshot + 3].startswith("| offset: 0 time: 2025-08-06T10:01:49.630Z control SNAPSHOT_HEADER "
                                        'SnapshotHeaderRecord {"version":0,"lastContainedLogTimestamp":')
    bootstrap = out.index(f"Dumping {KAFKA_361 / 'bootstrap.checkpoint'}")
    assert out[bootstrap + 1] == "KRaft bootstrap snapshot"
    assert out[bootstrap + 5] == ('| offset: 1 time: 2025-08-06T09:01:34.276Z FeatureLevelRecord v0 '
                                  '{"name":"metadata.version","featureLevel":14}')
    assert 'data_version: 0 {"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,' \
           '"currentVoters":[{"voterId":1}]}' in out
    assert sum(line.startswith("| ") for line in out) == 18566 + 62 + 3  # log, snapshot, bootstrap
    assert not any("UNKNOWN" in line for line in out)


def test_json_is_one_object_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = dump(capsys, "--json", str(KAFKA_361 / "__cluster_metadata-0" / SNAPSHOT_NAME),
                          str(KAFKA_361 / "__cluster_metadata-0" / "quorum-state"))
    assert (code, err) == (0, [])
    events = [json.loads(line) for line in out]
    assert all(isinstance(event, dict) and event["file"] for event in events)
    assert [e["event"] for e in events].count("record") == 62
    records = [e for e in events if e["event"] == "record"]
    assert (records[1]["offset"], records[1]["type"], records[1]["apiKey"]) == (1, "FeatureLevelRecord", 12)
    assert records[1]["data"] == {"name": "metadata.version", "featureLevel": 14}
    [broker] = [r for r in records if r.get("type") == "RegisterBrokerRecord"]
    assert broker["version"] == 2 and broker["data"]["brokerId"] == 1
    assert [r["control"] for r in records if "control" in r] == ["SNAPSHOT_HEADER", "SNAPSHOT_FOOTER"]
    ends = [e for e in events if e["event"] == "end"]
    assert [(e["batches"], e["records"], e["errors"]) for e in ends] == [(3, 62, 0), (0, 1, 0)]
    [state] = [e for e in events if e["event"] == "quorum-state"]
    assert state["dataVersion"] == 0 and state["data"]["leaderEpoch"] == 5


def test_kafka_390_data_directory_dumps_completely_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    root = KRAFT_390
    code, out, err = dump(capsys, "--json", str(root))
    assert (code, err) == (0, [])
    events = [json.loads(line) for line in out]
    ends = {Path(e["file"]).name: (e["batches"], e["records"], e["errors"]) for e in events if e["event"] == "end"}
    epochs = int((root / "__cluster_metadata-0" / "leader-epoch-checkpoint").read_text().split("\n")[1])
    assert ends == {"00000000000000000000.log": (8568, 9801, 0), "quorum-state": (0, 1, 0),
                    "bootstrap.checkpoint": (3, 3, 0), "leader-epoch-checkpoint": (0, epochs, 0),
                    "partition.metadata": (0, 1, 0)}
    records = [e for e in events if e["event"] == "record"]
    assert all("unknown" not in e for e in records)
    assert sum(e.get("type") == "RegisterControllerRecord" for e in records) == 13  # README


def copy_metadata_dir(tmp_path: Path) -> tuple[Path, Path]:
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    snapshot = partition / SNAPSHOT_NAME
    shutil.copy(KAFKA_361 / "__cluster_metadata-0" / SNAPSHOT_NAME, snapshot)
    shutil.copy(KAFKA_361 / "bootstrap.checkpoint", tmp_path / "bootstrap.checkpoint")
    return snapshot, tmp_path / "bootstrap.checkpoint"


def test_bad_crc_names_file_offset_and_reason_and_the_dump_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot, bootstrap = copy_metadata_dir(tmp_path)
    data = bytearray(snapshot.read_bytes())
    data[83 + 40] ^= 0x01  # maxTimestamp of the record batch at base offset 1 (file position 83)
    snapshot.write_bytes(bytes(data))
    code, out, err = dump(capsys, str(tmp_path))
    assert code == 2  # damaged input, as every command says it (kwire.logs.damage)
    assert len(err) == 1 and re.fullmatch(
        rf"kwire dump: {re.escape(str(snapshot))}: CRC-32C mismatch in the record batch at base offset 1: "
        r"stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} \(byte offset 83\)", err[0])
    assert any(line.startswith("baseOffset: 1 ") and line.endswith("(BAD)") for line in out)
    assert any("control SNAPSHOT_FOOTER" in line for line in out)  # the batch after it
    assert f"End of {snapshot}: 3 batches, 62 records, 1 error" in out
    assert f"End of {bootstrap}: 3 batches, 3 records" in out  # the next file
    assert dump(capsys, "--skip-undecodable", str(tmp_path))[0] == 1  # read past, as asked: a finding


def test_broken_framing_ends_that_file_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot, bootstrap = copy_metadata_dir(tmp_path)
    data = bytearray(snapshot.read_bytes())
    footer = len(data) - 75
    data[footer + 8:footer + 12] = (5).to_bytes(4, "big")  # the footer batch's length field
    snapshot.write_bytes(bytes(data))
    code, out, err = dump(capsys, "--json", str(tmp_path))
    assert code == 2
    assert err == [
        f"kwire dump: {snapshot}: not a record batch: its length field says 5 bytes, below the smallest entry (14) "
        f"(byte offset {footer})",
    ]
    events = [json.loads(line) for line in out]
    errors = [e for e in events if e["event"] == "error"]
    assert [(e["file"], e["position"]) for e in errors] == [(str(snapshot), footer)]
    assert [e["records"] for e in events if e["event"] == "end"] == [61, 3]


def test_truncated_segment_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot, _ = copy_metadata_dir(tmp_path)
    snapshot.write_bytes(snapshot.read_bytes()[:-10])
    code, _, err = dump(capsys, str(snapshot))
    assert code == 2
    assert err[0] == f"kwire dump: {snapshot}: the last batch is incomplete (byte offset {3443 - 75})"


def test_a_damaged_batch_length_is_corruption_not_a_truncated_tail(tmp_path, capsys) -> None:
    # The length of the third batch of a real 1.3 MB log set to 0x7fffffff: it runs past the end of
    # the file, but 1.3 MB of valid batches follow it. Reading it as a truncated tail would lose
    # all of them with no more than a note.
    segment = tmp_path / "00000000000000000000.log"
    data = bytearray((KAFKA_361 / "__cluster_metadata-0" / segment.name).read_bytes())
    data[236 + 8:236 + 12] = b"\x7f\xff\xff\xff"
    segment.write_bytes(bytes(data))
    code, _, err = dump(capsys, str(segment))
    assert code == 2
    assert err[0] == (f"kwire dump: {segment}: not a record batch: entry size 2147483647 runs past the end "
                      f"({len(data) - 248} bytes follow its header), but a valid batch starts 166 bytes after this "
                      f"entry: its size field is damaged (byte offset 236)")


def test_snapshot_without_its_footer_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot, _ = copy_metadata_dir(tmp_path)
    snapshot.write_bytes(snapshot.read_bytes()[:-75])  # drop the footer batch, keep whole batches
    code, out, err = dump(capsys, str(snapshot))
    assert code == 2
    assert err == [f"kwire dump: {snapshot}: the snapshot does not end with a SnapshotFooter"]
    assert f"End of {snapshot}: 2 batches, 61 records, 1 error" in out


def test_bad_and_unknown_metadata_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partition = tmp_path / "__cluster_metadata-0"
    partition.mkdir()
    writer = MetadataLogWriter()
    writer.append([RawMetadataRecord(99, 3, b"\x01\x02\x03")], timestamp=T0, leader_epoch=2)
    level = MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21)
    writer.append([MetadataRecord(level, 0)], timestamp=T0, leader_epoch=2)
    bad = RecordBatchBuilder(base_offset=2, partition_leader_epoch=2)
    bad.append(T0, None, b"\x00\x0c\x00")  # frame version 0
    segment = writer.write_segment(partition)
    segment.write_bytes(segment.read_bytes() + bad.build())
    code, out, err = dump(capsys, str(segment))
    assert (code, err) == (2, [
        f"kwire dump: {segment}: record at offset 2 (batch at offset 2, file position {len(writer.encode())}): "
        "unknown metadata record frame version 0 (only 1 exists)"])
    assert f"| offset: 0 time: {T0_TEXT} UNKNOWN metadata record apiKey 99 v3: unknown metadata record type 99; " \
           "body: 0x010203 (3 bytes)" in out
    assert f'| offset: 1 time: {T0_TEXT} FeatureLevelRecord v0 {{"name":"metadata.version","featureLevel":21}}' in out
    code, out, err = dump(capsys, "--strict", str(segment))
    assert code == 2 and "record at offset 0 " in err[0] and err[0].endswith("unknown metadata record type 99")
    code, out, _ = dump(capsys, "--strict", "--json", str(segment))
    errors = [json.loads(line) for line in out if '"event":"error"' in line]
    assert [(e["recordOffset"], e["damage"]) for e in errors] == [(0, "unknown-record"), (2, "unknown-record")]


def test_offsets_and_transaction_logs_are_decoded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = MESSAGES["OffsetCommitKey"](group="grp", topic="tp", partition=7)
    value = MESSAGES["OffsetCommitValue"](offset=100, leader_epoch=5, metadata="", commit_timestamp=T0)
    offsets = CoordinatorLogWriter()
    offsets.append([CoordinatorRecord(1, key, value, 3), CoordinatorRecord(1, key)], timestamp=T0)
    offsets.append([ControlRecord.of(EndTransactionMarker(True, 5))], timestamp=T0, producer_id=77,
                   producer_epoch=1, is_transactional=True, is_control=True)
    (tmp_path / "__consumer_offsets-3").mkdir()
    offsets.write_segment(tmp_path / "__consumer_offsets-3")
    txn_key = MESSAGES["TransactionLogKey"](transactional_id="txn1")
    transactions = CoordinatorLogWriter(base_offset=40)
    transactions.append([CoordinatorRecord(0, txn_key, MESSAGES["TransactionLogValue"](
        producer_id=1000, producer_epoch=2, transaction_status=4), 0)], timestamp=T0)
    (tmp_path / "__transaction_state-0").mkdir()
    transactions.write_segment(tmp_path / "__transaction_state-0")

    code, out, err = dump(capsys, str(tmp_path))
    assert (code, err) == (0, [])
    assert "Log starting offset: 0 (records decoded as: offsets)" in out
    assert out[3:5] == [
        f'| offset: 0 time: {T0_TEXT} OffsetCommitKey {{"group":"grp","topic":"tp","partition":7}} => '
        f'OffsetCommitValue v3 {{"offset":100,"leaderEpoch":5,"metadata":"","commitTimestamp":{T0}}}',
        f'| offset: 1 time: {T0_TEXT} OffsetCommitKey {{"group":"grp","topic":"tp","partition":7}} => <tombstone>',
    ]
    assert out[5].startswith("baseOffset: 2 lastOffset: 2 count: 1 epoch: 0 producerId: 77 producerEpoch: 1 "
                             "baseSequence: -1 isTransactional: true isControl: true ")
    assert out[6] == f"| offset: 2 time: {T0_TEXT} control COMMIT coordinatorEpoch: 5"
    assert "Log starting offset: 40 (records decoded as: transactions)" in out
    assert any(line.startswith(f'| offset: 40 time: {T0_TEXT} TransactionLogKey {{"transactionalId":"txn1"}} => '
                               'TransactionLogValue v0 {"producerId":1000,') for line in out)


def test_other_topics_and_partition_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partition = tmp_path / "orders-0"
    partition.mkdir()
    batch = RecordBatchBuilder(base_offset=100)
    batch.append(T0, b"k1", b"hello world", [("trace", b"\x00\xff")])
    batch.append(T0, None, b"\x00\x01\xff")
    (partition / "00000000000000000100.log").write_bytes(batch.build())
    (partition / "00000000000000000100.index").write_bytes(
        logdir.encode_offset_index([logdir.OffsetIndexEntry(100, 0)], 100) + bytes(16))
    (partition / "00000000000000000100.timeindex").write_bytes(
        logdir.encode_time_index([logdir.TimeIndexEntry(T0, 101)], 100))
    (partition / "00000000000000000102.snapshot").write_bytes(
        logdir.encode_producer_snapshot([logdir.ProducerSnapshotEntry(77, 1, 9, 101, 1, T0, -1, -1)]))
    (partition / "leader-epoch-checkpoint").write_text("0\n1\n0 100\n")  # Kafka's dump ignores it; kwire's reads it

    code, out, err = dump(capsys, str(tmp_path))
    assert (code, err) == (0, [])
    assert out == [
        f"Dumping {partition / '00000000000000000100.index'}",
        "Offset index",
        "offset: 100 position: 0",
        f"End of {partition / '00000000000000000100.index'}: 1 entry",
        "",
        f"Dumping {partition / '00000000000000000100.log'}",
        "Log starting offset: 100 (records decoded as: raw)",
        out[7],
        f'| offset: 100 time: {T0_TEXT} key: "k1" value: "hello world" headers: trace=0x00ff (2 bytes)',
        f"| offset: 101 time: {T0_TEXT} key: null value: 0x0001ff (3 bytes)",
        f"End of {partition / '00000000000000000100.log'}: 1 batch, 2 records",
        "",
        f"Dumping {partition / '00000000000000000100.timeindex'}",
        "Time index",
        f"timestamp: {T0} offset: 101",
        f"End of {partition / '00000000000000000100.timeindex'}: 1 entry",
        "",
        f"Dumping {partition / '00000000000000000102.snapshot'}",
        "Producer snapshot",
        f"producerId: 77 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: -1 firstSequence: 8 "
        f"lastSequence: 9 lastOffset: 101 offsetDelta: 1 timestamp: {T0}",
        f"End of {partition / '00000000000000000102.snapshot'}: 1 entry",
        "",
        f"Dumping {partition / 'leader-epoch-checkpoint'}",
        "Leader epoch checkpoint",
        "epoch: 0 startOffset: 100",
        f"End of {partition / 'leader-epoch-checkpoint'}: 1 entry",
    ]
    assert out[7].startswith("baseOffset: 100 lastOffset: 101 count: 2 ")


def test_corrupt_index_is_reported_and_the_rest_dumps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partition = tmp_path / "orders-0"
    partition.mkdir()
    index = partition / "00000000000000000000.index"
    index.write_bytes(bytes(12))
    timeindex = logdir.encode_time_index([logdir.TimeIndexEntry(T0, 0)], 0)
    (partition / "00000000000000000000.timeindex").write_bytes(timeindex)
    code, out, err = dump(capsys, str(tmp_path))
    assert code == 2
    assert err == [f"kwire dump: {index}: file position 8: offset index of 12 bytes is not a whole number of "
                   "8-byte entries"]
    assert f"timestamp: {T0} offset: 0" in out


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = dump(capsys, str(tmp_path / "missing"))
    assert (code, out, err) == (2, [], [f"kwire dump: {tmp_path / 'missing'}: no such file or directory"])
    with pytest.raises(SystemExit) as info:
        main(["dump"])
    assert info.value.code == 2


def test_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot, bootstrap = copy_metadata_dir(tmp_path)

    class Unreadable:
        position = 0
        truncated_at = None

        def __init__(self, path, **_options) -> None:
            self.path = path

        def __iter__(self):
            if Path(self.path) == snapshot:
                raise PermissionError(13, "Permission denied", str(snapshot))
            from kwire.records import FileBatchReader
            return iter(FileBatchReader(self.path))

    monkeypatch.setattr("kwire.logs.dump.FileBatchReader", Unreadable)
    code, out, err = dump(capsys, str(tmp_path))
    assert code == 2
    assert err[0].startswith(f"kwire dump: {snapshot}: file position 0: cannot read: [Errno 13] Permission denied")
    assert f"End of {bootstrap}: 3 batches, 3 records" in out


def test_an_explicit_unknown_file_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    code, out, err = dump(capsys, str(other))
    assert (code, out) == (2, [])  # nothing was dumped: that is not a success
    assert err[0] == (f"kwire dump: {other}: skipped: neither its name nor its content says it is a log segment, "
                      "snapshot, index, producer-state or quorum-state file")
    assert err[1].startswith(f"kwire dump: no Kafka files in {other} (looked for")


def test_legacy_and_v2_batches_from_a_real_broker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The message sets of a real broker's FetchResponse (kafka-go fixtures), written out as a segment."""
    from kwire.generated.fetch_response import FetchResponse

    fixture = KAFKA_GO / "v1-v1c-v2-v2c-v2b-v2b-v2b-v2bc-v1b-v1bc.hex"
    frame = bytes.fromhex(fixture.read_text().strip())
    [topic] = FetchResponse.decode(frame[8:], 7).responses  # after the size and ResponseHeader v0
    partition = tmp_path / "greek-0"
    partition.mkdir()
    (partition / "00000000000000000000.log").write_bytes(bytes(topic.partitions[0].records))
    code, out, err = dump(capsys, "--json", str(partition))
    assert (code, err) == (0, [])
    events = [json.loads(line) for line in out]
    batches = [e for e in events if e["event"] == "batch"]
    assert {b["magic"] for b in batches} == {1, 2} and {b["compression"] for b in batches} == {"none", "gzip"}
    records = [e for e in events if e["event"] == "record"]
    assert [r["offset"] for r in records] == list(range(20))
    assert all(r["key"] in {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"} and
               json.loads(r["value"])["count"] == 0 for r in records)


def test_mutated_files_never_crash_the_dump(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import random

    rng = random.Random(3)
    snapshot, bootstrap = copy_metadata_dir(tmp_path)
    original = snapshot.read_bytes()
    codes = set()
    for _ in range(40):
        data = bytearray(original)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        snapshot.write_bytes(bytes(data[:rng.randrange(len(data) // 2, len(data) + 1)]))
        code, out, _ = dump(capsys, str(tmp_path))
        codes.add(code)
        assert f"End of {bootstrap}: 3 batches, 3 records" in out
    assert codes <= {0, 2} and 2 in codes


def test_quiet_prints_only_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot, _ = copy_metadata_dir(tmp_path)
    snapshot.write_bytes(snapshot.read_bytes()[:-75])
    code = main(["-q", "dump", str(tmp_path)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == f"kwire dump: {snapshot}: the snapshot does not end with a SnapshotFooter\n"


# --- one rule for what a file is (kwire.logs.files), shared with kwire decode ----------------------------

def test_a_segment_under_another_name_is_read_as_what_its_content_is(tmp_path, capsys) -> None:
    loose = tmp_path / "copied-segment.bin"  # a name Kafka never gives: the content decides
    segment = KAFKA_361 / "__cluster_metadata-0" / "00000000000000000000.log"
    loose.write_bytes(segment.read_bytes()[:10_005])  # 135 whole batches
    code, out, err = dump(capsys, str(loose), "--decoder", "metadata")
    assert code == 0 and err == []
    assert f"End of {loose}: 135 batches, 140 records" in out
    assert any("RegisterBrokerRecord" in line for line in out)


def test_dump_and_decode_pick_the_same_files_of_a_folder(tmp_path, capsys) -> None:
    from kwire.arrow.logfiles import discover

    for name in ("a.batch", "b.batch"):
        batch = next((CAPTURES / "librdkafka-mock" / "batches").glob("*.batch"))
        (tmp_path / name).write_bytes(batch.read_bytes())
    (tmp_path / "notes.txt").write_text("not Kafka's")
    code, out, _ = dump(capsys, str(tmp_path))
    assert code == 0
    dumped = [line.split(": ")[0][len("End of "):] for line in out if line.startswith("End of ")]
    assert dumped == [str(tmp_path / "a.batch"), str(tmp_path / "b.batch")]
    assert [f.path for f in discover(tmp_path)] == dumped
