"""The generated codecs of the versions Kafka 4.0 removed and kwire restored from Kafka 3.8.0
(tests/generator/test_history_merge.py lists them): they read and write the bytes of kafka-python
3's hand-written codecs of those versions (``kafka.protocol.old``) where it has them, request and
response, and take the header versions Kafka 3.8.0 gave them."""
from __future__ import annotations

import pytest

from kwire.generated import APIS, MESSAGES, RequestHeader
from kwire.generator.definitions.loader import load_file
from kwire.network.headers import read_request_header
from kwire.records.reader import RecordsView
from tests.generator.test_history_merge import KAFKA_PYTHON_OLD, RESTORED, _sample, kafka_python_schema
from tests.paths import KAFKA_DEFINITIONS, MESSAGE_DEFS


def _plain(value, struct, version):
    """The values of a generated object's fields present at ``version``, in wire order."""
    if isinstance(value, list):
        return [leaf for element in value for leaf in _plain(element, struct, version)]
    if struct is not None:
        return [leaf for f in struct.untagged_fields_at(version)
                for leaf in _plain(getattr(value, f.attr_name), f.struct, version)]
    if isinstance(value, RecordsView):
        return [bytes(value.raw)]
    return [value]


@pytest.mark.parametrize("name", sorted(KAFKA_PYTHON_OLD))
def test_restored_versions_read_and_write_kafka_pythons_bytes(name):
    ours = MESSAGES[name]
    assert ours.VALID_VERSIONS[0] == 0
    model = load_file(MESSAGE_DEFS / f"{name}.json")
    for version in KAFKA_PYTHON_OLD[name][1]:
        schema = kafka_python_schema(name, version)
        value, leaves = _sample(schema)
        data = schema.encode(value)
        decoded = ours.decode(data, version)
        assert _plain(decoded, model.struct, version) == leaves, (name, version)
        assert decoded.encode(version) == data, (name, version)


@pytest.mark.parametrize("name", sorted(n for n in RESTORED if n != "RequestHeader"))
def test_restored_versions_take_the_header_kafka_380_gave_them(name):
    # Kafka 3.8.0's ApiMessageTypeGenerator: request header 2 at flexible versions, else 1 (0 only
    # for ControlledShutdown v0); response header 1 at flexible versions, else 0
    older = load_file(KAFKA_DEFINITIONS / "history" / f"{name}@771b9576b00e.json", old_format=True)
    ours = MESSAGES[name]
    api = APIS[ours.API_KEY]
    kafka_lowest = load_file(KAFKA_DEFINITIONS / "kafka-4.2.1" / "clients" / f"{name}.json").valid_versions.lowest
    for version in range(0, kafka_lowest):
        flexible = version in older.flexible_versions
        if older.type == "request":
            assert api.request_header_version(version) == (2 if flexible else 1)
        else:
            assert api.response_header_version(version) == (1 if flexible else 0)


def test_request_header_v0_reads_as_kafka_380_wrote_it():
    # ControlledShutdown v0's header: api key, version, correlation id; no client id, no tags
    data = bytes.fromhex("0007" "0000" "0000002a")
    header, end = RequestHeader.read(data, 0, 0)
    assert (header.request_api_key, header.request_api_version, header.correlation_id, end) == (7, 0, 42, 8)
    assert RequestHeader(request_api_key=7, request_api_version=0, correlation_id=42).encode(0) == data
    assert read_request_header(data, 0, 0)[0] == header
