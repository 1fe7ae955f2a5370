"""``kwire metadata quorum``: voter-set history, DescribeQuorum v2 and voter changes judged against a log.

Expected messages are Kafka 4.2.1's format strings (``AddVoterHandler``, ``RemoveVoterHandler``,
``UpdateVoterHandler``, ``KafkaRaftClient``; ``ReplicaKey.toString``) filled in by hand; the orders
of Kafka's ``HashMap``/``HashSet`` come from the JDK itself: ``tests/data/kraft-quorum/JavaOrder.java``
(ReplicaKey and Uuid hashing as Kafka defines them, run by ``java``) wrote ``java-order.txt``.
"""
from __future__ import annotations

import json
import shutil

import pytest

from kwire.cli.main import main
from kwire.features.dynamic_voters import parse_dynamic_voters
from kwire.features.formatter import plan_format, write_format
from kwire.logs.metadata_log import MetadataLogWriter
from kwire.metadata import quorum
from kwire.wire.uuids import uuid_from_text
from tests.paths import DATA, KRAFT_361, KRAFT_390

JAVA_ORDER = {" ".join(line.split(" ", 2)[:2]): line.split(" ", 2)[2]
              for line in (DATA / "kraft-quorum" / "java-order.txt").read_text().splitlines() if line}
DIRS = {1: "4znU-ou9Taa06bmEJxsjnw", 2: "nKF6yzhxS-2F12yYx2aYRw", 3: "ANbHvzbFTM6KJXvFvFmVnA"}
NEW = "P3rPQ8Z1TtKw4Z8cnYlUtQ"
INITIAL = ",".join(f"{n}@localhost:{9092 + n}:{d}" for n, d in DIRS.items())


def formatted(tmp_path, initial: str = INITIAL, node_id: int = 1):
    write_format(plan_format(tmp_path, cluster_id="MkU3OEVBNTcwNTJENDM2Qk", node_id=node_id,
                             initial_controllers=parse_dynamic_voters(initial), timestamp=0))
    return tmp_path


def with_log(tmp_path):
    """The formatted node, then a log: leader 1 elected in epoch 1, voter 4 added, voter 2 removed."""
    from kwire.generated.leader_change_message import LeaderChangeMessage
    from kwire.generated.leader_change_message import Voter as LeaderVoter
    from kwire.generated.voters_record import Endpoint, KRaftVersionFeature, Voter, VotersRecord

    formatted(tmp_path)

    def voters(ids):
        dirs = {**DIRS, 4: NEW}
        return VotersRecord(version=0, voters=[Voter(
            voter_id=i, voter_directory_id=uuid_from_text(dirs[i]),
            endpoints=[Endpoint(name="CONTROLLER", host="localhost", port=9092 + i)],
            kraft_version_feature=KRaftVersionFeature(min_supported_version=0, max_supported_version=1)) for i in ids])

    writer = MetadataLogWriter(0)
    writer.append_control([LeaderChangeMessage(version=0, leader_id=1,
                                               voters=[LeaderVoter(voter_id=i) for i in (1, 2, 3)],
                                               granting_voters=[LeaderVoter(voter_id=1), LeaderVoter(voter_id=2)])],
                          timestamp=10, leader_epoch=1)
    writer.append_control([voters([1, 2, 3, 4])], timestamp=11, leader_epoch=1)
    writer.append_control([voters([1, 3, 4])], timestamp=12, leader_epoch=1)
    writer.write_segment(tmp_path / "__cluster_metadata-0")
    return tmp_path


def test_history_over_the_bootstrap_snapshot_and_the_log(tmp_path):
    history = quorum.read_quorum_history(with_log(tmp_path))
    assert history.kraft_version == 1 and history.end_offset == 3
    assert [(c.offset, c.epoch, c.leader_id) for c in history.voter_changes] == [(-1, 0, None), (1, 1, 1), (2, 1, 1)]
    assert history.voter_changes[0].before is None  # before the bootstrap snapshot: nothing
    assert [[v.id for v in c.after] for c in history.voter_changes] == [[1, 2, 3], [1, 2, 3, 4], [1, 3, 4]]
    assert [v.id for v in history.voter_changes[2].before] == [1, 2, 3, 4]
    assert history.leader == (1, 1)
    until = quorum.read_quorum_history(tmp_path, until=2)
    assert [v.id for v in until.voters] == [1, 2, 3, 4] and until.end_offset == 2


def test_cli_text_and_json(tmp_path, capsys):
    with_log(tmp_path)
    assert main(["metadata", "quorum", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "kraft.version 1, 3 voters (dynamic quorum), end offset 3" in text
    assert "voters at offset 1, epoch 1 (leader 1; log): 1, 2, 3 -> 1, 2, 3, 4" in text
    assert "leader: 1 in epoch 1 (newest LeaderChangeMessage)" in text
    assert main(["metadata", "quorum", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["leaderId"] == 1 and [v["id"] for v in out["voters"]] == [1, 3, 4]
    assert out["kraftVersionChanges"] == [{"offset": -1, "epoch": 0, "kraftVersion": 1,
                                           "source": "snapshot 00000000000000000000-0000000000.checkpoint"}]


def test_static_quorum_of_a_real_3_9_node_reads_quorum_state(tmp_path, capsys):
    history = quorum.read_quorum_history(KRAFT_390)
    assert history.voters is None and history.kraft_version == 0
    assert history.leader == (1, 13)  # its quorum-state: leaderId 1, leaderEpoch 13
    assert history.static_voter_ids == (1,)
    assert main(["metadata", "quorum", str(KRAFT_390), "--add-voter", f"2:{NEW}", "--endpoint",
                 "CONTROLLER://localhost:9094"]) == 1
    assert ("AddRaftVoter refused with UNSUPPORTED_VERSION (35): Cluster doesn't support adding voter because the "
            "kraft.version feature is 0") in capsys.readouterr().out
    verdict = quorum.judge_remove_voter(history, 1, uuid_from_text(NEW))
    assert (verdict.error_code, verdict.error_message) == (
        35, "Cluster doesn't support removing voter because the kraft.version feature is 0")


def test_describe_quorum_v2(tmp_path, capsys):
    with_log(tmp_path)
    assert main(["metadata", "quorum", str(tmp_path), "--describe", "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    partition = body["topics"][0]["partitions"][0]
    assert body["topics"][0]["topicName"] == "__cluster_metadata" and body["errorCode"] == 0
    assert (partition["leaderId"], partition["leaderEpoch"], partition["highWatermark"]) == (1, 1, -1)
    assert [(r["replicaId"], r["replicaDirectoryId"], r["logEndOffset"], r["lastFetchTimestamp"])
            for r in partition["currentVoters"]] == [(1, DIRS[1], 3, -1), (3, DIRS[3], -1, -1), (4, NEW, -1, -1)]
    assert partition["observers"] == []
    assert body["nodes"] == [{"nodeId": i, "listeners": [{"name": "CONTROLLER", "host": "localhost", "port": 9092 + i}]}
                             for i in (1, 3, 4)]


@pytest.mark.parametrize("label, initial", [
    ("three", INITIAL),
    ("spread", "17@a:1:AAAAAAAAAAAAAAAAAAAAAQ,1@b:2:AAAAAAAAAAAAAAAAAAAAAg,40@c:3:AAAAAAAAAAAAAAAAAAAAAw"),
    ("many", "3000@a:1:4znU-ou9Taa06bmEJxsjnw,16@b:2:nKF6yzhxS-2F12yYx2aYRw,0@c:3:ANbHvzbFTM6KJXvFvFmVnA,"
             "65536@d:4:P3rPQ8Z1TtKw4Z8cnYlUtQ,7@e:5:AAAAAAAAAAAAAAAAAAAAAQ"),
])
def test_orders_are_the_jdks(tmp_path, label, initial):
    history = quorum.read_quorum_history(formatted(tmp_path, initial, node_id=0))
    assert "[" + ", ".join(str(v.id) for v in history.voters) + "]" == JAVA_ORDER[f"{label} record"]
    assert quorum.voter_keys_text(history.voters) == JAVA_ORDER[f"{label} keys"]
    states = quorum.describe_quorum_response(history).topics[0].partitions[0].current_voters
    assert "[" + ", ".join(str(s.replica_id) for s in states) + "]" == JAVA_ORDER[f"{label} states"]


def test_add_voter(tmp_path, capsys):
    formatted(tmp_path)
    history = quorum.read_quorum_history(tmp_path)
    ok = quorum.judge_add_voter(history, 4, uuid_from_text(NEW), [("CONTROLLER", "localhost", 9097)])
    assert not ok.refused and [v.id for v in ok.new_voters] == [1, 2, 3, 4] and ok.live_checks
    duplicate = quorum.judge_add_voter(history, 2, uuid_from_text(NEW), [("CONTROLLER", "localhost", 9097)])
    assert (duplicate.error_code, duplicate.error_name) == (126, "DUPLICATE_VOTER")
    assert duplicate.error_message == (
        f"The voter id for ReplicaKey(id=2, directoryId=Optional[{NEW}]) is already part of the set of voters "
        + JAVA_ORDER["three keys"] + ".")
    invalid = quorum.judge_add_voter(history, 4, uuid_from_text("AAAAAAAAAAAAAAAAAAAAAA"), [("C", "h", 1)])
    assert (invalid.error_code, invalid.error_message) == (42, "Add voter request didn't include a valid voter")
    assert main(["metadata", "quorum", str(tmp_path), "--add-voter", f"4:{NEW}"]) == 2
    assert "--add-voter needs at least one --endpoint" in capsys.readouterr().err


def test_remove_voter(tmp_path):
    with_log(tmp_path)
    history = quorum.read_quorum_history(tmp_path)
    ok = quorum.judge_remove_voter(history, 3, uuid_from_text(DIRS[3]))
    assert not ok.refused and [v.id for v in ok.new_voters] == [1, 4]
    keys = "[" + ", ".join(f"ReplicaKey(id={i}, directoryId=Optional[{d}])"
                           for i, d in ((1, DIRS[1]), (4, NEW), (3, DIRS[3]))) + "]"  # four's order without 2
    for voter_id, directory in ((2, DIRS[2]), (3, DIRS[1])):  # absent; present with another directory id
        refused = quorum.judge_remove_voter(history, voter_id, uuid_from_text(directory))
        assert (refused.error_code, refused.error_name) == (127, "VOTER_NOT_FOUND")
        assert refused.error_message == (f"Cannot remove voter ReplicaKey(id={voter_id}, directoryId=Optional"
                                         f"[{directory}]) from the set of voters {keys}")


def test_removing_the_last_voter_is_refused(tmp_path, capsys):
    formatted(tmp_path, f"1@localhost:9093:{DIRS[1]}")
    assert main(["metadata", "quorum", str(tmp_path), "--remove-voter", f"1:{DIRS[1]}"]) == 1
    assert (f"RemoveRaftVoter refused with VOTER_NOT_FOUND (127): Cannot remove voter ReplicaKey(id=1, "
            f"directoryId=Optional[{DIRS[1]}]) from the set of voters [ReplicaKey(id=1, directoryId=Optional"
            f"[{DIRS[1]}])]") in capsys.readouterr().out


def test_update_voter(tmp_path, capsys):
    formatted(tmp_path)
    history = quorum.read_quorum_history(tmp_path)
    endpoint = [("CONTROLLER", "ctl-2", 9999)]
    ok = quorum.judge_update_voter(history, 2, uuid_from_text(DIRS[2]), endpoint, (0, 1))
    assert not ok.refused and ok.new_voters[1].endpoints == (("CONTROLLER", "ctl-2", 9999),)
    cases = [((2, DIRS[2], (0, 0), None), 42),  # the range must hold the finalized kraft.version 1
             ((2, DIRS[2], (0, 1), "OTHER"), 42),  # the endpoints must include the default listener
             ((2, DIRS[1], (0, 1), None), 127),  # another directory id: not that voter
             ((9, DIRS[2], (0, 1), None), 127)]
    for (voter_id, directory, supported, listener), code in cases:
        verdict = quorum.judge_update_voter(history, voter_id, uuid_from_text(directory), endpoint, supported, listener)
        assert (verdict.error_code, verdict.error_message) == (code, None)  # UpdateRaftVoterResponse has no message
    static = quorum.judge_update_voter(quorum.read_quorum_history(KRAFT_390), 1, uuid_from_text(NEW), endpoint, (0, 1))
    assert not static.refused and static.new_voters is None and "KAFKA-16538" in static.notes[0]
    assert main(["metadata", "quorum", str(tmp_path), "--update-voter", f"2:{DIRS[2]}", "--endpoint",
                 "CONTROLLER://ctl-2:9999", "--kraft-versions", "0-0", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["errorName"], out["errorMessage"]) == ("INVALID_REQUEST", None)


def test_one_kraft_version_given_is_a_range_of_that_one(tmp_path, capsys):
    """``--kraft-versions N`` is N-N: 1 holds the finalized kraft.version 1, 0 does not, as 0-0 does not
    (kills ``metadata_quorum.x_run_quorum__mutmut_49``: a missing maximum read as None)."""
    formatted(tmp_path)
    for given, code in [("1", 0), ("0", 1), ("1-1", 0)]:
        assert main(["metadata", "quorum", str(tmp_path), "--update-voter", f"2:{DIRS[2]}", "--endpoint",
                     "CONTROLLER://ctl-2:9999", "--kraft-versions", given, "--json"]) == code, given
        out = json.loads(capsys.readouterr().out)
        assert out["errorName"] == ("NONE" if code == 0 else "INVALID_REQUEST"), given


def test_unreadable_input_is_exit_2(tmp_path, capsys):
    assert main(["metadata", "quorum", str(tmp_path / "missing")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    broken = tmp_path / "copy"
    shutil.copytree(formatted(tmp_path / "node"), broken)
    checkpoint = broken / "__cluster_metadata-0" / "00000000000000000000-0000000000.checkpoint"
    checkpoint.write_bytes(checkpoint.read_bytes()[:-7])
    capsys.readouterr()
    assert main(["metadata", "quorum", str(broken)]) == 2
    assert f"{checkpoint}: the last batch is incomplete (byte offset " in capsys.readouterr().err


def test_damage_in_a_real_log_names_the_file_offset_and_the_until_that_reads_up_to_it(tmp_path, capsys):
    copy = tmp_path / "kafka-data"
    shutil.copytree(KRAFT_390, copy)
    segment = sorted((copy / "__cluster_metadata-0").glob("*.log"))[0]
    segment.write_bytes(segment.read_bytes()[:100_000])  # cut inside a batch, as a crash leaves a segment
    assert main(["metadata", "quorum", str(copy)]) == 2
    err = capsys.readouterr().err
    assert f"{segment}: the last batch is incomplete (byte offset " in err and "; --until " in err
    until = err.rsplit("--until ", 1)[1].split()[0]
    assert main(["metadata", "quorum", str(copy), "--until", until]) == 0


def test_random_bytes_are_not_a_record_batch(tmp_path, capsys):
    segment = tmp_path / "00000000000000000000.log"
    segment.write_bytes(bytes(range(256)) * 16)
    assert main(["metadata", "quorum", str(tmp_path)]) == 2
    assert f"{segment}: not a record batch" in capsys.readouterr().err


def test_describe_is_what_kafkas_classes_print_and_encode(tmp_path):
    # tests/data/kraft-quorum/kafka-bytes/describe-quorum-v2.txt: Kafka's JSON converter and MessageUtil
    import base64

    kafka_json, kafka_bytes = (DATA / "kraft-quorum" / "kafka-bytes" / "describe-quorum-v2.txt").read_text().split()
    response = quorum.describe_quorum_response(quorum.read_quorum_history(with_log(tmp_path)))
    assert response.to_dict(2) == json.loads(kafka_json)
    assert response.encode(2) == base64.b64decode(kafka_bytes)


def cleaned_copy(tmp_path, keep_from: int):
    """A real 3.6.1 node's metadata log as Kafka leaves it after deleting whole segments below its
    snapshot (00000000000000007111): the log starts at the first batch at or after ``keep_from``."""
    source = KRAFT_361 / "__cluster_metadata-0"
    target = tmp_path / "__cluster_metadata-0"
    shutil.copytree(source, target)
    segment = (target / "00000000000000000000.log").read_bytes()
    position = 0
    while int.from_bytes(segment[position:position + 8], "big") < keep_from:
        position += 12 + int.from_bytes(segment[position + 8:position + 12], "big")
    base = int.from_bytes(segment[position:position + 8], "big")
    (target / "00000000000000000000.log").unlink()
    (target / f"{base:020d}.log").write_bytes(segment[position:])
    return target, base


def test_the_quorum_starts_where_the_image_starts_on_a_cleaned_log(tmp_path, capsys):
    # the one snapshot-start rule (the image's, Kafka's: the latest snapshot): the quorum used to
    # refuse a log that starts above 0 with its only snapshot above that start, which the image loads
    from kwire.metadata.loader import load_image

    target, base = cleaned_copy(tmp_path, keep_from=3000)
    assert 0 < base < 7111
    image = load_image(target).image
    history = quorum.read_quorum_history(target)
    assert history.end_offset == quorum.read_quorum_history(KRAFT_361).end_offset
    assert (history.kraft_version, history.voters) == (image.quorum.kraft_version, image.quorum.voters)
    assert [(e.epoch, e.leader_id, e.offset) for e in history.leaders] == \
           [(e.epoch, e.leader_id, e.offset) for e in image.quorum.leaders]
    assert history.leaders and all(e.offset >= base for e in history.leaders)
    assert main(["metadata", "quorum", str(target)]) == 0
    capsys.readouterr()


def test_a_snapshot_repeating_the_log_before_it_is_no_change_in_the_history(tmp_path):
    # the log before the snapshot is read (history Kafka forgets on loading the snapshot); the
    # snapshot's header (KRaftVersionRecord, VotersRecord) then says the same and adds no change
    from kwire.metadata.loader import load_image
    from kwire.metadata.snapshot import build_image_snapshot, snapshot_id_of
    from kwire.metadata.writer import write_image

    directory = with_log(tmp_path) / "__cluster_metadata-0"
    without = quorum.read_quorum_history(tmp_path)
    image = load_image(directory).image
    snapshot = directory / snapshot_id_of(image).file_name()
    snapshot.write_bytes(build_image_snapshot(image, write_image(image)).encode())
    assert snapshot.name.startswith("00000000000000000003-")  # after the three control records
    history = quorum.read_quorum_history(tmp_path)
    assert history.voter_changes == without.voter_changes
    assert history.kraft_version_changes == without.kraft_version_changes
    assert [v.id for v in history.voters] == [1, 3, 4] and history.voters_offset == 2
    replayed = load_image(directory).image.quorum  # the same replay (QuorumDelta) as the image's
    assert (history.voters, history.kraft_version) == (replayed.voters, replayed.kraft_version)
    assert tuple(history.leaders) == replayed.leaders
