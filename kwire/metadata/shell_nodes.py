"""The metadata image as a tree of nodes, laid out as Kafka's metadata shell lays it out.

Ported from Kafka 3.9's ``org.apache.kafka.image.node`` (``MetadataImageNode`` and its children;
identical in trunk 1eb7644 of October 2024) and the shell's ``RootShellNode``/``LocalShellNode``:
``/image/topics/byName/NAME/0``, ``/image/cluster/brokers/1``, ``/image/features/metadataVersion``...
A leaf prints what Kafka's node prints: the ``toString()`` of Kafka's registration classes
(``PartitionRegistration(replicas=[1], ...)``), the shell's printer not redacting anything.

A node is a directory (``child_names``/``child``) or a leaf (``text``); children are built on
demand, as Kafka's are.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta

from kwire.metadata.image import (
    CONFIG_RESOURCE_TYPES,
    LEADER_RECOVERY_STATES,
    ZK_MIGRATION_STATES,
    BrokerRegistration,
    ClientQuota,
    ControllerRegistration,
    Endpoint,
    MetadataImage,
    PartitionRegistration,
    VersionRange,
)
from kwire.wire.jsonform import uuid_to_text

# Kafka's enums by code (clients' SecurityProtocol, ResourceType, PatternType, AclOperation, AclPermissionType)
SECURITY_PROTOCOLS = {0: "PLAINTEXT", 1: "SSL", 2: "SASL_PLAINTEXT", 3: "SASL_SSL"}
RESOURCE_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "TOPIC", 3: "GROUP", 4: "CLUSTER", 5: "TRANSACTIONAL_ID",
                  6: "DELEGATION_TOKEN", 7: "USER"}
PATTERN_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "MATCH", 3: "LITERAL", 4: "PREFIXED"}
ACL_OPERATIONS = {0: "UNKNOWN", 1: "ANY", 2: "ALL", 3: "READ", 4: "WRITE", 5: "CREATE", 6: "DELETE", 7: "ALTER",
                  8: "DESCRIBE", 9: "CLUSTER_ACTION", 10: "DESCRIBE_CONFIGS", 11: "ALTER_CONFIGS",
                  12: "IDEMPOTENT_WRITE", 13: "CREATE_TOKENS", 14: "DESCRIBE_TOKENS"}
ACL_PERMISSION_TYPES = {0: "UNKNOWN", 1: "ANY", 2: "DENY", 3: "ALLOW"}
#: ``ConfigResource.Type.values()`` in declaration order: ``resourceFromName`` tries them in this order
CONFIG_TYPE_ORDER = ("GROUP", "CLIENT_METRICS", "BROKER_LOGGER", "BROKER", "TOPIC", "UNKNOWN")
#: ``ScramMechanism.values()`` but UNKNOWN: the mechanism names ``/image/scram`` always lists
SCRAM_MECHANISM_NAMES = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}
QUOTA_ENTITY_NAMES = (("client-id", "clientId"), ("ip", "ip"), ("user", "user"))


def java_string_key(text: str) -> bytes:
    """``String.compareTo`` orders by UTF-16 code units; big-endian UTF-16 bytes sort the same way."""
    return text.encode("utf-16-be", "surrogatepass")


class Node:
    """A directory of the tree (``MetadataNode``); a leaf overrides ``is_directory`` and ``text``."""

    is_directory = True

    def child_names(self) -> list[str]:
        return []

    def child(self, name: str) -> Node | None:
        return None

    def text(self) -> str:
        raise NotImplementedError


class Leaf(Node):
    is_directory = False

    def __init__(self, text: str) -> None:
        self._text = text

    def text(self) -> str:
        return self._text


class Directory(Node):
    """A directory whose children are named up front and built when asked for."""

    def __init__(self, children: Mapping[str, Callable[[], Node | None]]) -> None:
        self._children = children

    def child_names(self) -> list[str]:
        return list(self._children)

    def child(self, name: str) -> Node | None:
        make = self._children.get(name)
        return make() if make is not None else None


def sorted_names(node: Node) -> list[str]:
    return sorted(node.child_names(), key=java_string_key)


# ------------------------------------------------------------------- Kafka's toString() forms


def java_list(items: Iterable[object]) -> str:
    """``Arrays.toString`` / ``List.toString``."""
    return "[" + ", ".join(str(i) for i in items) + "]"


def java_double(value: float) -> str:
    """``Double.toString``: plain from 10^-3 to 10^7, else computerized scientific notation."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    digits, exponent = _shortest_digits(magnitude)
    if 1e-3 <= magnitude < 1e7:
        point = exponent + 1  # digits before the decimal point
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole, fraction = digits[:point].ljust(point, "0"), digits[point:]
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest_digits(magnitude: float) -> tuple[str, int]:
    """The shortest digits that read back as ``magnitude`` and the decimal exponent of the first."""
    text = repr(magnitude)
    if "e" in text:
        mantissa, _, exp = text.partition("e")
        return mantissa.replace(".", "").rstrip("0") or "0", int(exp)
    whole, _, fraction = text.partition(".")
    digits = (whole + fraction).lstrip("0")
    point = len(whole) if whole != "0" else -(len(fraction) - len(fraction.lstrip("0")))
    return digits.rstrip("0") or "0", point - 1


def endpoint_text(name: str, endpoint: Endpoint) -> str:
    """``org.apache.kafka.common.Endpoint.toString``."""
    protocol = SECURITY_PROTOCOLS.get(endpoint.security_protocol, "null")
    return f"Endpoint(listenerName='{name}', securityProtocol={protocol}, host='{endpoint.host}', port={endpoint.port})"


def version_range_text(versions: VersionRange) -> str:
    """``org.apache.kafka.metadata.VersionRange.toString``."""
    if versions.min == versions.max:
        return str(versions.min)
    if versions.max == 0x7FFF:
        return f"{versions.min}+"
    return f"{versions.min}-{versions.max}"


def _listeners_and_features(listeners: Mapping[str, Endpoint], features: Mapping[str, VersionRange]) -> str:
    names = sorted(listeners, key=java_string_key)
    feature_names = sorted(features, key=java_string_key)
    return ("listeners=[" + ", ".join(endpoint_text(n, listeners[n]) for n in names) + "], supportedFeatures={"
            + ", ".join(f"{n}: {version_range_text(features[n])}" for n in feature_names) + "}")


def java_bool(value: bool) -> str:
    return "true" if value else "false"


def broker_text(b: BrokerRegistration) -> str:
    """``BrokerRegistration.toString``."""
    rack = "Optional.empty" if b.rack is None else f"Optional[{b.rack}]"
    return (f"BrokerRegistration(id={b.id}, epoch={b.epoch}, incarnationId={uuid_to_text(b.incarnation_id)}, "
            f"{_listeners_and_features(b.listeners, b.supported_features)}, rack={rack}, "
            f"fenced={java_bool(b.fenced)}, inControlledShutdown={java_bool(b.in_controlled_shutdown)}, "
            f"isMigratingZkBroker={java_bool(b.is_migrating_zk_broker)}, "
            f"directories={java_list(uuid_to_text(d) for d in b.directories)})")


def controller_text(c: ControllerRegistration) -> str:
    """``ControllerRegistration.toString``."""
    return (f"ControllerRegistration(id={c.id}, incarnationId={uuid_to_text(c.incarnation_id)}, "
            f"zkMigrationReady={java_bool(c.zk_migration_ready)}, "
            f"{_listeners_and_features(c.listeners, c.supported_features)})")


def partition_text(p: PartitionRegistration) -> str:
    """``PartitionRegistration.toString``."""
    recovery = LEADER_RECOVERY_STATES.get(p.leader_recovery_state, str(p.leader_recovery_state))
    return (f"PartitionRegistration(replicas={java_list(p.replicas)}, "
            f"directories={java_list(uuid_to_text(d) for d in p.directories)}, isr={java_list(p.isr)}, "
            f"removingReplicas={java_list(p.removing_replicas)}, addingReplicas={java_list(p.adding_replicas)}, "
            f"elr={java_list(p.elr)}, lastKnownElr={java_list(p.last_known_elr)}, leader={p.leader}, "
            f"leaderRecoveryState={recovery}, leaderEpoch={p.leader_epoch}, partitionEpoch={p.partition_epoch})")


def provenance_text(offset: int, epoch: int, time_ms: int) -> str:
    """``ProvenanceNode``: ``offset 7110, epoch 1, time 2024-01-05T10:11:12.345Z[UTC]``
    (``DateTimeFormatter.ISO_ZONED_DATE_TIME``: seconds always, the fraction only when not zero)."""
    try:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=time_ms)
    except OverflowError:  # beyond year 9999: Java prints it, Python's datetime cannot
        return f"offset {offset}, epoch {epoch}, time {time_ms} ms since the epoch"
    fraction = f".{moment.microsecond // 1000:03d}".rstrip("0").rstrip(".")
    return f"offset {offset}, epoch {epoch}, time {moment:%Y-%m-%dT%H:%M:%S}{fraction}Z[UTC]"


def quota_entity_text(quota: ClientQuota) -> str:
    """``ClientQuotasImageNode.clientQuotaEntityToString``: ``clientId(a)_user(b)``, ``\\``, ``(``
    and ``)`` escaped with a backslash."""
    entity = dict(quota.entity)
    parts = []
    for kind, label in QUOTA_ENTITY_NAMES:
        value = entity.get(kind)
        if value is not None:  # Kafka skips a part whose name is null (the default entity)
            escaped = value.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            parts.append(f"{label}({escaped})")
    return "_".join(parts)


def config_resource_name(kind: int, name: str) -> str:
    """``ConfigurationsImageNode``'s child name: the type's name, then ``:name`` unless the default."""
    type_name = CONFIG_RESOURCE_TYPES.get(kind, "UNKNOWN")
    return type_name if name == "" else f"{type_name}:{name}"


def resource_from_name(name: str) -> tuple[str, str] | None:
    """``ConfigurationsImageNode.resourceFromName``: the first type whose name starts ``name``."""
    for type_name in CONFIG_TYPE_ORDER:
        if name.startswith(type_name):
            rest = name[len(type_name):]
            if rest == "":
                return type_name, ""
            return (type_name, rest[1:]) if rest.startswith(":") else None
    return None


# ----------------------------------------------------------------------------------- the tree


def root_node(image: MetadataImage, *, metadata_version_name: Callable[[int], str], local_version: str) -> Node:
    """``RootShellNode``: ``/local`` (the shell's version) and ``/image``."""
    local = Directory({"version": lambda: Leaf(local_version), "commitId": lambda: Leaf("unknown")})
    return Directory({"local": lambda: local, "image": lambda: image_node(image, metadata_version_name)})


def image_node(image: MetadataImage, metadata_version_name: Callable[[int], str]) -> Node:
    """``MetadataImageNode``."""
    p = image.provenance
    return Directory({
        "provenance": lambda: Leaf(provenance_text(p.last_offset, p.last_epoch, p.last_timestamp)),
        "features": lambda: _features(image, metadata_version_name),
        "cluster": lambda: _cluster(image),
        "topics": lambda: _topics(image),
        "configs": lambda: _configs(image),
        "clientQuotas": lambda: _client_quotas(image),
        "producerIds": lambda: Directory({"nextProducerId": lambda: Leaf(str(image.next_producer_id))}),
        # MetadataImageNode puts AclsImageByIdNode itself under "acls": the ids are right below it
        "acls": lambda: _acls(image),
        "scram": lambda: _scram(image),
        "delegationToken": lambda: _delegation_tokens(image),
    })


def _leaves(items: Iterable[tuple[str, str]]) -> Directory:
    return Directory({name: (lambda text=text: Leaf(text)) for name, text in items})


def _features(image: MetadataImage, metadata_version_name: Callable[[int], str]) -> Node:
    features = image.features
    level = features.metadata_version
    # FeaturesImage.EMPTY holds MINIMUM_KRAFT_VERSION, 3.0-IV1 (level 1), until a record sets it
    version = metadata_version_name(1 if level is None else level)
    state = ZK_MIGRATION_STATES.get(features.zk_migration_state, str(features.zk_migration_state))
    items = [("metadataVersion", version), ("zkMigrationState", state)]
    items += [(f"finalized_{name}", str(level)) for name, level in features.finalized.items()]
    return _leaves(items)


def _cluster(image: MetadataImage) -> Node:
    cluster = image.cluster
    return Directory({
        "brokers": lambda: _leaves((str(i), broker_text(b)) for i, b in cluster.brokers.items()),
        "controllers": lambda: _leaves((str(i), controller_text(c)) for i, c in cluster.controllers.items()),
    })


def _topic(topic) -> Node:
    items = [("name", topic.name), ("id", uuid_to_text(topic.id))]
    items += [(str(i), partition_text(p)) for i, p in topic.partitions.items()]
    return _leaves(items)


def _topics(image: MetadataImage) -> Node:
    topics = list(image.topics.by_id.values())
    return Directory({
        "byName": lambda: Directory({t.name: (lambda t=t: _topic(t)) for t in topics}),
        "byId": lambda: Directory({uuid_to_text(t.id): (lambda t=t: _topic(t)) for t in topics}),
    })


def _configs(image: MetadataImage) -> Node:
    by_name = {config_resource_name(kind, name): data for (kind, name), data in image.configs.resources.items()}

    class Configs(Directory):
        def child(self, name: str) -> Node | None:
            if resource_from_name(name) is None:  # a name Kafka cannot parse back is listed but not found
                return None
            return super().child(name)

    return Configs({name: (lambda data=data: _leaves(data.items())) for name, data in by_name.items()})


def _client_quotas(image: MetadataImage) -> Node:
    return Directory({quota_entity_text(q): (lambda q=q: _leaves((k, java_double(v)) for k, v in q.quotas.items()))
                      for q in image.client_quotas.entities.values()})


def _acls(image: MetadataImage) -> Node:
    def text(acl) -> str:
        return (f"StandardAcl(resourceType={RESOURCE_TYPES.get(acl.resource_type, 'UNKNOWN')}, "
                f"resourceName={acl.resource_name}, patternType={PATTERN_TYPES.get(acl.pattern_type, 'UNKNOWN')}, "
                f"principal={acl.principal}, host={acl.host}, "
                f"operation={ACL_OPERATIONS.get(acl.operation, 'UNKNOWN')}, "
                f"permissionType={ACL_PERMISSION_TYPES.get(acl.permission_type, 'UNKNOWN')})")

    return _leaves((uuid_to_text(i), text(a)) for i, a in image.acls.items())


def _scram(image: MetadataImage) -> Node:
    def credential(c) -> str:
        return (f"ScramCredentialData(salt={c.salt.hex()}, storedKey={c.stored_key.hex()}, "
                f"serverKey={c.server_key.hex()}, iterations={c.iterations})")

    def mechanism(code: int) -> Node:
        return _leaves((user, credential(c)) for user, c in image.scram.get(code, {}).items())

    return Directory({name: (lambda code=code: mechanism(code)) for name, code in SCRAM_MECHANISM_NAMES.items()})


def _delegation_tokens(image: MetadataImage) -> Node:
    def text(t) -> str:  # DelegationTokenDataNode's text, its odd parentheses included
        return (f"DelegationTokenDatatokenId={t.token_id}(owner={t.owner}(tokenRequester={t.requester}"
                f"(renewers={' '.join(t.renewers)}, issueTimestamp={t.issue_timestamp}, "
                f"maxTimestamp={t.max_timestamp}), expiryTimestamp={t.expiration_timestamp}")

    return _leaves((token_id, text(t)) for token_id, t in image.delegation_tokens.items())

