"""``kwire generate --compile``: README's form ``kwire generate --compile [--out DIR]`` takes no value,
and then builds the hot path, as ``--compile hot`` does (checked on the parsed arguments: compiling
needs mypyc and is tested in tests/generator)."""
from __future__ import annotations

import pytest

from kwire.cli.main import build_parser


def test_a_bare_compile_is_compile_hot_and_a_value_is_taken_when_given(tmp_path):
    """Kills ``generate.x_register__mutmut_72`` (``--compile`` made to need a value)."""
    base = ["generate", "--defs", str(tmp_path), "--out", str(tmp_path / "out")]
    parser = build_parser()
    assert parser.parse_args([*base, "--compile"]).compile == "hot"
    assert parser.parse_args([*base, "--compile", "all"]).compile == "all"
    assert parser.parse_args(["generate", "--compile", "--defs", str(tmp_path)]).compile == "hot"
    assert parser.parse_args(base).compile is None
    with pytest.raises(SystemExit):
        parser.parse_args([*base, "--compile", "some"])
