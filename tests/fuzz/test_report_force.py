"""``kwire fuzz --report DIR --force`` replaces every report file, report.md included.

Kills ``kwire.fuzz.report.x_write_report__mutmut_38`` (``force`` not passed on to report.md: the
second run would refuse the report.md the first one wrote). Checked by the file's own content and
modification, not by comparing with kwire's output."""
from __future__ import annotations

from kwire.cli.main import main


def test_force_replaces_the_markdown_report_too(tmp_path) -> None:
    args = ["fuzz", "-q", "--messages", "ApiVersionsRequest", "--cases", "5", "--report", str(tmp_path)]
    assert main(args) == 0
    report = tmp_path / "report.md"
    report.write_text("stale\n")  # an older report left in the directory
    assert main([*args, "--force"]) == 0
    assert report.read_text() != "stale\n" and "ApiVersionsRequest" in report.read_text()
