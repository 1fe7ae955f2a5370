"""The checks left to the live leader, as ``metadata quorum --add-voter/--remove-voter/--update-voter``
lists them: AddRaftVoter's default-listener check (KafkaRaftClient.handleAddVoterRequest, after
the cluster id and leadership, before the handler's) belongs to AddRaftVoter alone."""
from __future__ import annotations

from kwire.cli.main import main
from kwire.metadata import quorum
from kwire.metadata.quorum import ADD_DEFAULT_LISTENER_CHECK
from kwire.wire.uuids import uuid_from_text as parse_kafka_uuid
from tests.metadata.test_quorum import DIRS, NEW, formatted, with_log


def mentions_add(checks: list[str]) -> list[str]:
    return [check for check in checks if "AddRaftVoter" in check or "Add voter" in check
            or check == ADD_DEFAULT_LISTENER_CHECK]


def test_remove_and_update_list_no_check_of_add_voter(tmp_path):
    with_log(tmp_path)
    history = quorum.read_quorum_history(tmp_path)
    verdicts = [quorum.judge_remove_voter(history, 3, parse_kafka_uuid(DIRS[3])),  # allowed
                quorum.judge_remove_voter(history, 2, parse_kafka_uuid(DIRS[2])),  # refused: absent
                quorum.judge_update_voter(history, 1, parse_kafka_uuid(DIRS[1]), [("CONTROLLER", "h", 1)], (0, 1))]
    for verdict in verdicts:
        assert verdict.live_checks and mentions_add(verdict.live_checks) == [], verdict


def test_add_voter_lists_its_default_listener_check_second(tmp_path):
    with_log(tmp_path)
    history = quorum.read_quorum_history(tmp_path)
    for verdict in (quorum.judge_add_voter(history, 5, parse_kafka_uuid(NEW), [("CONTROLLER", "h", 1)]),  # allowed
                    quorum.judge_add_voter(history, 1, parse_kafka_uuid(NEW), [("CONTROLLER", "h", 1)])):  # duplicate
        assert verdict.live_checks[1] == ADD_DEFAULT_LISTENER_CHECK
        assert "NOT_LEADER_OR_FOLLOWER" in verdict.live_checks[0] and "listener" not in verdict.live_checks[0]


def test_the_remove_voter_command_prints_no_add_voter_check(tmp_path, capsys):
    formatted(tmp_path)
    assert main(["metadata", "quorum", str(tmp_path), "--remove-voter", f"3:{DIRS[3]}"]) == 0
    out = capsys.readouterr().out
    assert "RemoveRaftVoter" in out and "AddRaftVoter" not in out and "default listener" not in out
