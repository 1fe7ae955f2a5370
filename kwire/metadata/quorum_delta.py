"""Changes to the quorum part, from the raft layer's control records: LeaderChangeMessage (who
leads each epoch), KRaftVersionRecord and VotersRecord (KIP-853).

They are not metadata records: Kafka's raft layer keeps them apart from the metadata delta, and a
metadata transaction does not hold them (the loader commits them with every batch)."""
from __future__ import annotations

from dataclasses import replace

from kwire.generated import KRaftVersionRecord, LeaderChangeMessage, VotersRecord
from kwire.metadata.image import LeaderEpoch, QuorumImage, VersionRange, Voter


class QuorumDelta:
    def __init__(self, image: QuorumImage) -> None:
        self.image = image
        self.kraft_version = image.kraft_version
        self.voters = image.voters
        self.leaders: list[LeaderEpoch] = []  # new epochs, after the image's
        self.state_file_leader = image.state_file_leader

    @property
    def changed(self) -> bool:
        return bool(self.leaders) or (self.kraft_version, self.voters, self.state_file_leader) != \
            (self.image.kraft_version, self.image.voters, self.image.state_file_leader)

    def replay_leader_change(self, record: LeaderChangeMessage, *, epoch: int, offset: int) -> None:
        """The leader of ``epoch`` (the batch's partition leader epoch), from ``offset`` on."""
        self.leaders.append(LeaderEpoch(
            epoch=epoch, leader_id=record.leader_id, offset=offset,
            voters=tuple(v.voter_id for v in record.voters),
            granting_voters=tuple(v.voter_id for v in record.granting_voters)))

    def replay_kraft_version(self, record: KRaftVersionRecord) -> None:
        self.kraft_version = record.kraft_version

    def replay_voters(self, record: VotersRecord) -> None:
        self.voters = tuple(
            Voter(v.voter_id, v.voter_directory_id, tuple((e.name, e.host, e.port) for e in v.endpoints),
                  VersionRange(v.kraft_version_feature.min_supported_version,
                               v.kraft_version_feature.max_supported_version))
            for v in record.voters)

    def newer_leader_from_state_file(self, leader_id: int, epoch: int) -> None:
        """``quorum-state`` names a newer epoch than any LeaderChangeMessage replayed (the log that
        held it was cleaned)."""
        self.state_file_leader = (leader_id, epoch)

    def apply(self) -> QuorumImage:
        if not self.changed:
            return self.image
        return replace(self.image, kraft_version=self.kraft_version, voters=self.voters,
                       leaders=self.image.leaders + tuple(self.leaders), state_file_leader=self.state_file_leader)
