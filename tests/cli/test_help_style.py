"""Every command's help reads alike: a description for each command and sub-command (a sentence, or
the name of the Kafka tool it stands for), option help
that starts in lower case (unless it starts with a name: an all-capitals word such as FILE, or Spark),
and nothing shouted in capitals. Walks the whole parser, so a new command is held to it too."""
from __future__ import annotations

import argparse
import re

import pytest

from kwire.cli.main import build_parser

NAMES = {"Spark", "Kafka", "KRaft"}  # proper names an option's help may start with


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("kwire",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def _shouted(text: str) -> bool:
    words = [w for w in text.split() if any(c.isalpha() for c in w)]
    return len(words) > 1 and all(w.upper() == w for w in words)


def _starts_well(text: str) -> bool:
    first = text.split()[0]
    return not first[0].isalpha() or first[0].islower() or first.upper() == first or first in NAMES


def test_every_command_has_a_description_in_sentence_case():
    commands = list(_commands(build_parser()))
    assert len(commands) > 20
    for path, parser in commands[1:]:
        assert parser.description, f"{' '.join(path)} has no description"
        first = parser.description.split()[0]
        assert (first[0].isupper() or first.startswith("kafka-")) and not _shouted(parser.description), " ".join(path)


def test_option_help_starts_in_lower_case_and_is_never_shouted():
    checked = 0
    for path, parser in _commands(build_parser()):
        for action in parser._actions:
            text = action.help
            if not text or text == argparse.SUPPRESS:
                continue
            checked += 1
            assert _starts_well(text), (" ".join(path), action.option_strings, text)
            assert not _shouted(text), (" ".join(path), action.option_strings, text)
    assert checked > 100


def test_an_option_several_commands_share_names_its_value_alike():
    """``--metadata-version`` takes the same value in storage format, metadata snapshot and features:
    each help names it the same way (kills ``storage.x_register__mutmut_66``: its metavar renamed)."""
    metavars = {}
    for path, parser in _commands(build_parser()):
        for action in parser._actions:
            if "--metadata-version" in action.option_strings:
                metavars[" ".join(path)] = action.metavar
    assert len(metavars) >= 3 and len(set(metavars.values())) == 1, metavars


# the commands that read a metadata log up to an offset (until_argument's --until; all but metadata
# quorum also take replay_arguments' --from-log), and what else each needs to run on a snapshot file
REPLAYING = {
    ("kwire", "features", "describe"): [], ("kwire", "features", "upgrade"): ["--metadata-version", "3.6-IV2"],
    ("kwire", "features", "downgrade"): ["--metadata-version", "3.5-IV2", "--unsafe"],
    ("kwire", "features", "disable"): ["--feature", "metadata.version"],
    ("kwire", "metadata", "image"): [], ("kwire", "metadata", "shell"): ["ls", "/image"],
    ("kwire", "metadata", "snapshot"): ["--metadata-version", "3.5-IV2", "--dry-run"],
    ("kwire", "metadata", "downgrade-matrix"): [], ("kwire", "metadata", "quorum"): [],
}


def _replay_helps() -> dict[tuple[str, ...], tuple[str | None, str | None]]:
    helps = {}
    for path, parser in _commands(build_parser()):
        by_option = {o: a.help for a in parser._actions for o in a.option_strings}
        if "--until" in by_option or "--from-log" in by_option:
            helps[path] = by_option.get("--until"), by_option.get("--from-log")
    return helps


def test_the_replay_options_are_said_alike_in_every_command_that_replays_a_log():
    """--until and --from-log mean the same in every command that reads a metadata log up to an
    offset (one owner each, ``until_argument`` and ``replay_arguments``), so each says it in the same
    words; downgrade-matrix once had its own ``--until`` help ("for directories", which every
    command's --until is: the gap behind the old ``metadata.x_register__mutmut_255``, its help
    falling back to the shared wording), and metadata quorum another ("read the log below this
    offset only", which left out what it does with a snapshot file)."""
    helps = _replay_helps()
    assert set(helps) == set(REPLAYING)
    assert len({until for until, _ in helps.values()}) == 1, helps
    assert len({from_log for path, (_, from_log) in helps.items() if path[-1] != "quorum"}) == 1, helps


def _refusal(path: tuple[str, ...], printed) -> str:
    # downgrade-matrix reports an image it cannot read in its own table (a "cannot say" row)
    assert path[-1] == "downgrade-matrix" or printed.out == "", (path, printed)
    return printed.out if path[-1] == "downgrade-matrix" else printed.err


def test_until_below_a_kafka_snapshot_files_end_is_refused_and_at_its_end_is_the_whole_file(capsys):
    """What the shared help says ("exclusive, as snapshot names count; a snapshot file is its image at
    its end offset: an OFFSET below it is refused") holds in each command: Kafka 3.6.1 named the
    snapshot it wrote at offset 7111 00000000000000007111-0000000001.checkpoint (Kafka's
    Snapshots.filenameFromSnapshotId: the snapshot id's offset, which RaftClient.createSnapshot calls
    "the (exclusive) last committed offset"). ``--until 7111`` (the bound) answers as without
    --until; ``--until 7110`` (one below) asks for a state the file does not hold and is refused with
    exit 2 (nothing on stdout but downgrade-matrix's own "cannot say" row), instead of being ignored."""
    from kwire.cli.main import main
    from tests.paths import KRAFT_361

    snapshot = str(KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint")
    help_text = next(iter(_replay_helps().values()))[0]
    assert "exclusive, as snapshot names count" in help_text and "an OFFSET below it is refused" in help_text
    for path, extra in REPLAYING.items():
        answers = []
        for until in ([], ["--until", "7111"]):
            code = main([*path[1:], snapshot, *until, *extra])
            answers.append((code, capsys.readouterr()))
        assert answers[0] == answers[1], path
        assert answers[0][0] in (0, 1) and answers[0][1].out, (path, answers[0])
        code = main([*path[1:], snapshot, "--until", "7110", *extra])
        said = _refusal(path, capsys.readouterr())
        assert code == 2, path
        assert (f"{snapshot}: a snapshot file holds the image at its end offset 7111 and cannot be cut at "
                f"--until 7110") in said, (path, said)


def test_until_on_a_snapshot_under_another_name_is_refused_in_every_command(tmp_path, capsys):
    """The same Kafka-written snapshot copied to a name that does not say its end offset (its first
    batch is still Kafka's SnapshotHeader control record, ControlRecordType 3): no --until can be
    checked against its end, so every command refuses --until 7111 with exit 2 instead of replaying
    the file as a log cut at its own batch offsets (an image Kafka never held)."""
    import shutil

    from kwire.cli.main import main
    from tests.paths import KRAFT_361

    renamed = tmp_path / "snapshot-copy.bin"
    shutil.copy(KRAFT_361 / "__cluster_metadata-0" / "00000000000000007111-0000000001.checkpoint", renamed)
    for path, extra in REPLAYING.items():
        code = main([*path[1:], str(renamed), "--until", "7111", *extra])
        said = _refusal(path, capsys.readouterr())
        assert code == 2, (path, said)
        assert f"{renamed}: a snapshot file (its first batch holds a SnapshotHeader) is one image" in said, (path, said)


def test_until_on_bootstrap_checkpoint_is_at_or_past_its_end(capsys):
    """bootstrap.checkpoint is the snapshot Kafka reads at offset 0 (BOOTSTRAP_SNAPSHOT_ID, 0-0), so
    every --until, 0 included, is at or past its end: each command answers as without --until."""
    from kwire.cli.main import main
    from tests.paths import KRAFT_361

    bootstrap = str(KRAFT_361 / "bootstrap.checkpoint")
    for path, extra in {("kwire", "metadata", "image"): [], ("kwire", "metadata", "quorum"): [],
                        ("kwire", "features", "describe"): []}.items():
        answers = []
        for until in ([], ["--until", "0"]):
            code = main([*path[1:], bootstrap, *until, *extra])
            answers.append((code, capsys.readouterr()))
        assert answers[0] == answers[1], (path, answers)
        assert answers[0][0] in (0, 1), (path, answers[0])


def test_every_option_and_argument_says_what_it_is_for():
    """No option or argument is listed without a line of help (a group of sub-commands aside: each
    sub-command has its summary). Kills ``decode.x_register__mutmut_64`` (--mode's help dropped)."""
    checked = 0
    for path, parser in _commands(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert all(choice.help for choice in action._choices_actions), path
                continue
            checked += 1
            assert action.help, (" ".join(path), action.option_strings or action.dest)
    assert checked > 200


def test_sub_commands_are_named_by_one_word_in_capitals(capsys):
    """A command with sub-commands names them as option values are named, one word in capitals
    (COMMAND, ACTION, OPERATION) in its usage line and its errors: kwire's layout, not Kafka's
    (kafka-storage's argparse4j parser, ``addSubparsers().dest("command")`` in Kafka's
    StorageTool.scala, lists them in braces). Kills ``storage.x_register__mutmut_15``, ``_17`` (the
    metavar dropped: ``argument action: invalid choice``, ``{format,info,random-uuid}``)."""
    from kwire.cli.main import main

    groups = {path: action.metavar for path, parser in _commands(build_parser())
              for action in parser._actions if isinstance(action, argparse._SubParsersAction)}
    assert {("kwire",), ("kwire", "storage"), ("kwire", "features"), ("kwire", "metadata")} <= set(groups)
    for path, metavar in groups.items():
        assert metavar and metavar.isalpha() and metavar.isupper(), (path, metavar)
        with pytest.raises(SystemExit) as stop:
            main([*path[1:], "no-such-command"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f" {metavar} ..." in err.splitlines()[0] and f"argument {metavar}: invalid choice" in err, err


@pytest.mark.parametrize("option", ["--not-covered", "--release-folder", "--release-commit"])
def test_the_form_a_value_must_take_is_said_alike_in_the_help_and_the_error(option, capsys):
    """``kwire versions``' build-time options take structured values; the form the refusal says it
    expected is the metavar --help shows. Kills ``versions.x_register__mutmut_135`` (--not-covered's
    metavar turned into XXAFTER..BEFORE=WHYXX)."""
    from kwire.cli.main import main

    parser = dict(_commands(build_parser()))[("kwire", "versions")]
    metavar = next(a.metavar for a in parser._actions if option in a.option_strings)
    assert main(["versions", "--derive-from", "kafka", "--out", "tables.json", option, "nonsense"]) == 2
    assert capsys.readouterr().err.rstrip().endswith(f"{option} 'nonsense': expected {metavar}")


def test_an_option_described_alike_in_several_commands_names_its_value_alike():
    """An option several commands give with the same meaning (its help opens with the same three
    words: "the Kafka release", "Spark master URL") shows the same name for its value in each usage
    line. Kills ``metadata.x_register__mutmut_255`` (downgrade-matrix's ``--release R`` shown as
    ``--release RELEASE``); found decode's ``--master`` unnamed (MASTER) beside fuzz's and
    downgrade-matrix's URL."""
    groups: dict[tuple[str, str], dict[str, str | None]] = {}
    for path, parser in _commands(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.nargs != 0 and action.help:
                opening = " ".join(re.split(r"[ ,;(]+", action.help)[:3])
                groups.setdefault((action.option_strings[0], opening), {})[" ".join(path)] = action.metavar
    shared = {key: names for key, names in groups.items() if len(names) > 1}
    assert {("--release", "the Kafka release"), ("--master", "Spark master URL")} <= set(shared)
    for key, names in shared.items():
        assert len(set(names.values())) == 1, (key, names)
