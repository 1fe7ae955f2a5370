"""Reading what Kafka reads: Kafka's own definition files as they are, and its older formats.

Kafka's generator (Jackson) silently keeps the last of two equal keys, reads a list-valued key
given one value as a list of it, and accepts ``headerVersions``; before Kafka 3.0 it also took a
missing ``flexibleVersions`` as "none", text after the definition, and uuid defaults in forms it
no longer takes. kwire
reads the first group always (equal repeats with a warning), the second as old-format input
(check-compat, validate) with a warning naming the rule and the release that added it, and
refuses it for ``kwire generate``, as Kafka's generator does today.
"""
from __future__ import annotations

import base64
import importlib
import sys
import uuid

import pytest

from kwire.cli.main import main
from kwire.generator.definitions.errors import DefinitionError
from kwire.generator.definitions.loader import load_definitions, load_file, load_text
from kwire.generator.definitions.versions import NONE, Versions
from tests.paths import KAFKA_421_DEFINITIONS, KAFKA_DEFINITIONS

CURRENT = KAFKA_DEFINITIONS / "current"
HEAD = '"name": "TestData", "type": "data", "validVersions": "0-3", "flexibleVersions": "0+"'


def wrap(fields: str, head: str = HEAD) -> str:
    return "{" + head + ', "fields": [' + fields + "]}"


def problems(text: str, **kwargs) -> list:
    with pytest.raises(DefinitionError) as info:
        load_text(text, "in.json", **kwargs)
    return info.value.problems


# --- keys repeated inside one object --------------------------------------------------------------

def test_equal_repeat_is_accepted_with_a_warning_naming_both_lines():
    text = wrap('{"name": "Id", "type": "int32",\n "versions": "0+",\n "versions": "0+"}')
    message = load_text(text, "in.json")
    assert message.fields[0].versions == Versions.parse("0+")
    [warning] = message.warnings
    assert (warning.file, warning.path) == ("in.json", "line 3 column 2")
    assert "duplicate key 'versions' with equal values (line 2 and line 3)" in warning.message


def test_different_values_are_an_error_naming_both_lines():
    [problem] = problems(wrap('{"name": "Id", "type": "int32",\n "versions": "0+",\n "versions": "1+"}'))
    assert problem.path == "line 3 column 2"
    assert "duplicate key 'versions' with different values (line 2 and line 3)" in problem.message


@pytest.mark.parametrize(("first", "second"), [("1", "true"), ("1", "1.0"), ("1.0", "1.00"), ('"1"', "1"),
                                               ('{"a": 1}', '{"a": 2}'), ("[1, 2]", "[2, 1]")])
def test_values_equal_to_python_but_not_to_kafka_are_different(first, second):
    [problem] = problems('{"x": ' + first + ',\n "x": ' + second + "}")
    assert "different values" in problem.message


def test_equal_repeat_in_a_nested_object_is_located_in_that_object():
    # the same key in an earlier sibling object must not be taken for the repeat
    text = wrap('{"name": "A", "type": "int32", "versions": "0+"},\n'
                '{"name": "B", "type": "int32",\n "versions": "0+", "about": "x",\n "about": "x"}')
    [warning] = load_text(text).warnings
    assert warning.path == "line 4 column 2" and "(line 3 and line 4)" in warning.message


def test_kafkas_describe_topic_partitions_files_load_with_warnings():
    request = load_file(CURRENT / "clients" / "DescribeTopicPartitionsRequest.json")
    response = load_file(CURRENT / "clients" / "DescribeTopicPartitionsResponse.json")
    assert [w.path for w in request.warnings] == ["line 28 column 38", "line 36 column 61"]
    assert [w.path for w in response.warnings] == ["line 62 column 61"]
    assert all("duplicate key 'versions' with equal values" in w.message for w in request.warnings + response.warnings)


def test_validate_prints_the_warning_and_exits_0(capsys):
    assert main(["validate", str(CURRENT / "clients")]) == 0
    out, err = capsys.readouterr()
    assert out == "2 definitions valid (3 warnings)\n"
    lines = err.splitlines()
    assert len(lines) == 3 and all(line.startswith("warning: ") for line in lines)
    assert "DescribeTopicPartitionsResponse.json: line 62 column 61: duplicate key 'versions' with equal " \
           "values (line 61 and line 62)" in lines[2]


# --- keys and shapes Kafka accepts ----------------------------------------------------------------

REQUEST_HEAD = ('"name": "TestRequest", "type": "request", "apiKey": 1000, '
                '"validVersions": "0-3", "flexibleVersions": "2+"')


def test_header_versions_are_read_into_the_model():
    head = REQUEST_HEAD + ', "headerVersions": {"2+": "2", "0-1": 1}'
    message = load_text(wrap('{"name": "Id", "type": "int32", "versions": "0+"}', head))
    assert message.header_versions == ((Versions(0, 1), 1), (Versions.parse("2+"), 2))


@pytest.mark.parametrize(("table", "fragment"), [
    ('{"1+": "1"}', "starts at version 1, not 0"),
    ('{"0-1": "1", "3+": "2"}', "ranges 0-1 and 3+ are not contiguous"),
    ('{"0-1": "1", "2-3": "2"}', "must be open-ended"),
    ('{"0-1": "1", "2+": "2", "3+": "2"}', "ranges 2+ and 3+ are not contiguous"),
    ('{}', "must not be empty"),
    ('{"x": "1"}', "'x' is not a version range"),
])
def test_bad_header_versions(table, fragment):
    [problem] = problems(wrap('{"name": "Id", "type": "int32", "versions": "0+"}',
                              REQUEST_HEAD + ', "headerVersions": ' + table))
    assert problem.path == "$.headerVersions" and fragment in problem.message


def test_header_versions_only_for_requests_and_responses():
    [problem] = problems(wrap('{"name": "Id", "type": "int32", "versions": "0+"}',
                              HEAD + ', "headerVersions": {"0+": "1"}'))
    assert "only valid for requests and responses" in problem.message


def test_api_versions_response_keeps_header_v0():
    head = ('"name": "ApiVersionsResponse", "type": "response", "apiKey": 18, "validVersions": "0-3", '
            '"flexibleVersions": "3+", "headerVersions": {"0-2": "0", "3+": "1"}')
    [problem] = problems(wrap('{"name": "ErrorCode", "type": "int16", "versions": "0+"}', head))
    assert "KIP-511" in problem.message


def test_single_values_read_as_lists_as_jackson_does():
    text = ('{' + REQUEST_HEAD + ', "listeners": "broker", '
            '"fields": {"name": "Id", "type": "int32", "versions": "0+"}}')
    message = load_text(text)
    assert message.listeners == ("broker",) and [f.name for f in message.fields] == ["Id"]


# --- old-format input -------------------------------------------------------------------------------

NO_FLEXIBLE = '"name": "TestData", "type": "data", "validVersions": "0-3"'


def test_missing_flexible_versions_is_required_for_generation():
    [problem] = problems(wrap('{"name": "Id", "type": "int32", "versions": "0+"}', NO_FLEXIBLE))
    assert "flexibleVersions is required" in problem.message


def test_missing_flexible_versions_reads_as_none_in_old_format():
    message = load_text(wrap('{"name": "Id", "type": "string", "versions": "0+"}', NO_FLEXIBLE), "old.json",
                        old_format=True)
    assert message.flexible_versions == NONE
    [warning] = message.warnings
    assert warning.path == "$" and 'read as "none"' in warning.message and "KAFKA-12877" in warning.message


def test_a_message_without_versions_needs_no_flexible_versions():
    head = '"name": "RetiredRequest", "type": "request", "apiKey": 1000, "validVersions": "none"'
    assert load_text(wrap("", head).replace("[]", "[]")).flexible_versions == NONE


def test_text_after_the_definition_is_ignored_in_old_format():
    text = wrap('{"name": "Id", "type": "int32", "versions": "0+"}') + "\n}\n"
    assert "unexpected trailing tokens" in problems(text)[0].message
    [warning] = load_text(text, old_format=True).warnings
    assert warning.path == "line 2 column 1" and "KAFKA-12800" in warning.message


def test_uuid_text_default_is_read_as_base64_in_old_format():
    spec = '{"name": "Id", "type": "uuid", "versions": "0+", "default": "212d5494-4a8b-4fdf-94b3-88b470beb367"}'
    assert "does not decode to 16 bytes" in problems(wrap(spec))[0].message
    message = load_text(wrap(spec), old_format=True)
    expected = uuid.UUID("212d5494-4a8b-4fdf-94b3-88b470beb367")
    assert message.fields[0].default_value() == expected
    assert base64.urlsafe_b64decode(message.fields[0].default + "==") == expected.bytes
    assert "KAFKA-10618" in message.warnings[0].message


def test_long_base64_uuid_default_keeps_its_first_16_bytes_in_old_format():
    # Kafka's own SimpleExampleMessage at 67bc4f08fe (2.8) has hex text, which its generator decoded
    # as base64url (24 bytes) and read two longs from
    text = "212d54944a8b4fdf94b388b470beb367"
    spec = '{"name": "Id", "type": "uuid", "versions": "0+", "default": "' + text + '"}'
    assert "does not decode to 16 bytes" in problems(wrap(spec))[0].message
    message = load_text(wrap(spec), old_format=True)
    assert message.fields[0].default_value() == uuid.UUID(bytes=base64.urlsafe_b64decode(text)[:16])
    assert "decodes to 24 bytes" in message.warnings[0].message


def test_gaps_between_tags_stay_an_error_in_old_format():
    # Kafka's generator has refused them since tagged fields exist, so no old file has them
    spec = '{"name": "Hint", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 1}'
    assert "tags are not contiguous" in problems(wrap(spec), old_format=True)[0].message


def test_validate_reads_old_files_and_says_why(tmp_path, capsys):
    path = tmp_path / "Old.json"
    path.write_text(wrap('{"name": "Id", "type": "int32", "versions": "0+"}', NO_FLEXIBLE))
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == "1 definition valid (1 warning)\n"
    assert err.startswith(f"warning: {path}: $: flexibleVersions is missing: read as \"none\"")
    assert "kwire generate requires it" in err
    assert main(["generate", "--defs", str(path), "--out", str(tmp_path / "out")]) == 1  # validate's "finding" code
    assert "flexibleVersions is required" in capsys.readouterr().err


def test_every_historical_revision_reads_in_old_format():
    for path in sorted((KAFKA_DEFINITIONS / "history").glob("*.json")):
        load_file(path, old_format=True)
    with pytest.raises(DefinitionError):
        load_file(KAFKA_DEFINITIONS / "history" / "FeatureLevelRecord@217334b0f412.json")


# --- Kafka's definition directories generate unmodified ---------------------------------------------

def test_one_file_of_every_kafka_directory_generates_and_imports(tmp_path, monkeypatch):
    """Kafka's definition directories generate unmodified, on a sample: the two files that repeat a
    key and one file of every other directory (the full set, 258 files, takes ~10 s and is run by hand)."""
    directories = sorted(p for p in CURRENT.iterdir() if p.is_dir())
    assert len(directories) == 9
    monkeypatch.syspath_prepend(str(tmp_path))
    for directory in directories:
        package = "kafka_" + directory.name.replace("-", "_")
        assert main(["-q", "generate", "--defs", str(directory), "--out", str(tmp_path / package)]) == 0
        module = importlib.import_module(package)
        names = {m.name for m in load_definitions([directory])}
        assert set(module.MESSAGES) == names
    from kafka_clients import DescribeTopicPartitionsRequest  # type: ignore[import-not-found]
    request = DescribeTopicPartitionsRequest(response_partition_limit=7)
    assert DescribeTopicPartitionsRequest.decode(request.encode(0), 0) == request
    for name in list(sys.modules):
        if name.startswith("kafka_"):
            del sys.modules[name]


def test_every_directory_of_kafka_421_generates_whole_and_imports(tmp_path, monkeypatch):
    """Done for the newest release in full: all 284 definitions of Kafka 4.2.1, unmodified."""
    directories = sorted(p for p in KAFKA_421_DEFINITIONS.iterdir() if p.is_dir())
    assert len(directories) == 9
    assert sum(1 for _ in KAFKA_421_DEFINITIONS.rglob("*.json")) == 284
    monkeypatch.syspath_prepend(str(tmp_path))
    for directory in directories:
        package = "kafka421_" + directory.name.replace("-", "_")
        assert main(["-q", "generate", "--defs", str(directory), "--out", str(tmp_path / package)]) == 0
        module = importlib.import_module(package)
        for name in module.MESSAGES:  # every module imports
            cls = module.MESSAGES[name]
            low, high = cls.VALID_VERSIONS
            if low <= high:  # retired APIs (ControlledShutdown, LeaderAndIsr, ...) have "none"
                assert cls.decode(cls().encode(high), high) == cls()
    for name in list(sys.modules):
        if name.startswith("kafka421_"):
            del sys.modules[name]
