"""Changes to the registered brokers and controllers (Kafka's ``ClusterDelta``)."""
from __future__ import annotations

from dataclasses import replace

from kwire.generated import (
    BrokerRegistrationChangeRecord,
    FenceBrokerRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    UnfenceBrokerRecord,
    UnregisterBrokerRecord,
    UnregisterControllerRecord,
)
from kwire.metadata.changes import MapChanges
from kwire.metadata.errors import ReplayError
from kwire.metadata.image import (
    BrokerRegistration,
    ClusterImage,
    ControllerRegistration,
    Endpoint,
    VersionRange,
    uuid_sort_key,
)

#: BrokerRegistrationChangeRecord.Fenced: 1 fence, 0 no change, -1 unfence.
_FENCING_CHANGES = {1: True, 0: None, -1: False}
#: BrokerRegistrationChangeRecord.InControlledShutdown: 0 no change, 1 entering controlled shutdown.
_SHUTDOWN_CHANGES = {0: None, 1: True}


class ClusterDelta:
    def __init__(self, image: ClusterImage) -> None:
        self.image = image
        self.brokers = MapChanges(image.brokers)
        self.controllers = MapChanges(image.controllers)

    def replay_register_broker(self, record: RegisterBrokerRecord) -> None:
        self.brokers.set(record.broker_id, BrokerRegistration(
            id=record.broker_id,
            epoch=record.broker_epoch,
            incarnation_id=record.incarnation_id,
            listeners=_listeners(record),
            supported_features=_supported_features(record),
            rack=record.rack,
            fenced=record.fenced,
            in_controlled_shutdown=record.in_controlled_shutdown,
            is_migrating_zk_broker=record.is_migrating_zk_broker,
            directories=tuple(sorted(record.log_dirs, key=uuid_sort_key)),
        ))

    def replay_unregister_broker(self, record: UnregisterBrokerRecord) -> None:
        self.brokers.remove(record.broker_id)

    def replay_fence_broker(self, record: FenceBrokerRecord) -> None:
        self.brokers.set(record.id, self._broker(record.id, record.epoch, "fence").changed(fenced=True))

    def replay_unfence_broker(self, record: UnfenceBrokerRecord) -> None:
        self.brokers.set(record.id, self._broker(record.id, record.epoch, "unfence").changed(fenced=False))

    def replay_broker_registration_change(self, record: BrokerRegistrationChangeRecord) -> None:
        broker = self._broker(record.broker_id, record.broker_epoch, "change")
        if record.fenced not in _FENCING_CHANGES:
            raise ReplayError(f"Unable to replay {record.NAME}: unknown value for fenced field: {record.fenced}")
        if record.in_controlled_shutdown not in _SHUTDOWN_CHANGES:
            raise ReplayError(f"Unable to replay {record.NAME}: unknown value for inControlledShutdown field: "
                              f"{record.in_controlled_shutdown}")
        directories = tuple(record.log_dirs) if record.log_dirs else None
        self.brokers.set(broker.id, broker.changed(
            fenced=_FENCING_CHANGES[record.fenced],
            in_controlled_shutdown=_SHUTDOWN_CHANGES[record.in_controlled_shutdown],
            directories=directories))

    def replay_register_controller(self, record: RegisterControllerRecord) -> None:
        self.controllers.set(record.controller_id, ControllerRegistration(
            id=record.controller_id,
            incarnation_id=record.incarnation_id,
            zk_migration_ready=record.zk_migration_ready,
            listeners=_listeners(record),
            supported_features=_supported_features(record),
        ))

    def replay_unregister_controller(self, record: UnregisterControllerRecord) -> None:
        self.controllers.remove(record.controller_id)

    def _broker(self, broker_id: int, epoch: int, action: str) -> BrokerRegistration:
        broker = self.brokers.get(broker_id)
        if broker is None:
            raise ReplayError(f"Tried to {action} broker {broker_id}, but that broker was not registered.")
        if broker.epoch != epoch:
            raise ReplayError(f"Tried to {action} broker {broker_id}, but the given epoch, {epoch}, did not "
                              f"match the current broker epoch, {broker.epoch}")
        return broker

    def apply(self) -> ClusterImage:
        return replace(self.image, brokers=self.brokers.frozen(), controllers=self.controllers.frozen())


def _listeners(record: RegisterBrokerRecord | RegisterControllerRecord) -> dict[str, Endpoint]:
    """A registration record's endpoints by listener name (a repeated name: the last one wins)."""
    return {e.name: Endpoint(e.host, e.port, e.security_protocol) for e in record.end_points}


def _supported_features(record: RegisterBrokerRecord | RegisterControllerRecord) -> dict[str, VersionRange]:
    return {f.name: VersionRange(f.min_supported_version, f.max_supported_version) for f in record.features}
