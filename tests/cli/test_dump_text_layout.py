"""``kwire dump``'s text between and after files: one blank line between two files and none after
the last, so ``kwire dump FILE | tail -n 1`` is the file's summary (Kafka's DumpLogSegments prints
no blank line after a file either)."""
from __future__ import annotations

from kwire.cli.main import main
from tests.paths import KRAFT_361

LOG = KRAFT_361 / "__cluster_metadata-0"


def test_one_file_ends_with_its_summary(capsys):
    assert main(["dump", str(LOG / "quorum-state")]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"\nEnd of {LOG / 'quorum-state'}: 1 entry\n") and "\n\n" not in out


def test_files_are_separated_by_one_blank_line(capsys):
    assert main(["dump", str(LOG)]) == 0
    lines = capsys.readouterr().out.split("\n")
    assert lines[-1] == "" and lines[-2].startswith("End of ") and lines[-2].endswith("quorum-state: 1 entry")
    blanks = [i for i, line in enumerate(lines[:-1]) if line == ""]
    starts = [i for i, line in enumerate(lines) if line.startswith("Dumping ")]
    assert len(starts) >= 3 and starts[0] == 0
    assert blanks == [i - 1 for i in starts[1:]]  # just before each file but the first
    assert all(lines[i - 1].startswith("End of ") for i in blanks)
