"""The generated codecs of the versions Kafka 4.0 removed and kwire restored from Kafka 3.8.0
(Produce v0-2, Fetch v0-3): they read and write the bytes of kafka-python 3's hand-written codecs
of those versions (``kafka.protocol.old``), request and response."""
from __future__ import annotations

import importlib

import pytest

from kwire.generated import FetchRequest, FetchResponse, ProduceRequest, ProduceResponse
from kwire.generator.loader import load_file
from kwire.records.reader import RecordsView
from tests.generator.test_history_merge import _sample
from tests.paths import MESSAGE_DEFS


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


@pytest.mark.parametrize("ours, kp_module, kp_class, versions", [
    (ProduceRequest, "produce", "ProduceRequest", range(3)),
    (ProduceResponse, "produce", "ProduceResponse", range(3)),
    (FetchRequest, "fetch", "FetchRequest", range(4)),
    (FetchResponse, "fetch", "FetchResponse", range(4)),
], ids=lambda v: v.__name__ if isinstance(v, type) else None)
def test_restored_versions_read_and_write_kafka_pythons_bytes(ours, kp_module, kp_class, versions):
    module = importlib.import_module(f"kafka.protocol.old.{kp_module}")
    assert ours.VALID_VERSIONS[0] == 0
    model = load_file(MESSAGE_DEFS / f"{ours.__name__}.json")
    for version in versions:
        schema = getattr(module, f"{kp_class}_v{version}").SCHEMA
        value, leaves = _sample(schema)
        data = schema.encode(value)
        decoded = ours.decode(data, version)
        assert _plain(decoded, model.struct, version) == leaves, (kp_class, version)
        assert decoded.encode(version) == data, (kp_class, version)
