"""Node ids and ports at and just past each bound: ``--initial-controllers`` entries as Kafka 4.2.1's
``DynamicVoter.parse`` reads them (raft/.../DynamicVoter.java: Integer.parseInt, then a node id of at
least 0 and a port of 0..65535, its messages word for word), and ``storage format --node-id``, whose
node.id Kafka reads as an INT config."""
from __future__ import annotations

import pytest

from kwire.features.dynamic_voters import DynamicVoterError, parse_dynamic_voter
from tests.features.test_formatter import DIRS, format_node


# DynamicVoter.parse: Integer.parseInt (int32) for both, then node id >= 0 and port 0..65535
@pytest.mark.parametrize("node_id, port, message", [
    ("0", "0", None),
    ("2147483647", "65535", None),
    ("2147483648", "9093", "Failed to parse node id in dynamic voter string."),
    ("-2147483648", "9093", "Invalid negative node id -2147483648 in dynamic voter string."),
    ("-2147483649", "9093", "Failed to parse node id in dynamic voter string."),
    ("1", "65536", "Invalid port 65536 in dynamic voter string."),
    ("1", "-1", "Invalid port -1 in dynamic voter string."),
    ("1", "2147483648", "Failed to parse port in dynamic voter string."),
])
def test_dynamic_voter_bounds(node_id, port, message):
    entry = f"{node_id}@h:{port}:{DIRS[1]}"
    if message is None:
        voter = parse_dynamic_voter(entry)
        assert (voter.node_id, voter.port) == (int(node_id), int(port)) and str(voter) == entry
        return
    with pytest.raises(DynamicVoterError) as caught:
        parse_dynamic_voter(entry)
    assert str(caught.value) == message


@pytest.mark.parametrize("node_id, message", [
    (-1, "You must specify a valid non-negative node ID."),
    (0, None),
    (2147483647, None),
    # node.id is an INT config (KafkaConfig): ConfigDef.parseType's refusal, in ConfigException's words
    (2147483648, "Invalid value 2147483648 for configuration node.id: Not a number of type INT"),
])
def test_storage_format_node_id_bounds(tmp_path, capsys, node_id, message):
    code = format_node(tmp_path, node_id)
    err = capsys.readouterr().err
    if message is None:
        assert code == 0, err
        assert f"node.id={node_id}\n" in (tmp_path / "meta.properties").read_text()
        return
    assert (code, err.strip()) == (1, f"kwire storage format: {message}")
    assert not any(tmp_path.iterdir())
