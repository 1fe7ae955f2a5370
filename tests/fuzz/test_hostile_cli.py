"""``python -m kwire.fuzz.hostile``: the hostile run's own entry (``--show-case``), checked against
the run itself and against ``kwire fuzz --bytes``, which shares its options."""
from __future__ import annotations

import re

import pytest

from kwire.cli.main import main as kwire_main
from kwire.fuzz.hostile.cli import main as hostile_main
from kwire.fuzz.hostile.cli import show_case
from kwire.fuzz.hostile.runner import run
from kwire.fuzz.hostile.target import Target


def _target_option(help_text: str) -> str:
    return re.search(r"--target [A-Z]+", help_text).group(0)


def test_both_entries_name_the_target_option_alike(capsys):
    """Kills ``hostile.cli.x_add_arguments__mutmut_43`` (``--target``'s metavar)."""
    with pytest.raises(SystemExit) as done:
        hostile_main(["--help"])
    assert done.value.code == 0
    hostile_help = capsys.readouterr().out
    with pytest.raises(SystemExit):
        kwire_main(["fuzz", "--help"])
    assert _target_option(hostile_help) == _target_option(capsys.readouterr().out) == "--target PATTERN"


def test_show_case_prints_the_input_the_run_fed_the_decoder(capsys):
    """A finding's case number turns into its input: ``--show-case N`` prints, in hex, exactly the
    bytes the run gave the target's decoder as case N (kills ``hostile.cli.x_show_case__mutmut_15``)."""
    fed: list[bytes] = []
    recorder = Target("test:recorder", fed.append, lambda: [b"\x00\x01\x02\x03seed", b"another seed"])
    result = run([recorder], 40, 7, memory_every=0)  # no second, measured decode of a case
    cases = fed[1:]  # after the warm-up's decode of a seed
    assert result.cases == 40 and len(cases) == 40 and len(set(cases)) > 10
    for case in (0, 1, 39):
        assert show_case("test:recorder", 7, case, extra_targets=[recorder]) == 0
        assert capsys.readouterr().out == cases[case].hex() + "\n"


def test_show_case_needs_exactly_one_target(capsys):
    assert hostile_main(["--show-case", "3"]) == 2
    assert "--show-case needs exactly one --target" in capsys.readouterr().err
    assert hostile_main(["--target", "records", "--show-case", "3"]) == 2
    assert "'records' does not name exactly one target" in capsys.readouterr().err
