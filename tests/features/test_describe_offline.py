"""``kwire features describe`` of a log with nothing to say what the nodes support.

kafka-features prints ``-`` for a value it does not have (``FeatureCommand.handleDescribe``: the epoch
when ``finalizedFeaturesEpoch`` is empty, Kafka 4.0, apache/kafka 1eb7644); offline, a cluster where
no broker registered (or whose brokers share no level) has no supported range either, and both of
its ends are shown as that same ``-``.
"""
from __future__ import annotations

import pytest

from kwire.features.describe import describe_cluster_text
from kwire.features.update_features import ClusterFeatures


@pytest.mark.parametrize("brokers", [{}, {1: {"metadata.version": (1, 14)}, 2: {"metadata.version": (15, 21)}}],
                         ids=["none-registered", "no-common-level"])
def test_an_unknown_supported_range_is_a_dash_at_both_ends(brokers):
    """Kills ``describe.xǁFeatureRowǁline__mutmut_9`` (the missing maximum shown as another text)."""
    lines = describe_cluster_text(ClusterFeatures(metadata_version=21, brokers=brokers))
    # level 21 is MetadataVersion.IBP_3_9_IV0; no finalized-features epoch: "-", as kafka-features prints it
    assert lines[0] == ("Feature: metadata.version\tSupportedMinVersion: -\tSupportedMaxVersion: -\t"
                        "FinalizedVersionLevel: 3.9-IV0\tEpoch: -")
