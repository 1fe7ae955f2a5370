"""``kwire storage format`` into a metadata log that already holds records: Kafka's controller
applies bootstrap.checkpoint only to an empty log (ActivationRecordsGenerator.recordsForEmptyLog),
and reads it from the directory holding ``__cluster_metadata-0``; the command says so, and writes
as asked."""
from __future__ import annotations

import shlex
import shutil

from kwire.cli.examples import EXAMPLES
from kwire.cli.main import main as kwire_main
from tests.paths import KRAFT_361

HOLDS = "already holds records"
INSIDE = "--out is a metadata log directory"


def format_into(out, capsys, *extra) -> tuple[int, str]:
    code = kwire_main(["storage", "format", "--metadata-version", "3.6", "--out", str(out), "--timestamp", "0",
                       *extra])
    return code, capsys.readouterr().err


def test_a_node_that_ran_is_warned_about(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(KRAFT_361, data)
    code, err = format_into(data, capsys, "--force")  # the node's own bootstrap.checkpoint is there
    assert code == 0
    assert err == (f"kwire storage format: warning: the metadata log {data / '__cluster_metadata-0'} {HOLDS} "
                   f"(00000000000000000000.log, 00000000000000007111-0000000001.checkpoint): a controller applies "
                   f"bootstrap.checkpoint only to an empty metadata log, so this one changes nothing there\n")
    assert format_into(data, capsys, "--force", "-q") == (0, "")  # -q: errors only


def test_out_inside_the_metadata_log_is_warned_about(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(KRAFT_361, data)
    code, err = format_into(data / "__cluster_metadata-0", capsys, "--dry-run")
    assert code == 0 and HOLDS in err and f"{INSIDE}: Kafka reads bootstrap.checkpoint from the directory " \
                                          f"holding __cluster_metadata-0 (metadata.log.dir), {data}\n" in err


def test_a_new_or_empty_log_is_not_warned_about(tmp_path, capsys):
    assert format_into(tmp_path / "new", capsys) == (0, "")
    log = tmp_path / "empty" / "__cluster_metadata-0"
    log.mkdir(parents=True)
    (log / "00000000000000000000.log").write_bytes(b"")  # a segment with nothing in it yet
    assert format_into(tmp_path / "empty", capsys) == (0, "")
    (log / "00000000000000000000.log").write_bytes(b"\0")  # one byte: not empty any more
    assert HOLDS in format_into(tmp_path / "empty", capsys, "--force")[1]


def test_no_example_formats_into_a_metadata_log_directory():
    for examples in EXAMPLES.values():
        for example in examples:
            words = shlex.split(example)
            if words[1:3] == ["storage", "format"] and "--out" in words:
                assert not words[words.index("--out") + 1].rstrip("/").endswith("__cluster_metadata-0"), example
