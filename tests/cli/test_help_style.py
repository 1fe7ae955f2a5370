"""Every command's help reads alike: a description for each command and sub-command (a sentence, or
the name of the Kafka tool it stands for), option help
that starts in lower case (unless it starts with a name: an all-capitals word such as FILE, or Spark),
and nothing shouted in capitals. Walks the whole parser, so a new command is held to it too."""
from __future__ import annotations

import argparse

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
