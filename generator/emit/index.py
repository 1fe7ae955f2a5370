"""The index module (``_index.py``) of a generated package: a :class:`kwire.wire.index.ProtocolIndex`.

Everything is decided here, at build time: the current name of each api key and its header
versions (:mod:`.apis`), which family each record type belongs to. The definitions do not say
which of Kafka's generated families a record is in (Kafka decides by source directory: the
storage module generates the ``__remote_log_metadata`` records, each coordinator its own
``CoordinatorRecordType``), so the few records outside the default family are named below; every
other ``metadata`` definition is a KRaft metadata record and every other coordinator record is the
group coordinator's (``__consumer_offsets``).
"""
from __future__ import annotations

from collections.abc import Iterable

from kwire.wire.index import (
    KRAFT_CONTROL_MESSAGES,
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    TRANSACTIONS_TOPIC,
)

from ..definitions.errors import DefinitionError, Problem
from ..definitions.model import Message, snake_case
from .apis import api_entries

#: Kafka's storage module's records (apiKeys 0-3 of their own, framed as metadata records are).
REMOTE_LOG_METADATA_RECORDS = frozenset({
    "RemoteLogSegmentMetadataRecord", "RemoteLogSegmentMetadataUpdateRecord",
    "RemotePartitionDeleteMetadataRecord", "RemoteLogSegmentMetadataSnapshotRecord",
})
#: Coordinator records (key/value stems) of the coordinators other than the group coordinator.
COORDINATOR_FAMILIES = {TRANSACTIONS_TOPIC: ("TransactionLog",), SHARE_STATE_TOPIC: ("ShareSnapshot", "ShareUpdate")}


def _problem(message: Message, text: str) -> DefinitionError:
    return DefinitionError([Problem(message.source, "$.apiKey", text)])


def _by_api_key(messages: list[Message]) -> dict[int, str]:
    table: dict[int, str] = {}
    for m in sorted(messages, key=lambda m: m.name):
        assert m.api_key is not None
        if m.api_key in table:
            raise _problem(m, f"{m.name} and {table[m.api_key]} are both {m.type} records with apiKey {m.api_key}")
        table[m.api_key] = m.name
    return table


def coordinator_records(messages: list[Message]) -> dict[str, dict[int, tuple[str, str]]]:
    """Coordinator topic -> record type -> (key class, value class)."""
    family = {stem: topic for topic, stems in COORDINATOR_FAMILIES.items() for stem in stems}
    values = {m.name.removesuffix("Value"): m for m in messages if m.type == "coordinator-value"}
    topics: dict[str, dict[int, tuple[str, str]]] = {OFFSETS_TOPIC: {}, **{t: {} for t in COORDINATOR_FAMILIES}}
    for key in sorted((m for m in messages if m.type == "coordinator-key"), key=lambda m: m.name):
        stem = key.name.removesuffix("Key")
        value = values.get(stem)
        if value is None or value.api_key != key.api_key or key.api_key is None:
            raise _problem(key, f"{key.name} needs a coordinator-value {stem}Value with the same apiKey")
        types = topics[family.get(stem, OFFSETS_TOPIC)]
        if key.api_key in types:
            raise _problem(key, f"{key.name} and {types[key.api_key][0]} are both record type {key.api_key}")
        types[key.api_key] = (key.name, value.name)
    return {topic: dict(sorted(types.items())) for topic, types in topics.items() if types}


def index_context(messages: Iterable[Message]) -> dict[str, object]:
    """What the ``package_index.py.j2`` template fills in."""
    messages = sorted(messages, key=lambda m: m.name)
    metadata = [m for m in messages if m.type == "metadata" and m.api_key is not None]
    names = {m.name for m in messages}
    return {
        "modules": [(snake_case(m.name), m.name) for m in messages],
        "apis": api_entries(messages),
        "metadata_records": _by_api_key([m for m in metadata if m.name not in REMOTE_LOG_METADATA_RECORDS]),
        "remote_log_metadata_records": _by_api_key([m for m in metadata if m.name in REMOTE_LOG_METADATA_RECORDS]),
        "coordinator_records": coordinator_records(messages),
        "control_records": {k: name for k, name in KRAFT_CONTROL_MESSAGES.items() if name in names},
    }
