"""``kwire metadata shell``: Kafka's metadata shell over the image.

Expected texts come from Kafka 3.9's own tests (branch 3.9 at c821449; these files are unchanged in
trunk 1eb7644), quoted with the test they come from, and from the records of the real 3.6.1 and
3.9.0 nodes read record by record (not through the image).
"""
from __future__ import annotations

import io
import json
import sys
from uuid import UUID

import pytest

from kwire.cli.main import main as kwire_main
from kwire.logs.metadata_log import read_metadata_log
from kwire.metadata.image import (
    BrokerRegistration,
    ClientQuota,
    ControllerRegistration,
    Endpoint,
    PartitionRegistration,
    VersionRange,
)
from kwire.metadata.shell import (
    ShellState,
    ShellUsageError,
    column_lines,
    glob_to_regex,
    run_command,
    strip_dot_components,
    target_lines,
)
from kwire.metadata.shell_nodes import (
    Directory,
    Leaf,
    broker_text,
    controller_text,
    java_double,
    partition_text,
    provenance_text,
    quota_entity_text,
    root_node,
)
from kwire.wire.jsonform import uuid_from_text, uuid_to_text
from tests.paths import KRAFT_361, KRAFT_390

U = uuid_from_text


# ------------------------------------------------- Kafka's own expectations (its unit tests)


def test_broker_text_is_kafkas():
    # BrokerRegistrationTest.testToString (registration 2) and ClusterImageBrokersNodeTest.testNode1Child
    b = BrokerRegistration(2, 0, U("eY7oaG1RREie5Kk9uy1l6g"), {"INTERNAL": Endpoint("localhost", 9092, 0)},
                           {"foo": VersionRange(2, 3), "bar": VersionRange(1, 4)}, "myrack", False, True, False, ())
    assert broker_text(b) == (
        "BrokerRegistration(id=2, epoch=0, incarnationId=eY7oaG1RREie5Kk9uy1l6g, listeners=[Endpoint("
        "listenerName='INTERNAL', securityProtocol=PLAINTEXT, host='localhost', port=9092)], "
        "supportedFeatures={bar: 1-4, foo: 2-3}, rack=Optional[myrack], fenced=false, inControlledShutdown=true, "
        "isMigratingZkBroker=false, directories=[])")
    b = BrokerRegistration(1, 1001, U("MJkaH0j0RwuC3W2GHQHtWA"), {}, {"metadata.version": VersionRange(1, 4)},
                           None, False, False, False, (U("JsnDDNVyTL289kYk6sPzig"), U("anCdBWcFTlu8gE1wP6bh3g")))
    assert broker_text(b) == (
        "BrokerRegistration(id=1, epoch=1001, incarnationId=MJkaH0j0RwuC3W2GHQHtWA, listeners=[], "
        "supportedFeatures={metadata.version: 1-4}, rack=Optional.empty, fenced=false, inControlledShutdown=false, "
        "isMigratingZkBroker=false, directories=[JsnDDNVyTL289kYk6sPzig, anCdBWcFTlu8gE1wP6bh3g])")


def test_controller_and_partition_texts_are_kafkas():
    # ClusterImageControllersNodeTest.testNode1Child
    c = ControllerRegistration(2, U("adGo6sTPS0uJshjvdTUmqQ"), False, {}, {"metadata.version": VersionRange(1, 4)})
    assert controller_text(c) == ("ControllerRegistration(id=2, incarnationId=adGo6sTPS0uJshjvdTUmqQ, "
                                  "zkMigrationReady=false, listeners=[], supportedFeatures={metadata.version: 1-4})")
    # TopicImageNodeTest.testChildPartitionId
    p = PartitionRegistration((2, 3, 4), (UUID(int=0),) * 3, (2, 3), (), (), (), (), 2, 0, 1, 345)
    assert partition_text(p) == (
        "PartitionRegistration(replicas=[2, 3, 4], "
        "directories=[AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA, AAAAAAAAAAAAAAAAAAAAAA], "
        "isr=[2, 3], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=2, "
        "leaderRecoveryState=RECOVERED, leaderEpoch=1, partitionEpoch=345)")


@pytest.mark.parametrize("entity, text", [  # ClientQuotasImageNodeTest's round trips
    ((("client-id", "foo"),), "clientId(foo)"),
    ((("client-id", ""),), "clientId()"),
    ((("user", "my-user-name"),), "user(my-user-name)"),
    ((("user", "bob"), ("client-id", "reports12345")), "clientId(reports12345)_user(bob)"),
    ((("ip", "127.0.0.1"),), "ip(127.0.0.1)"),
    ((("user", "foo\\bar"),), "user(foo\\\\bar)"),
    ((("client-id", "(this )one)"),), "clientId(\\(this \\)one\\))"),
])
def test_quota_entity_names_are_kafkas(entity, text):
    assert quota_entity_text(ClientQuota(entity)) == text


def test_acl_texts_are_kafkas_standard_acl():
    """``/image/acls/<id>`` is ``StandardAcl.fromRecord(record).toString()`` (AclsImageByIdNode):
    each code through its enum's ``fromCode`` (an unknown code is ``UNKNOWN``), printed by the
    enum's name. The codes are those of Kafka's AclOperation, AclPermissionType, ResourceType and
    PatternType (clients/src/main/java/org/apache/kafka/common, trunk 1eb7644), each at its last
    value and one past it. Kills ``shell_nodes.x__acls__mutmut_15`` (the operation always looked
    up as ``UNKNOWN``, printing ``None``)."""
    from kwire.generated import MESSAGES
    from kwire.metadata.replay import MetadataReplayer

    replayer = MetadataReplayer()
    last, past = UUID(int=1), UUID(int=2)
    replayer.replay(MESSAGES["AccessControlEntryRecord"](
        id=last, resource_type=7, resource_name="foo_", pattern_type=4, principal="User:*", host="*",
        operation=14, permission_type=3))
    replayer.replay(MESSAGES["AccessControlEntryRecord"](
        id=past, resource_type=8, resource_name="mygroup", pattern_type=5, principal="User:foo", host="10.0.0.1",
        operation=15, permission_type=4))
    state = ShellState(root_node(replayer.image, metadata_version_name=str, local_version="x"))
    assert run_command(state, ["cat", f"/image/acls/{uuid_to_text(last)}", f"/image/acls/{uuid_to_text(past)}"],
                       interactive=False).lines == [
        "StandardAcl(resourceType=USER, resourceName=foo_, patternType=PREFIXED, principal=User:*, host=*, "
        "operation=DESCRIBE_TOKENS, permissionType=ALLOW)",
        "StandardAcl(resourceType=UNKNOWN, resourceName=mygroup, patternType=UNKNOWN, principal=User:foo, "
        "host=10.0.0.1, operation=UNKNOWN, permissionType=UNKNOWN)"]


def test_glob_components_are_kafkas():
    # GlobComponentTest.testToRegularExpression
    assert glob_to_regex("blah") is None and glob_to_regex("") is None
    assert glob_to_regex("does not need a regex, actually") is None
    assert glob_to_regex("$blah*") == "^\\$blah.*$"
    assert glob_to_regex("*") == "^.*$"
    assert glob_to_regex("foo{bar,baz}") == "^foo(?:(?:bar)|(?:baz))$"
    with pytest.raises(ValueError, match="Can't nest glob groups."):
        glob_to_regex("{a,{b}}")
    with pytest.raises(ValueError, match="Unterminated glob group."):
        glob_to_regex("{a,b")
    # CommandUtilsTest.testStripDotPathComponents
    assert strip_dot_components(["foo", "..", "bar", ".", "baz"]) == ["bar", "baz"]
    assert strip_dot_components(["..", "..", "a"]) == ["a"]


def test_ls_columns_are_kafkas():
    # LsCommandHandlerTest.testPrintEntries and testPrintTargets (screen width 18); Kafka's test trims the
    # output's end, where "gamma" is padded to its column as every entry but the last column's
    assert column_lines(["alphabet", "beta", "gamma", "theta", "zeta"], 18) == [
        "alphabet  theta", "beta      zeta", "gamma     "]
    assert target_lines(["foo", "foobarbaz", "quux"], [
        ("/some/dir", ["supercalifragalistic"]),
        ("/some/other/dir", ["capability", "delegation", "elephant", "fungible", "green"])], 18) == [
        "foo        quux", "foobarbaz  ", "", "/some/dir:", "supercalifragalistic", "",
        "/some/other/dir:", "capability", "delegation", "elephant", "fungible", "green"]
    # printTargets: an empty directory prints nothing, yet the next one's intro starts with a blank line
    assert target_lines([], [("/a", []), ("/b", ["x"])], None) == ["", "/b:", "x"]
    # testCalculateColumnSchema: (80, [a, abcdef, beta]) is 3 columns; no width is one column
    assert column_lines(["a", "abcdef", "beta"], 80) == ["a  abcdef  beta"]
    assert column_lines(["abc", "def", "ghi"], None) == ["abc", "def", "ghi"]
    assert column_lines(["abc", "def"], 7) == ["abc", "def"]  # 7 // 4 == 1: one column, at the bound
    assert column_lines(["abc", "def"], 8) == ["abc", "def"]  # 2 columns need 10: one still


def test_java_number_and_time_texts():
    # Double.toString: plain in [10^-3, 10^7), scientific outside, at and just past both bounds
    assert [java_double(v) for v in (1024.0, 9999999.0, 1e7, 0.001, 0.00099, 1.5)] == [
        "1024.0", "9999999.0", "1.0E7", "0.001", "9.9E-4", "1.5"]
    # ISO_ZONED_DATE_TIME at UTC: seconds always, the fraction only when not zero, trailing zeros cut
    assert provenance_text(7110, 1, 0) == "offset 7110, epoch 1, time 1970-01-01T00:00:00Z[UTC]"
    assert provenance_text(1, 2, 1_500) == "offset 1, epoch 2, time 1970-01-01T00:00:01.5Z[UTC]"
    assert provenance_text(-1, -1, -1) == "offset -1, epoch -1, time 1969-12-31T23:59:59.999Z[UTC]"


# --------------------------------------------------------------------- the shell's commands


def _state():
    tree = Directory({"image": lambda: Directory({
        "a": lambda: Leaf("A"), "b": lambda: Directory({"c": lambda: Leaf("C")}), "B": lambda: Leaf("upper")})})
    return ShellState(tree)


def test_commands_print_kafkas_messages():
    state = _state()
    assert run_command(state, ["ls", "/image"], interactive=False).lines == ["B", "a", "b"]  # String.compareTo
    assert run_command(state, ["cat", "/image/b/c", "/image/b", "/nope"], interactive=False).lines == [
        "C", "cat: /image/b: Is a directory", "cat: /nope: No such file or directory."]
    assert run_command(state, ["find", "/image/b"], interactive=False).lines == ["/image/b", "/image/b/c"]
    assert run_command(state, ["find", "/"], interactive=False).lines[:3] == ["/", "/image", "/image/B"]
    assert run_command(state, ["tree", "/image"], interactive=False).lines == [
        "B:", "  upper", "a:", "  A", "b:", "  c:", "    C"]
    assert run_command(state, ["ls", "/x"], interactive=False).lines == ["ls: /x: no such file or directory."]
    assert run_command(state, ["find", "/x"], interactive=False).lines == ["find: /x: no such file or directory."]
    assert run_command(state, ["tree", "/x"], interactive=False).lines == ["tree: /x: No such file or directory."]
    assert run_command(state, ["cd", "/image/a"], interactive=True).lines == ["cd: /image/a: not a directory."]
    assert run_command(state, ["cd", "/x"], interactive=True).lines == ["cd: /x: no such directory."]
    assert run_command(state, ["cd", "image/b"], interactive=True).lines == []
    assert run_command(state, ["pwd"], interactive=True).lines == ["/image/b"]
    assert run_command(state, ["ls", "../{a,B}"], interactive=True).lines == ["B", "a"]
    with pytest.raises(ShellUsageError, match="interactive"):
        run_command(state, ["pwd"], interactive=False)
    with pytest.raises(ShellUsageError, match="unknown command 'rm'"):
        run_command(state, ["rm", "x"], interactive=False)


def test_history_counts_from_zero_and_bounds_its_argument():
    state = _state()
    state.history = ["ls", "cd /image", "history 2"]
    assert run_command(state, ["history", "2"], interactive=True).lines == ["    1  cd /image", "    2  history 2"]
    assert len(run_command(state, ["history", "3"], interactive=True).lines) == 3
    assert len(run_command(state, ["history", "4"], interactive=True).lines) == 3  # past the bound: all
    assert run_command(state, ["history", "0"], interactive=True).lines == []
    assert len(run_command(state, ["history"], interactive=True).lines) == 3
    with pytest.raises(ShellUsageError):
        run_command(state, ["history", "x"], interactive=True)


# ------------------------------------------------------------------------ on the real nodes


def _topics_in_records(node) -> dict[str, tuple[str, int]]:
    """Topic name -> (id, partitions), read record by record from the node's log (not the image)."""
    log = node / "__cluster_metadata-0" / "00000000000000000000.log"
    by_id: dict[str, str] = {}
    partitions: dict[str, set[int]] = {}
    for batch in read_metadata_log(log):
        for entry in batch.entries:
            message = getattr(entry.record, "message", None)
            kind = type(message).__name__
            if kind == "TopicRecord":
                by_id[uuid_to_text(message.topic_id)] = message.name
            elif kind == "RemoveTopicRecord":
                by_id.pop(uuid_to_text(message.topic_id), None)
            elif kind == "PartitionRecord":
                partitions.setdefault(uuid_to_text(message.topic_id), set()).add(message.partition_id)
    return {name: (topic_id, len(partitions.get(topic_id, ()))) for topic_id, name in by_id.items()}


@pytest.mark.parametrize("node", [KRAFT_361, KRAFT_390], ids=["3.6.1", "3.9.0"])
def test_topics_on_a_real_node_are_those_of_its_records(node, capsys):
    topics = _topics_in_records(node)
    assert topics
    assert kwire_main(["metadata", "shell", str(node), "ls", "/image/topics/byName"]) == 0
    assert capsys.readouterr().out.splitlines() == sorted(topics)
    for name, (topic_id, count) in topics.items():
        assert kwire_main(["metadata", "shell", str(node), "cat", f"/image/topics/byName/{name}/id",
                           f"/image/topics/byId/{topic_id}/name"]) == 0
        assert capsys.readouterr().out.splitlines() == [topic_id, name]
        assert kwire_main(["metadata", "shell", str(node), "--json", "ls", f"/image/topics/byId/{topic_id}"]) == 0
        children = json.loads(capsys.readouterr().out)["directories"][0]["children"]
        assert sorted(children) == sorted(["name", "id", *map(str, range(count))])


def test_a_real_nodes_image_as_kafka_prints_it(capsys):
    # 3.9.0 node: its RegisterControllerRecord (dump: controllerId 1, CONTROLLER localhost:9093, kraft.version
    # 0-1, metadata.version 1-21), FeatureLevelRecord metadata.version 21 and the last batch at offset 9800
    assert kwire_main(["metadata", "shell", str(KRAFT_390), "tree", "/image/features",
                       "/image/cluster/controllers", "/image/provenance"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["metadataVersion:", "  3.9-IV0", "zkMigrationState:", "  NONE"]
    assert lines[4] == "1:"
    assert lines[5].startswith("  ControllerRegistration(id=1, incarnationId=")
    assert lines[5].endswith(", zkMigrationReady=false, listeners=[Endpoint(listenerName='CONTROLLER', "
                             "securityProtocol=PLAINTEXT, host='localhost', port=9093)], "
                             "supportedFeatures={kraft.version: 0-1, metadata.version: 1-21})")
    assert lines[6].startswith("offset 9800, epoch ")
    assert kwire_main(["metadata", "shell", str(KRAFT_390), "find", "/image/scram"]) == 0
    assert capsys.readouterr().out.splitlines() == ["/image/scram", "/image/scram/SCRAM-SHA-256",
                                                    "/image/scram/SCRAM-SHA-512"]


def test_one_shot_exit_codes(capsys):
    assert kwire_main(["metadata", "shell", str(KRAFT_390), "cat", "/image/nope"]) == 1
    assert capsys.readouterr().out == "cat: /image/nope: No such file or directory.\n"
    assert kwire_main(["metadata", "shell", str(KRAFT_390), "--json", "cat", "/image/nope"]) == 1
    assert json.loads(capsys.readouterr().out)["errors"] == ["cat: /image/nope: No such file or directory."]
    assert kwire_main(["metadata", "shell", str(KRAFT_390), "cd", "/image"]) == 2
    assert "interactive" in capsys.readouterr().err
    assert kwire_main(["metadata", "shell", "/nonexistent/dir", "ls"]) == 2
    assert "kwire metadata shell:" in capsys.readouterr().err
    # options after PATH are kwire's, before the command: the 3.6.1 node's snapshot ends at 7111
    assert kwire_main(["metadata", "shell", str(KRAFT_361), "--until", "7111", "cat", "/image/provenance"]) == 0
    assert capsys.readouterr().out.startswith("offset 7110, epoch 1, time ")
    assert kwire_main(["metadata", "shell", str(KRAFT_361), "--until", "-1", "ls"]) == 2
    assert "kwire metadata shell:" in capsys.readouterr().err


def test_interactive_shell_reads_stdin(monkeypatch, capsys):
    lines = "cd /image/features\npwd\nls\ncat metadataVersion\ncd ..\nhistory 2\nexit\nls\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    assert kwire_main(["metadata", "shell", str(KRAFT_390)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "/image/features", "metadataVersion", "zkMigrationState", "3.9-IV0", "    4  cd ..", "    5  history 2"]
