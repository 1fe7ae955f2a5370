"""KIP-853's initial controllers: ``--initial-controllers ID@HOST:PORT:DIRECTORY_ID,...`` and ``--standalone``.

Parsed as Kafka 4.2.1's ``DynamicVoter.parse`` / ``DynamicVoters.parse`` parse them, with their
messages word for word (``raft/src/main/java/org/apache/kafka/raft/DynamicVoter.java``): an entry
is trimmed, split at its first ``@``; a host in ``[...]`` may hold colons (IPv6); the port is 0 to
65535; the directory id is a Kafka uuid (base64url, 16 bytes). Empty entries are skipped; a node id
given twice is refused. ``to_voters_record`` is ``DynamicVoters.toVoterSet(listener).toVotersRecord(0)``:
every voter with one endpoint on the controller listener (its name upper-cased, as
``ListenerName.normalised`` does) and the kraft.version range 0 to 1, in the order Kafka's
``HashMap<Integer, VoterNode>`` hands them out.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from kwire.wire.uuids import uuid_from_text, uuid_to_text

from .errors import FeatureError
from .java_order import copied_hash_map_order, int_hash

#: The kraft.version range a Kafka 4.2.1 controller announces for itself (``DynamicVoter.toVoterNode``).
SUPPORTED_KRAFT_VERSIONS = (0, 1)
#: ``Uuid.ZERO_UUID`` and ``Uuid.METADATA_TOPIC_ID`` (1): ``Uuid.randomUuid`` never returns them.
_RESERVED_UUIDS = (UUID(int=0), UUID(int=1))


class DynamicVoterError(FeatureError):
    """An ``--initial-controllers`` value Kafka's ``DynamicVoter.parse`` refuses (its message)."""


def random_kafka_uuid() -> UUID:
    """``Uuid.randomUuid()``: a random version-4 uuid, never a reserved one, never text starting with ``-``."""
    while True:
        raw = bytearray(os.urandom(16))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        value = UUID(bytes=bytes(raw))
        if value not in _RESERVED_UUIDS and not uuid_to_text(value).startswith("-"):
            return value


@dataclass(frozen=True)
class DynamicVoter:
    """One initial controller: node id, directory id, host and port."""

    node_id: int
    directory_id: UUID
    host: str
    port: int

    def __str__(self) -> str:  # DynamicVoter.toString
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.node_id}@{host}:{self.port}:{uuid_to_text(self.directory_id)}"


def _java_int(text: str) -> int | None:
    """``Integer.parseInt``: an optional sign and decimal digits within 32 bits, else None."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    value = int(text)
    return value if -2**31 <= value < 2**31 else None


def parse_dynamic_voter(text: str) -> DynamicVoter:
    """``DynamicVoter.parse``: ``ID@HOST:PORT:DIRECTORY_ID`` (``ID@[IPV6]:PORT:DIRECTORY_ID``)."""
    text = text.strip()
    at = text.find("@")
    if at < 0:
        raise DynamicVoterError("No @ found in dynamic voter string.")
    if at == 0:
        raise DynamicVoterError("Invalid @ at beginning of dynamic voter string.")
    node_id = _java_int(text[:at])
    if node_id is None:
        raise DynamicVoterError("Failed to parse node id in dynamic voter string.")
    if node_id < 0:
        raise DynamicVoterError(f"Invalid negative node id {node_id} in dynamic voter string.")
    rest = text[at + 1:]
    if not rest:
        raise DynamicVoterError("No hostname found after node id.")
    if rest.startswith("["):
        end = rest.find("]")
        if end < 0:
            raise DynamicVoterError("Hostname began with left bracket, but no right bracket was found.")
        host, rest = rest[1:end], rest[end + 1:]
    else:
        colon = rest.find(":")
        if colon < 0:
            raise DynamicVoterError("No colon following hostname could be found.")
        host, rest = rest[:colon], rest[colon:]
    if not rest.startswith(":"):
        raise DynamicVoterError("Port section must start with a colon.")
    rest = rest[1:]
    colon = rest.find(":")
    if colon < 0:
        raise DynamicVoterError("No colon following port could be found.")
    port = _java_int(rest[:colon])
    if port is None:
        raise DynamicVoterError("Failed to parse port in dynamic voter string.")
    if not 0 <= port <= 65535:
        raise DynamicVoterError(f"Invalid port {port} in dynamic voter string.")
    try:
        directory_id = uuid_from_text(rest[colon + 1:])
    except ValueError:
        raise DynamicVoterError("Failed to parse directory ID in dynamic voter string.") from None
    return DynamicVoter(node_id, directory_id, host, port)


@dataclass(frozen=True)
class DynamicVoters:
    """The initial controllers by node id (Kafka keeps them in a TreeMap: ascending ids)."""

    voters: tuple[DynamicVoter, ...]

    def __post_init__(self) -> None:
        if not self.voters:
            raise DynamicVoterError("No voters given.")
        seen: set[int] = set()
        for voter in self.voters:
            if voter.node_id in seen:
                raise DynamicVoterError(f"Node id {voter.node_id} was specified more than once.")
            seen.add(voter.node_id)
        object.__setattr__(self, "voters", tuple(sorted(self.voters, key=lambda v: v.node_id)))

    def get(self, node_id: int) -> DynamicVoter | None:
        return next((voter for voter in self.voters if voter.node_id == node_id), None)

    def __str__(self) -> str:
        return ",".join(str(voter) for voter in self.voters)

    def to_voters_record(self, controller_listener: str) -> Any:
        """The VotersRecord (version 0) Kafka's format writes for these voters."""
        from kwire.generated.voters_record import Endpoint, KRaftVersionFeature, Voter, VotersRecord

        by_id = {voter.node_id: voter for voter in self.voters}
        # DynamicVoters.toVoterSet fills a HashMap, VoterSet.fromMap copies it: that copy's order
        order = copied_hash_map_order(list(by_id), int_hash)
        name = controller_listener.upper()  # ListenerName.normalised: toUpperCase(Locale.ROOT)
        low, high = SUPPORTED_KRAFT_VERSIONS
        return VotersRecord(version=0, voters=[
            Voter(voter_id=node_id, voter_directory_id=by_id[node_id].directory_id,
                  endpoints=[Endpoint(name=name, host=by_id[node_id].host, port=by_id[node_id].port)],
                  kraft_version_feature=KRaftVersionFeature(min_supported_version=low, max_supported_version=high))
            for node_id in order])


def parse_dynamic_voters(text: str) -> DynamicVoters:
    """``DynamicVoters.parse``: comma-separated entries, empty ones skipped."""
    return DynamicVoters(tuple(parse_dynamic_voter(entry) for entry in text.strip().split(",") if entry))
