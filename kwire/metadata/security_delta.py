"""Changes to ACLs (Kafka's ``AclsDelta``), SCRAM credentials (``ScramDelta``) and delegation
tokens (``DelegationTokenDelta``)."""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from uuid import UUID

from kwire.generated import (
    AccessControlEntryRecord,
    DelegationTokenRecord,
    RemoveAccessControlEntryRecord,
    RemoveDelegationTokenRecord,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)
from kwire.metadata.changes import MapChanges
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import Acl, DelegationToken, ScramCredential
from kwire.wire.uuids import uuid_to_text


class AclsDelta:
    def __init__(self, image: Mapping[UUID, Acl]) -> None:
        self.acls = MapChanges(image)

    def replay_acl(self, record: AccessControlEntryRecord) -> None:
        self.acls.set(record.id, Acl(record.resource_type, record.resource_name, record.pattern_type,
                                     record.principal, record.host, record.operation, record.permission_type))

    def replay_remove_acl(self, record: RemoveAccessControlEntryRecord) -> None:
        if self.acls.remove(record.id) is None:
            raise ReplayError(f"Failed to find existing ACL with ID {uuid_to_text(record.id)} in either image "
                              "or changes")

    def apply(self) -> Mapping[UUID, Acl]:
        return self.acls.frozen()


class ScramDelta:
    """Credentials by mechanism, then user."""

    def __init__(self, image: Mapping[int, Mapping[str, ScramCredential]]) -> None:
        self.mechanisms = MapChanges(image)
        self._users: dict[int, MapChanges[str, ScramCredential]] = {}

    def replay_scram(self, record: UserScramCredentialRecord) -> None:
        mechanism = _scram_mechanism(record.mechanism)
        if mechanism not in self.mechanisms:
            self.mechanisms.set(mechanism, MappingProxyType({}))
        self._users_of(mechanism).set(record.name, ScramCredential(
            bytes(record.salt), bytes(record.stored_key), bytes(record.server_key), record.iterations))

    def replay_remove_scram(self, record: RemoveUserScramCredentialRecord) -> None:
        mechanism = _scram_mechanism(record.mechanism)
        if mechanism not in self.mechanisms:
            return
        users = self._users_of(mechanism)
        if users.remove(record.name) is not None and not users.current():
            self.mechanisms.remove(mechanism)
            del self._users[mechanism]

    def _users_of(self, mechanism: int) -> MapChanges[str, ScramCredential]:
        users = self._users.get(mechanism)
        if users is None:
            users = self._users[mechanism] = MapChanges(self.mechanisms.get(mechanism) or {})
        return users

    def apply(self) -> Mapping[int, Mapping[str, ScramCredential]]:
        for mechanism, users in self._users.items():
            if users.changed:
                self.mechanisms.set(mechanism, users.frozen())
        return self.mechanisms.frozen()


class DelegationTokensDelta:
    def __init__(self, image: Mapping[str, DelegationToken]) -> None:
        self.tokens = MapChanges(image)

    def replay_delegation_token(self, record: DelegationTokenRecord) -> None:
        self.tokens.set(record.token_id, DelegationToken(
            record.token_id, record.owner, record.requester, tuple(record.renewers), record.issue_timestamp,
            record.max_timestamp, record.expiration_timestamp))

    def replay_remove_delegation_token(self, record: RemoveDelegationTokenRecord) -> None:
        self.tokens.remove(record.token_id)

    def apply(self) -> Mapping[str, DelegationToken]:
        return self.tokens.frozen()


def _scram_mechanism(value: int) -> int:
    return value if value in (1, 2) else 0  # ScramMechanism.fromType: anything else is UNKNOWN
