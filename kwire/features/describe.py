"""What ``kafka-features describe`` shows, for a cluster's feature state or a broker's ApiVersions answer.

kafka-features prints one line per feature the answering node supports, its fields separated by
tabs (here folded after the third)::

    Feature: metadata.version	SupportedMinVersion: 3.0-IV1	SupportedMaxVersion: 3.9-IV0
        FinalizedVersionLevel: 3.9-IV0	Epoch: 9800

For a metadata log read offline there is no answering node: the supported range shown is the one
every registered broker supports (what the controller would accept), and each node's own ranges
follow. metadata.version levels are shown by name (``3.9-IV0``); a level kwire does not know as
``UNKNOWN 30``, as kafka-features does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import FeatureError
from .metadata_version import FEATURE_NAME as METADATA_VERSION
from .metadata_version import from_level
from .update_features import ClusterFeatures, Range, kafka_supported_features


def level_text(feature: str, level: int) -> str:
    """kafka-features' ``levelToString``: metadata.version by name, other features as numbers."""
    if feature != METADATA_VERSION:
        return str(level)
    try:
        return from_level(level).name
    except FeatureError:
        return f"UNKNOWN {level}"


def supported_text(feature: str, supported: Range) -> str:
    """``1-21 (3.0-IV1 to 3.9-IV0)`` for metadata.version, ``0-1`` for the others."""
    low, high = supported
    if feature == METADATA_VERSION:
        return f"{low}-{high} ({level_text(feature, low)} to {level_text(feature, high)})"
    return str(low) if low == high else f"{low}-{high}"


@dataclass
class FeatureRow:
    name: str
    supported: Range | None  # None: no node to say (no broker registered), or no level all support
    finalized: int

    def line(self, epoch: int | None) -> str:
        low, high = (level_text(self.name, v) for v in self.supported) if self.supported else ("-", "-")
        return (f"Feature: {self.name}\tSupportedMinVersion: {low}\tSupportedMaxVersion: {high}\t"
                f"FinalizedVersionLevel: {level_text(self.name, self.finalized)}\t"
                f"Epoch: {epoch if epoch is not None and epoch >= 0 else '-'}")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "supported": list(self.supported) if self.supported else None,
                "finalized": self.finalized}


def common_range(ranges: list[Range]) -> Range | None:
    """The levels every range holds, None when they share none."""
    low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
    return (low, high) if low <= high else None


def cluster_rows(state: ClusterFeatures) -> list[FeatureRow]:
    """One row per feature any broker supports or the cluster finalized, by name."""
    finalized = state.finalized_levels()
    names = set(finalized)
    for supported in state.brokers.values():
        names.update(supported)
    rows = []
    for name in sorted(names):
        ranges = [supported.get(name, (0, 0)) for supported in state.brokers.values()]
        rows.append(FeatureRow(name, common_range(ranges) if ranges else None, finalized.get(name, 0)))
    return rows


def describe_cluster(state: ClusterFeatures) -> dict[str, Any]:
    """The feature state as JSON-ready data."""
    local = state.local_supported if state.local_supported is not None else kafka_supported_features()
    return {
        "metadataVersion": {"level": state.metadata_version,
                            "name": level_text(METADATA_VERSION, state.metadata_version)},
        "finalized": state.finalized_levels(),
        "epoch": state.epoch,
        "features": [row.to_json() for row in cluster_rows(state)],
        "brokers": {str(node): _ranges_json(ranges) for node, ranges in state.brokers.items()},
        "controllers": {str(node): _ranges_json(ranges) for node, ranges in state.controllers.items()},
        "voters": list(state.quorum_node_ids),
        "activeController": state.node_id if state.node_id_from else None,
        "activeControllerFrom": state.node_id_from or None,
        "activeControllerSupports": _ranges_json(local),
        "activeControllerSupportsFrom": _supports_from(state),
    }


def _supports_from(state: ClusterFeatures) -> str:
    if state.local_supported is None:
        return "Kafka 4.2.1"
    return f"its {state.local_supported_from or 'controller'} registration"


def _ranges_json(ranges: dict[str, Range]) -> dict[str, list[int]]:
    return {name: list(supported) for name, supported in sorted(ranges.items())}


def describe_cluster_text(state: ClusterFeatures) -> list[str]:
    """kafka-features' lines, then what each registered node supports."""
    lines = [row.line(state.epoch) for row in cluster_rows(state)]
    if not state.brokers:
        lines.append("(no broker has registered: the supported ranges are unknown)")
    for kind, nodes in (("Broker", state.brokers), ("Controller", state.controllers)):
        for node, ranges in nodes.items():
            listed = ", ".join(f"{name} {supported_text(name, r)}" for name, r in sorted(ranges.items()))
            lines.append(f"{kind} {node} supports: {listed or 'no feature'}")
    voters = ", ".join(map(str, state.quorum_node_ids)) or "unknown"
    if state.local_supported is None:
        source = "Kafka 4.2.1's ranges"
    elif state.local_supported_from == "broker":
        source = (f"broker {state.node_id}'s registration: no controller registered (controllers register from "
                  f"3.7-IV0), and a combined node's broker registration says what it runs")
    else:
        source = "its controller registration"
    if state.node_id_from:
        lines.append(f"Active controller: {state.node_id}, from {state.node_id_from} (voters: {voters}; "
                     f"judges with {source})")
    else:
        lines.append(f"Active controller: unknown: no leader in the log and no quorum-state (voters: {voters}); "
                     f"judged as a Kafka 4.2.1 controller would, with {source}")
    return lines


@dataclass
class BrokerFeatures:
    """The features a broker reported in its ApiVersions response (v3 and later)."""

    supported: dict[str, Range]
    finalized: dict[str, int]
    epoch: int

    def rows(self) -> list[FeatureRow]:
        return [FeatureRow(name, supported, self.finalized.get(name, 0))
                for name, supported in sorted(self.supported.items())]

    def to_json(self) -> dict[str, Any]:
        return {"supported": _ranges_json(self.supported), "finalized": dict(sorted(self.finalized.items())),
                "epoch": self.epoch, "features": [row.to_json() for row in self.rows()]}


def broker_features(response: Any) -> BrokerFeatures:
    """The features of a decoded :class:`kwire.generated.ApiVersionsResponse` (empty below v3)."""
    supported = {f.name: (f.min_version, f.max_version) for f in getattr(response, "supported_features", ()) or ()}
    finalized = {f.name: f.max_version_level for f in getattr(response, "finalized_features", ()) or ()}
    return BrokerFeatures(supported, finalized, getattr(response, "finalized_features_epoch", -1))
