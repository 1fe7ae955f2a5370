"""An image shown to people and machines: the JSON form of ``kwire metadata image --json`` and its text.

UUIDs are printed as Kafka prints them (URL-safe base64), codes with their names where Kafka
has names for them (ZK migration state, leader recovery state, SCRAM mechanism, config resource
type). SCRAM salts and keys are left out, as Kafka's own image printer hides them.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kwire.metadata.image import (
    CONFIG_RESOURCE_TYPES,
    LEADER_RECOVERY_STATES,
    SCRAM_MECHANISMS,
    ZK_MIGRATION_STATES,
    BrokerRegistration,
    ControllerRegistration,
    Endpoint,
    MetadataImage,
    PartitionRegistration,
    VersionRange,
)
from kwire.wire.uuids import uuid_to_text


def image_to_json(image: MetadataImage, *, metadata_version_name: Callable[[int], str] | None = None) -> dict[str, Any]:
    features = image.features
    level = features.metadata_version
    return {
        "provenance": {"lastOffset": image.provenance.last_offset, "lastEpoch": image.provenance.last_epoch,
                       "lastTimestamp": image.provenance.last_timestamp},
        "features": {
            "metadataVersion": None if level is None else {
                "level": level, **({"name": metadata_version_name(level)} if metadata_version_name else {})},
            "finalized": dict(sorted(features.finalized.items())),
            "zkMigrationState": ZK_MIGRATION_STATES.get(features.zk_migration_state, features.zk_migration_state),
        },
        "brokers": [_broker(b) for _, b in sorted(image.cluster.brokers.items())],
        "controllers": [_controller(c) for _, c in sorted(image.cluster.controllers.items())],
        "topics": [
            {"name": t.name, "id": uuid_to_text(t.id),
             "partitions": [_partition(i, p) for i, p in sorted(t.partitions.items())]}
            for t in sorted(image.topics.by_id.values(), key=lambda t: t.name)
        ],
        "configs": [
            {"resourceType": CONFIG_RESOURCE_TYPES.get(kind, kind), "resourceName": name,
             "configs": dict(sorted(data.items()))}
            for (kind, name), data in sorted(image.configs.resources.items())
        ],
        "clientQuotas": [
            {"entity": [{"entityType": t, "entityName": n} for t, n in q.entity],
             "quotas": dict(sorted(q.quotas.items()))}
            for q in sorted(image.client_quotas.entities.values(), key=lambda q: repr(q.entity))
        ],
        "nextProducerId": image.next_producer_id,
        "acls": [{"id": uuid_to_text(i), "resourceType": a.resource_type, "resourceName": a.resource_name,
                  "patternType": a.pattern_type, "principal": a.principal, "host": a.host,
                  "operation": a.operation, "permissionType": a.permission_type}
                 for i, a in sorted(image.acls.items(), key=lambda item: uuid_to_text(item[0]))],
        "scramCredentials": [
            {"mechanism": SCRAM_MECHANISMS.get(m, m), "user": user, "iterations": c.iterations}
            for m, users in sorted(image.scram.items()) for user, c in sorted(users.items())
        ],
        "delegationTokens": [
            {"tokenId": t.token_id, "owner": t.owner, "requester": t.requester, "renewers": list(t.renewers),
             "issueTimestamp": t.issue_timestamp, "maxTimestamp": t.max_timestamp,
             "expirationTimestamp": t.expiration_timestamp}
            for _, t in sorted(image.delegation_tokens.items())
        ],
        "quorum": {
            "kraftVersion": image.quorum.kraft_version,
            "voters": None if image.quorum.voters is None else [
                {"id": v.id, "directoryId": uuid_to_text(v.directory_id),
                 "endpoints": [{"name": n, "host": h, "port": p} for n, h, p in v.endpoints],
                 "kraftVersion": {"min": v.kraft_version.min, "max": v.kraft_version.max}}
                for v in image.quorum.voters],
            "leaders": [{"epoch": e.epoch, "leaderId": e.leader_id, "offset": e.offset, "voters": list(e.voters),
                         "grantingVoters": list(e.granting_voters)} for e in image.quorum.leaders],
            "quorumStateLeader": None if image.quorum.state_file_leader is None else {
                "leaderId": image.quorum.state_file_leader[0], "epoch": image.quorum.state_file_leader[1]},
        },
    }


def _listeners(listeners: Mapping[str, Endpoint]) -> list[dict[str, Any]]:
    return [{"name": n, "host": e.host, "port": e.port, "securityProtocol": e.security_protocol}
            for n, e in sorted(listeners.items())]


def _features(features: Mapping[str, VersionRange]) -> dict[str, Any]:
    return {n: {"min": r.min, "max": r.max} for n, r in sorted(features.items())}


def _broker(b: BrokerRegistration) -> dict[str, Any]:
    return {"id": b.id, "epoch": b.epoch, "incarnationId": uuid_to_text(b.incarnation_id),
            "listeners": _listeners(b.listeners), "supportedFeatures": _features(b.supported_features),
            "rack": b.rack, "fenced": b.fenced, "inControlledShutdown": b.in_controlled_shutdown,
            "isMigratingZkBroker": b.is_migrating_zk_broker, "logDirs": [uuid_to_text(d) for d in b.directories]}


def _controller(c: ControllerRegistration) -> dict[str, Any]:
    return {"id": c.id, "incarnationId": uuid_to_text(c.incarnation_id), "zkMigrationReady": c.zk_migration_ready,
            "listeners": _listeners(c.listeners), "supportedFeatures": _features(c.supported_features)}


def _partition(index: int, p: PartitionRegistration) -> dict[str, Any]:
    return {"partition": index, "replicas": list(p.replicas),
            "directories": [uuid_to_text(d) for d in p.directories], "isr": list(p.isr),
            "removingReplicas": list(p.removing_replicas), "addingReplicas": list(p.adding_replicas),
            "elr": list(p.elr), "lastKnownElr": list(p.last_known_elr), "leader": p.leader,
            "leaderRecoveryState": LEADER_RECOVERY_STATES.get(p.leader_recovery_state, p.leader_recovery_state),
            "leaderEpoch": p.leader_epoch, "partitionEpoch": p.partition_epoch}


def summary_lines(image: MetadataImage, *, metadata_version_name: Callable[[int], str] | None = None) -> list[str]:
    """A few lines for a terminal: what the image holds, part by part."""
    features = image.features
    level = features.metadata_version
    mv = "unset (3.0-IV1 assumed)" if level is None else (
        f"{metadata_version_name(level)} (level {level})" if metadata_version_name else f"level {level}")
    others = ", ".join(f"{n}={v}" for n, v in sorted(features.finalized.items())) or "none"
    brokers = image.cluster.brokers
    partitions = sum(len(t.partitions) for t in image.topics.by_id.values())
    shutting_down = sum(1 for b in brokers.values() if b.in_controlled_shutdown)
    lines = [
        f"offset: {image.provenance.last_offset} (epoch {image.provenance.last_epoch})",
        f"metadata.version: {mv}",
        f"other finalized features: {others}",
        f"ZK migration state: {ZK_MIGRATION_STATES.get(features.zk_migration_state, features.zk_migration_state)}",
        f"brokers: {len(brokers)} ({sum(1 for b in brokers.values() if b.fenced)} fenced"
        f"{f', {shutting_down} in controlled shutdown' if shutting_down else ''})",
        f"controllers: {len(image.cluster.controllers)}",
        f"topics: {len(image.topics.by_id)} ({partitions} partitions)",
        f"config resources: {len(image.configs.resources)}",
        f"client quota entities: {len(image.client_quotas.entities)}",
        f"next producer id: {image.next_producer_id}",
        f"ACLs: {len(image.acls)}",
        f"SCRAM credentials: {sum(len(u) for u in image.scram.values())}",
        f"delegation tokens: {len(image.delegation_tokens)}",
        f"quorum: kraft.version {image.quorum.kraft_version}, "
        + (f"{len(image.quorum.voters)} voters" if image.quorum.voters is not None else "static voters")
        + _leader_text(image),
    ]
    return lines


def _leader_text(image: MetadataImage) -> str:
    leader = image.quorum.current_leader
    if leader is None:
        return ""
    source = " (quorum-state)" if image.quorum.state_file_leader is not None else ""
    return f", leader {leader[0]} in epoch {leader[1]}{source}"
