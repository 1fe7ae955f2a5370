"""Which dynamic configs Kafka 4.2.1 keeps when it replays a ConfigRecord (KAFKA-19851).

From 4.2.1, Kafka's image and controller skip a ConfigRecord whose name the release no longer
defines for its resource type (``DefaultSupportedConfigChecker``): a topic config must be one of
``LogConfig``'s, a group config one of ``GroupConfig``'s, a client-metrics config one of
``ClientMetricsConfigs``'; a broker config (and the cluster-wide one, broker ``""``) is kept
whatever its name, since listener-prefixed and plugin configs cannot be listed; a config of any
other resource type is skipped. It clears configs removed with Kafka 4.0 (``message.format.version``
and the like) that a cluster upgraded from 3.x still carries. Kafka 4.2.0 and older keep them all.

The names are those the 4.2.1 sources define (tag ``4.2.1``, commit 18d5ecd939c8).
"""
from __future__ import annotations

from kwire.metadata.image import ConfigResource

TOPIC, BROKER, CLIENT_METRICS, GROUP = 2, 4, 16, 32  # ConfigResource.Type ids

#: ``LogConfig.configNames()``: every topic config Kafka 4.2.1 defines, internal ones included.
TOPIC_CONFIGS = frozenset({
    "cleanup.policy", "compression.gzip.level", "compression.lz4.level", "compression.type",
    "compression.zstd.level", "delete.retention.ms", "file.delete.delay.ms", "flush.messages", "flush.ms",
    "follower.replication.throttled.replicas", "index.interval.bytes", "internal.segment.bytes",
    "leader.replication.throttled.replicas", "local.retention.bytes", "local.retention.ms",
    "max.compaction.lag.ms", "max.message.bytes", "message.timestamp.after.max.ms",
    "message.timestamp.before.max.ms", "message.timestamp.type", "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms", "min.insync.replicas", "preallocate", "remote.log.copy.disable",
    "remote.log.delete.on.disable", "remote.storage.enable", "retention.bytes", "retention.ms", "segment.bytes",
    "segment.index.bytes", "segment.jitter.ms", "segment.ms", "unclean.leader.election.enable",
})
#: ``GroupConfig.configDef().names()``.
GROUP_CONFIGS = frozenset({
    "consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", "share.session.timeout.ms",
    "share.heartbeat.interval.ms", "share.record.lock.duration.ms", "share.auto.offset.reset",
    "share.isolation.level", "streams.session.timeout.ms", "streams.heartbeat.interval.ms",
    "streams.num.standby.replicas", "streams.initial.rebalance.delay.ms",
})
#: ``ClientMetricsConfigs.configDef().names()``.
CLIENT_METRICS_CONFIGS = frozenset({"metrics", "interval.ms", "match"})

_BY_TYPE = {TOPIC: TOPIC_CONFIGS, GROUP: GROUP_CONFIGS, CLIENT_METRICS: CLIENT_METRICS_CONFIGS}


def supported_by_421(resource: ConfigResource, name: str) -> bool:
    """Whether Kafka 4.2.1 keeps config ``name`` of ``resource`` when it replays it."""
    resource_type = resource[0]
    if resource_type == BROKER:
        return True
    known = _BY_TYPE.get(resource_type)
    return known is not None and name in known
