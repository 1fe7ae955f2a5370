"""``kwire storage info`` and ``kwire storage random-uuid``.

Expected outputs are Kafka 3.9's StorageToolTest's (core/src/test/scala/unit/kafka/tools/
StorageToolTest.scala, branch 3.9 at c821449: testInfoCommandOnEmptyDirectory,
...OnMissingDirectory, ...OnDirectoryAsFile, testInfoWithMismatchedKRaftConfig), the
meta.properties of the real 3.6.1 and 3.9.0 nodes, and Kafka's messages in MetaProperties.Builder.
"""
from __future__ import annotations

import json
import re
import shutil

import pytest

from kwire.cli.main import main as kwire_main
from kwire.logs.meta_properties import (
    MetaPropertiesError,
    parse_java_properties,
    read_meta_properties,
    storage_info,
)
from tests.paths import KAFKA_CHECKPOINTS, KRAFT_361, KRAFT_390


def _info(capsys, *directories: str) -> tuple[int, str]:
    code = kwire_main(["storage", "info", *directories])
    return code, capsys.readouterr().out


def test_kafkas_own_info_tests(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _info(capsys, str(empty)) == (1, (f"Found log directory:\n  {empty}\n\nFound problem:\n  {empty} is not "
                                             f"formatted.\n\n"))
    assert _info(capsys, str(tmp_path / "nope")) == (1, f"Found problem:\n  {tmp_path / 'nope'} does not exist\n\n")
    file = tmp_path / "file"
    file.write_text("")
    assert _info(capsys, str(file)) == (1, f"Found problem:\n  {file} is not a directory\n\n")
    (empty / "meta.properties").write_text("version=0\nbroker.id=1\ncluster.id=26c36907-4158-4a35-919d-6534229f5241")
    assert _info(capsys, str(empty)) == (1, (
        f"Found log directory:\n  {empty}\n\n"
        "Found metadata: {broker.id=1, cluster.id=26c36907-4158-4a35-919d-6534229f5241, version=0}\n\n"
        "Found problem:\n  The kafka configuration file appears to be for a cluster in KRaft mode, but the "
        "directories are formatted for legacy mode.\n\n"))


def test_real_nodes(capsys):
    assert _info(capsys, str(KRAFT_390)) == (0, (
        f"Found log directory:\n  {KRAFT_390}\n\n"
        "Found metadata: {cluster.id=KfqUsfnvRwuGE70mGT8M9A, directory.id=vuFdPhP_V3HjMM-sCpnodw, node.id=1, "
        "version=1}\n\n"))
    code, out = _info(capsys, str(KRAFT_361), f"{KRAFT_390}//")  # Paths.get drops the extra slashes
    assert code == 1
    assert out.endswith("Found problem:\n  Mismatched cluster IDs between storage directories.\n\n")
    assert f"Found log directories:\n  {KRAFT_390}\n  {KRAFT_361}\n" in out  # sorted, as Kafka sorts them


def test_node_ids_that_differ(tmp_path, capsys):
    for name, node in (("a", 1), ("b", 2)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "meta.properties").write_text(f"version=1\nnode.id={node}\ncluster.id=X\n")
    assert _info(capsys, str(tmp_path / "a"), str(tmp_path / "b"))[1].endswith(
        "Found problem:\n  Mismatched node IDs between storage directories.\n\n")


@pytest.mark.parametrize("text, message", [
    ("version=2\nnode.id=1\ncluster.id=X", "Unknown meta.properties version number 2"),
    ("version=one\nnode.id=1\ncluster.id=X", "Invalid meta.properties version string 'one'"),
    ("version=1\ncluster.id=X", "Failed to find node.id"),
    ("version=1\nnode.id=2147483648\ncluster.id=X", "Unable to read node.id as a base-10 number."),
    ("version=1\nnode.id=1", "cluster.id was not found."),
    ("version=1\nnode.id=1\ncluster.id=X\ndirectory.id=abc", "Unable to read directory.id as a Uuid: "),
])
def test_unreadable_meta_properties_in_kafkas_words(tmp_path, capsys, text, message):
    (tmp_path / "meta.properties").write_text(text)
    with pytest.raises(MetaPropertiesError, match=re.escape(message)):
        read_meta_properties(tmp_path / "meta.properties")
    code, out = _info(capsys, str(tmp_path))
    assert code == 1 and f"  Error loading {tmp_path}/meta.properties: {message}" in out


def test_java_properties_syntax():
    # java.util.Properties.load: comments, separators, escapes, continuations, ISO-8859-1, last value wins
    data = (b"# comment\n! also\n  key1 = a b \nkey2:c\nkey3 d\nkey\\ 4=e\\tf\\u0041\nkey5=g\\\n   h\n"
            b"key6=\xe9\nkey1=last\n\n")
    assert parse_java_properties(data) == {"key1": "last", "key2": "c", "key3": "d", "key 4": "e\tfA",
                                           "key5": "gh", "key6": "\u00e9"}
    assert parse_java_properties(b"a=1\\\\\nb=2") == {"a": "1\\", "b": "2"}  # an even count does not continue


def test_verbose_and_json_summarize_state_files(tmp_path, capsys):
    node = tmp_path / "node"
    shutil.copytree(KRAFT_390, node)
    partition = node / "orders-3"
    shutil.copytree(KAFKA_CHECKPOINTS / "written" / "orders-3", partition)
    shutil.copy(KAFKA_CHECKPOINTS / "written" / "replication-offset-checkpoint", node)
    (partition / "00000000000000000000.log.deleted").write_bytes(b"")
    assert kwire_main(["storage", "info", "--json", str(node)]) == 0
    body = json.loads(capsys.readouterr().out)
    held = body["contents"][str(node)]
    assert held["partitions"] == ["__cluster_metadata-0", "orders-3"]
    assert held["renamedSegmentFiles"] == ["orders-3/00000000000000000000.log.deleted"]
    assert {s["file"]: s.get("entries") for s in held["stateFiles"]} == {
        "__cluster_metadata-0/leader-epoch-checkpoint": 13, "__cluster_metadata-0/partition.metadata": 1,
        "orders-3/leader-epoch-checkpoint": 4, "orders-3/partition.metadata": 1, "replication-offset-checkpoint": 3}
    (partition / "leader-epoch-checkpoint").write_text("0\n2\n1 0\n")
    assert kwire_main(["storage", "info", "-v", str(node)]) == 1  # a damaged state file is a problem
    assert ("orders-3/leader-epoch-checkpoint: DAMAGED: Expected [2] entries in checkpoint file"
            in capsys.readouterr().out)


def test_random_uuid(capsys):
    from kwire.wire.jsonform import uuid_from_text

    seen = set()
    for _ in range(20):
        assert kwire_main(["storage", "random-uuid"]) == 0
        text = capsys.readouterr().out.strip()
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{21}", text)  # never starting with '-'
        assert uuid_from_text(text).int not in (0, 1)
        seen.add(text)
    assert len(seen) == 20


def test_storage_info_object():
    info = storage_info([str(KRAFT_361)])
    assert info.metadata is not None and info.metadata.node_id == 1 and info.problems == []
