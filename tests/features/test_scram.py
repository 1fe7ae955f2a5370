"""``storage format --add-scram``: the UserScramCredentialRecord Kafka writes, and ``--ignore-formatted``.

Keys: tests/data/kafka-checkpoints/kafka-scram.tsv, from Kafka 3.9's ScramFormatter compiled with
javac (its README). Messages: Kafka's ScramParserTest and ScramParser/Formatter (trunk 1eb7644).
"""
from __future__ import annotations

import base64
import re

import pytest

from kwire.cli.main import main as kwire_main
from kwire.features.errors import FeatureError
from kwire.features.scram import (
    ScramArgument,
    kafka_random_salt,
    parse_scram_argument,
    scram_credential_record,
    split_component,
)
from kwire.logs.metadata_log import read_snapshot
from tests.paths import KAFKA_CHECKPOINTS


def _kafka_cases() -> list[list[str]]:
    return [line.split("\t") for line in (KAFKA_CHECKPOINTS / "kafka-scram.tsv").read_text().splitlines()]


@pytest.mark.parametrize("case", _kafka_cases(), ids=lambda c: f"{c[0]}-{c[1]}-{c[4]}")
def test_keys_are_those_of_kafkas_scram_formatter(case):
    mechanism, name, password, salt, iterations, stored_key, server_key = case
    if password.startswith("saltedpassword:"):
        argument = parse_scram_argument(f"{mechanism}=[name={name},salt={salt},saltedpassword={password[15:]}]")
    else:  # built directly: one password holds a comma, which --add-scram cannot pass (nor Kafka's)
        argument = ScramArgument(mechanism, name, base64.b64decode(salt), int(iterations),
                                 base64.b64decode(password).decode())
    record = scram_credential_record(argument)
    assert (record.name, record.salt, record.iterations) == (name, base64.b64decode(salt), int(iterations))
    assert record.mechanism == {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}[mechanism]
    assert base64.b64encode(record.stored_key).decode() == stored_key
    assert base64.b64encode(record.server_key).decode() == server_key


@pytest.mark.parametrize("argument, message", [  # ScramParserTest's messages
    ("SCRAM-SHA-512", "Failed to find equals sign in SCRAM argument 'SCRAM-SHA-512'"),
    ("SCRAM-SHA-UNSUPPORTED=[name=scram-admin,password=scram-user-secret]",
     "The add-scram mechanism SCRAM-SHA-UNSUPPORTED is not supported."),
    ("SCRAM-SHA-256=name=scram-admin,password=scram-user-secret", "Expected configuration string to start with ["),
    ("SCRAM-SHA-256=[name=scram-admin,password=scram-user-secret", "Expected configuration string to end with ]"),
    ("SCRAM-SHA-256=[password=mypass]", "You must supply 'name' to add-scram"),
    ("SCRAM-SHA-256=[name=bar]", "You must supply one of 'password' or 'saltedpassword' to add-scram"),
    ("SCRAM-SHA-256=[name=bob,password=mypass,unknown=something,unknown2=somethingelse]",
     "Unknown SCRAM configurations: unknown, unknown2"),
    ('SCRAM-SHA-256=[name=alice,saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="]',
     "You must supply 'salt' with 'saltedpassword' to add-scram"),
    ("SCRAM-SHA-256=[name=a,password=b,iterations=x]", "Failed to parse iterations count: x"),
    ("SCRAM-SHA-256=[name=a,password=b,salt=***]", "Failed to decode given salt: ***"),
    ("SCRAM-SHA-256=[name]", "No equals sign found in SCRAM component: name"),
])
def test_parser_messages_are_kafkas(argument, message):
    with pytest.raises(FeatureError, match=f"^{re.escape(message)}$"):
        parse_scram_argument(argument)


def test_parsed_like_kafka():
    # ScramParserTest: quotes come off, iterations and salt parse, a value may be empty
    assert split_component('name="foo"') == ("name", "foo") and split_component("name=") == ("name", "")
    parsed = parse_scram_argument(' SCRAM-SHA-256=[name=bob,password=my pass,iterations=8192,'
                                  'salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E="] ')
    assert (parsed.name, parsed.password, parsed.iterations) == ("bob", "my pass", 8192)
    assert parsed.salt == base64.b64decode("MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=")


@pytest.mark.parametrize("iterations, message", [
    (4095, "The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256"),
    (4096, None), (16384, None),
    (16385, "The 'iterations' value must be <= 16384 for add-scram using SCRAM_SHA_256"),
])
def test_iterations_at_and_past_the_bounds(iterations, message):
    argument = parse_scram_argument(f"SCRAM-SHA-256=[name=a,password=b,salt=c2FsdA==,iterations={iterations}]")
    if message is None:
        assert scram_credential_record(argument).iterations == iterations
    else:
        with pytest.raises(FeatureError, match=re.escape(message)):
            scram_credential_record(argument)


def test_default_salt_and_iterations_as_kafka_makes_them():
    record = scram_credential_record(parse_scram_argument("SCRAM-SHA-512=[name=a,password=b]"))
    assert record.iterations == 4096
    assert re.fullmatch(rb"[0-9a-z]{1,26}", record.salt)  # BigInteger(130 bits).toString(36), as UTF-8
    assert len({kafka_random_salt() for _ in range(50)}) == 50
    with pytest.raises(FeatureError, match="Empty key"):  # javax.crypto refuses an empty HMAC key
        scram_credential_record(parse_scram_argument("SCRAM-SHA-256=[name=a,password=]"))


def test_storage_format_writes_the_records_after_the_feature_levels(tmp_path, capsys):
    out = tmp_path / "meta"
    case = _kafka_cases()[0]
    argument = f"{case[0]}=[name={case[1]},password=alice-secret,salt=\"{case[3]}\"]"
    assert kwire_main(["storage", "format", "--release-version", "3.9", "--out", str(out), "--add-scram", argument,
                       "--timestamp", "0"]) == 0
    records = read_snapshot(out / "bootstrap.checkpoint").records
    assert [r.name for r in records] == ["FeatureLevelRecord", "UserScramCredentialRecord"]
    scram = records[1].message
    assert base64.b64encode(scram.stored_key).decode() == case[5] and records[1].version == 0
    assert kwire_main(["storage", "format", "--release-version", "3.5-IV1", "--out", str(tmp_path / "old"),
                       "--add-scram", argument]) == 1
    assert "SCRAM is only supported in metadata.version 3.5-IV2 or later." in capsys.readouterr().err
    assert not (tmp_path / "old").exists()
    assert kwire_main(["storage", "format", "--release-version", "3.5-IV2", "--out", str(tmp_path / "ok"),
                       "--add-scram", argument]) == 0


def test_ignore_formatted(tmp_path, capsys):
    node = ["storage", "format", "--cluster-id", "MkU3OEVBNTcwNTJENDM2Qk", "--node-id", "1", "--out", str(tmp_path)]
    assert kwire_main(node) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert kwire_main(node) == 1
    assert capsys.readouterr().err == (f"kwire storage format: Log directory {tmp_path} is already formatted. Use "
                                       f"--ignore-formatted to ignore this directory and format the others.\n")
    assert kwire_main([*node, "--ignore-formatted"]) == 0
    assert capsys.readouterr().out == "All of the log directories are already formatted.\n"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
