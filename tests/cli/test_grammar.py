"""One command-line grammar (issue 22, section 7): examples at the end of every --help, the same
option names and exit codes everywhere, --json on stdout, nothing silently ignored."""
from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from kwire.cli.main import COMMANDS, SUMMARIES, _nested_by_name, build_parser
from kwire.cli.main import main as kwire_main
from tests.paths import KRAFT_361, KRAFT_390, REPO


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    found = [("", parser)]
    for name, command in _nested_by_name(parser):
        found.append((name, command))
        found += [(f"{name} {inner}", nested) for inner, nested in _nested_by_name(command)]
    return found


@pytest.mark.parametrize(("command", "parser"), every_parser(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_help_ends_with_one_to_three_examples_that_parse(command, parser):
    help_text = parser.format_help().rstrip("\n")
    head, marker, tail = help_text.rpartition("\nexamples:\n")
    assert marker, f"kwire {command} --help has no examples"
    examples = tail.splitlines()
    assert 1 <= len(examples) <= 3
    for example in examples:
        assert example.startswith(f"  kwire {command}".rstrip()), example
        argv = shlex.split(example.split(" | ")[0])[1:]
        args = build_parser().parse_args(argv)  # a usage error would exit 2
        assert getattr(args, "func", None) is not None, example


def test_metadata_version_is_spelled_alike_everywhere_and_kafkas_spelling_is_accepted(tmp_path, capsys):
    for spelling in ("--metadata-version", "--metadata"):
        assert kwire_main(["metadata", "snapshot", str(KRAFT_390), spelling, "3.8", "--dry-run", "-q"]) == 0
        assert kwire_main(["features", "downgrade", str(KRAFT_390), spelling, "3.8", "--dry-run", "-q"]) == 0
        assert kwire_main(["storage", "format", spelling, "3.8", "--out", str(tmp_path), "--dry-run", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unknown_metadata_version_is_exit_2_in_every_command(tmp_path, capsys):
    assert kwire_main(["metadata", "snapshot", str(KRAFT_390), "--metadata-version", "9.9", "--dry-run"]) == 2
    assert kwire_main(["storage", "format", "--metadata-version", "9.9", "--out", str(tmp_path)]) == 2
    assert kwire_main(["features", "upgrade", str(KRAFT_390), "--metadata-version", "9.9"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all("unknown metadata.version '9.9'" in line for line in err)
    assert list(tmp_path.iterdir()) == []


def test_a_bad_definition_is_the_same_exit_code_in_validate_and_generate(tmp_path, capsys):
    bad = tmp_path / "Bad.json"
    bad.write_text('{"apiKey": 0, "type": "request", "name": "BadRequest", "validVersions": "0-1", '
                   '"flexibleVersions": "none", "fields": [{"name": "Id", "type": "int99", "versions": "0+"}]}')
    assert kwire_main(["validate", str(bad)]) == 1
    validated = capsys.readouterr().err
    assert kwire_main(["generate", "--defs", str(bad), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == validated
    assert not (tmp_path / "out").exists()


def test_downgrade_matrix_json_means_json_on_stdout(capsys):
    assert kwire_main(["metadata", "downgrade-matrix", str(KRAFT_361), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["images"][0]["metadataVersion"]["name"] == "3.6-IV2"


def test_downgrade_matrix_json_with_a_file_name_says_where_files_go(tmp_path, capsys):
    assert kwire_main(["metadata", "downgrade-matrix", "--json", str(tmp_path / "m.json"), str(KRAFT_361)]) == 2
    assert "--json prints the report on stdout, --out FILE writes it" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # after the paths, argparse's own usage error
        kwire_main(["metadata", "downgrade-matrix", str(KRAFT_361), "--json", str(tmp_path / "m.json")])
    assert usage.value.code == 2
    assert list(tmp_path.iterdir()) == []


def test_fuzz_bytes_refuses_the_options_it_would_ignore(capsys):
    assert kwire_main(["fuzz", "--bytes", "--messages", "FetchRequest", "--cases", "1"]) == 2
    assert capsys.readouterr().err == ("kwire fuzz --bytes: --messages only applies without --bytes; choose "
                                       "decoders with --target (e.g. --target 'message:Fetch*')\n")


def test_python_m_kwire_version_works_from_the_clones_parent(tmp_path):
    (tmp_path / "kwire").symlink_to(REPO)  # a clone named kwire, run from the folder holding it
    done = subprocess.run([sys.executable, "-m", "kwire", "--version"], cwd=tmp_path, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("kwire ")


def test_generate_outside_a_clone_points_at_the_builtin_definitions(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert kwire_main(["generate", "--out", "codecs"]) == 2
    assert capsys.readouterr().err == ("kwire generate: message_defs: no such file or directory; --defs "
                                       "kwire:builtin generates the definitions kwire ships\n")
    assert not Path("codecs").exists()


def test_dump_verbose_names_the_kafka_files_it_skips_and_why(capsys):
    assert kwire_main(["dump", "-v", str(KRAFT_361)]) == 0
    err = capsys.readouterr().err
    metadata = KRAFT_361 / "__cluster_metadata-0"
    assert (f"kwire dump: {KRAFT_361 / 'meta.properties'}: skipped: Kafka's properties file of the node's identity "
            f"(node.id, cluster.id, directory.id); it holds no record batches") in err
    for dumped in ("quorum-state", "leader-epoch-checkpoint", "partition.metadata"):  # dumped, not skipped
        assert f"{metadata / dumped}: skipped" not in err
    assert kwire_main(["dump", str(KRAFT_361)]) == 0
    assert "skipped" not in capsys.readouterr().err  # only with -v


def test_the_summaries_table_says_what_each_command_registers():
    listed = {action.dest: action.help for action in build_parser()._subparsers._group_actions[0]._choices_actions}
    assert listed == SUMMARIES
    assert list(SUMMARIES) == list(COMMANDS)


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_a_command_built_alone_has_the_help_it_has_in_the_full_parser(command):
    full, alone = build_parser(), build_parser([command] if command else [])
    assert alone.format_help() == full.format_help()  # the listing of commands, from SUMMARIES when not built
    if command:
        [(_, full_command)] = [each for each in _nested_by_name(full) if each[0] == command]
        [(_, built)] = [each for each in _nested_by_name(alone) if each[0] == command]
        assert built.format_help() == full_command.format_help()
        assert [(name, nested.format_help()) for name, nested in _nested_by_name(built)] == \
               [(name, nested.format_help()) for name, nested in _nested_by_name(full_command)]


@pytest.mark.parametrize(("argv", "imported"), [
    (["--help"], []),
    (["-q", "dump", "--help"], ["kwire.cli.commands.dump"]),
    (["metadata", "quorum", "--help"], ["kwire.cli.commands.metadata", "kwire.cli.commands.metadata_quorum",
                                     "kwire.cli.commands.metadata_shell"]),
])
def test_help_imports_only_the_command_it_shows(argv, imported):
    # in a fresh interpreter: which command modules (and generator modules) a run imported
    probe = ("import sys\nfrom kwire.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('kwire.cli.commands.', 'kwire.generator'))), "
             "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True)
    assert done.stderr.strip() == repr(imported)
    assert done.stdout.startswith(f"usage: kwire {' '.join(a for a in argv if a not in ('-q', '--help'))}".rstrip())


@pytest.mark.parametrize("argv", [["-q", "frame", "--nope"], ["frame", "-q", "--nope"], ["nope"]])
def test_usage_errors_still_exit_2_when_only_one_command_is_built(argv, capsys):
    with pytest.raises(SystemExit) as usage:
        kwire_main(argv)
    assert usage.value.code == 2
    assert capsys.readouterr().err.startswith("usage: kwire")
