"""What ``kwire dump`` passes over in a data directory and how it reports a broken index, checked
against Kafka's own layout rather than kwire's output: the names are those Kafka's storage code
gives its files (``LogFileUtils``/``LogManager``: ``meta.properties``, ``leader-epoch-checkpoint``,
``partition.metadata``, the ``.deleted``/``.cleaned``/``.swap`` suffixes), and the index entry
sizes are Kafka's ``OffsetIndex`` (8 bytes: relative offset, position) and ``TimeIndex`` (12 bytes:
timestamp, relative offset). Each test names the mutation-testing survivors it kills."""
from __future__ import annotations

from kwire.logs.dump import dump_file
from kwire.logs.files import kafka_files, skipped_files


def test_every_skipped_file_says_why(tmp_path) -> None:
    """Kills ``kwire.logs.files.x_skipped_files__mutmut_15`` (the hidden-name test), ``_21`` (the
    standard-file test inverted) and ``_33`` (the reason's words)."""
    part = tmp_path / "orders-0"
    part.mkdir()
    for name in ("00000000000000000000.log", "leader-epoch-checkpoint", "partition.metadata",
                 "00000000000000000000.log.deleted", "notes.txt", ".00000000000000000000.log"):
        (part / name).write_bytes(b"")
    (tmp_path / "meta.properties").write_text("node.id=1\n")
    why = {path.relative_to(tmp_path).as_posix(): reason for path, reason in skipped_files(tmp_path)}
    assert why == {
        "meta.properties": "Kafka's properties file of the node's identity (node.id, cluster.id, directory.id); "
                           "it holds no record batches",
        "orders-0/.00000000000000000000.log": "a hidden file",
        "orders-0/notes.txt": "not a file Kafka writes in a data directory (judged by its name)",
    }  # dump reads the state files and the renamed segment (tests/logs/test_checkpoints.py): not skipped


def test_a_hidden_segment_name_is_not_read_as_a_segment(tmp_path) -> None:
    """Kills ``kwire.logs.files.x_kafka_files__mutmut_17`` (hidden names judged by name anyway)."""
    (tmp_path / "00000000000000000000.log").write_bytes(b"")
    (tmp_path / ".00000000000000000000.log").write_bytes(b"")
    (tmp_path / ".saved.batch").write_bytes(b"")  # a ".batch" name would be read, were it not hidden
    (tmp_path / "saved.batch").write_bytes(b"")
    assert [(path.name, kind) for path, kind in kafka_files(tmp_path)] == [("00000000000000000000.log", "segment"),
                                                                       ("saved.batch", "batches")]


def test_an_index_with_a_partial_entry_is_one_error_event_at_the_partial_entry(tmp_path) -> None:
    """Kills ``kwire.logs.dump.x__guarded__mutmut_7`` (the event's name) and ``_16`` (its position)."""
    for name, size, entry in (("00000000000000000000.index", 12, 8), ("00000000000000000000.timeindex", 13, 12)):
        path = tmp_path / name
        path.write_bytes(bytes(size))
        events = list(dump_file(path))
        errors = [e for e in events if e["event"] == "error"]
        assert len(errors) == 1 and events[-1]["errors"] == 1, events
        assert errors[0]["position"] == size - size % entry  # where the partial entry starts
