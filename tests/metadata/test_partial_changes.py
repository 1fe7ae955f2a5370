"""Changes that leave part of what they touch in place, by Kafka's rules (metadata/src/main/java/
org/apache/kafka/image, 3.9.0; worked by hand):

* ``ClientQuotaDelta``: a ClientQuotaRecord with ``remove`` drops that one quota key of the entity;
  the entity stays while it has other keys.
* ``PartitionRegistration.toRecord``: a partition in the middle of a reassignment is written back
  with its adding and removing replicas, so a snapshot keeps the reassignment going.
* the loader: a directory that holds a log's segments or snapshots is that log, even when it also
  has a subdirectory named ``__cluster_metadata-0``.
"""
from __future__ import annotations

import shutil
import struct
import uuid

from kwire.generated import MESSAGES
from kwire.generated.client_quota_record import EntityData
from kwire.metadata.loader import load_image
from kwire.metadata.replay import MetadataReplayer
from kwire.metadata.writer import write_image
from tests.paths import KRAFT_390

TOPIC = uuid.UUID(int=0xBEEF)


def replay(*records):
    replayer = MetadataReplayer()
    for record in records:
        replayer.replay(record)
    return replayer.image


def test_removing_one_quota_key_keeps_the_entitys_others():
    """Kills ``configs_delta.xǁClientQuotasDeltaǁreplay_client_quota__mutmut_12``."""
    user = [EntityData(entity_type="user", entity_name="alice")]
    quota = MESSAGES["ClientQuotaRecord"]
    image = replay(quota(entity=user, key="producer_byte_rate", value=1024.0),
                   quota(entity=user, key="consumer_byte_rate", value=2048.0),
                   quota(entity=user, key="producer_byte_rate", remove=True))
    [kept] = image.client_quotas.entities.values()
    assert kept.entity == (("user", "alice"),) and kept.quotas == {"consumer_byte_rate": 2048.0}


def test_a_partition_being_reassigned_is_written_with_its_adding_and_removing_replicas():
    """Kills ``writer.x__partition_record__mutmut_18`` (``adding_replicas`` left out)."""
    partition = MESSAGES["PartitionRecord"](
        partition_id=0, topic_id=TOPIC, replicas=[1, 2, 3], isr=[1, 2], removing_replicas=[1], adding_replicas=[3],
        leader=2, leader_epoch=4, partition_epoch=6)
    image = replay(MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21),
                   MESSAGES["TopicRecord"](name="moving", topic_id=TOPIC), partition)
    [written] = [r.message for r in write_image(image).records if r.name == "PartitionRecord"]
    assert (written.replicas, written.isr, written.removing_replicas, written.adding_replicas) == (
        [1, 2, 3], [1, 2], [1], [3])


def test_a_log_directory_with_a_subdirectory_of_the_log_s_name_is_still_the_log(tmp_path):
    """Kills ``loader.x_load_image__mutmut_12`` (segments *and* snapshots needed to count as the log)."""
    log = tmp_path / "__cluster_metadata-0"
    shutil.copytree(KRAFT_390 / "__cluster_metadata-0", log)
    expected = load_image(log).image
    (log / "__cluster_metadata-0").mkdir()  # empty: were it read, there would be nothing to load
    assert load_image(log).image.same_metadata(expected)


def test_damage_right_after_the_snapshot_s_offset_is_not_read_for_the_quorum_history(tmp_path):
    """With a snapshot, the quorum's control records come from the log before it, below the
    snapshot's offset; damage that starts right at that offset is past what was asked, for that read
    as for the replay (kills ``loader.xǁ_Loaderǁcontrol_records__mutmut_4``: the read not told where
    to stop). The segment is cut by hand after the batch that ends at offset 7110 (a v2 batch:
    baseOffset int64, batchLength int32, then batchLength bytes; its last offset is base +
    lastOffsetDelta, the int32 at byte 23), and a broken batch header follows."""
    from tests.paths import KRAFT_361

    log = tmp_path / "__cluster_metadata-0"
    shutil.copytree(KRAFT_361 / "__cluster_metadata-0", log)
    segment = log / "00000000000000000000.log"
    data, pos = segment.read_bytes(), 0
    while True:
        base, length = struct.unpack_from(">qi", data, pos)
        pos += 12 + length
        if base + struct.unpack_from(">i", data, pos - 12 - length + 23)[0] == 7110:
            break
    segment.write_bytes(data[:pos] + bytes.fromhex("0000000000001bc7 00000040 ffff"))
    expected = load_image(KRAFT_361, until=7111).image
    assert load_image(log, until=7111).image.same_metadata(expected)


def test_a_batch_that_straddles_the_snapshot_s_offset_counts_from_that_offset_on(tmp_path):
    """A fetch from an offset inside a batch gets the whole batch and skips the records before that
    offset, the later ones still count: the quorum history of a log whose snapshot ends at offset 2,
    inside the batch of offsets 1..3, ends at 4 (kills ``quorum.xǁ_Readerǁbatches__mutmut_19``: an
    earlier record ending its batch)."""
    from kwire.logs.metadata_log import MetadataRecord, SnapshotId, build_snapshot
    from kwire.metadata.quorum import read_quorum_history
    from tests.metadata.appended import write_log

    def level():
        return MESSAGES["FeatureLevelRecord"](name="metadata.version", feature_level=21)

    directory = write_log(tmp_path, [[level()], [MESSAGES["NoOpRecord"]() for _ in range(3)]])
    build_snapshot([MetadataRecord(level(), 0)], timestamp=5, snapshot_id=SnapshotId(2, 1)).write(directory)
    assert read_quorum_history(directory).end_offset == 4
