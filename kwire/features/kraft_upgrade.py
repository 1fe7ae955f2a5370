"""A kraft.version upgrade as Kafka 4.2.1's raft leader judges it (``LeaderState.maybeAppendUpgradedKRaftVersion``).

The controller hands ``kraft.version`` upgrades to the raft layer (``FeatureControlManager`` calls
``upgradeKRaftVersion``); an ``InvalidUpdateVersionException`` comes back as INVALID_UPDATE_VERSION
(95) with its message. For an upgrade from 0 to 1 the leader compares the new level with the voter
set it keeps in memory for the upgrade (``KRaftVersionUpgrade.Voters``): the static voters
(``controller.quorum.voters``: no directory id, kraft.version 0 only), the leader's own entry
replaced by itself (its directory id, 0 to 1 on a 4.2.1 node), and each voter that sent an
UpdateRaftVoter replaced by what it sent. Every voter must support the new level ("Invalid upgrade of
kraft.version to KRAFT_VERSION_1 because not all of the voters support it") and have a directory id.

A log at kraft.version 0 holds none of that (no VotersRecord): kwire takes the leader as updated and
every other voter as static unless :attr:`ClusterFeatures.updated_voters` says what it sent
(``kwire features upgrade --updated-voter ID:DIRECTORY_ID[:MIN-MAX]``). A pending upgrade, and a
voter set changing under it, only the live leader knows; they are noted, not guessed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .feature_versions import KRAFT_VERSION


@dataclass
class KRaftUpgradeVerdict:
    message: str | None  # the InvalidUpdateVersionException's message, None when the leader accepts
    notes: list[str] = field(default_factory=list)


def _version_name(level: int) -> str:
    return f"KRAFT_VERSION_{level}"  # KRaftVersion is an enum without its own toString


def upgrade_voters(state: Any) -> dict[int, tuple[Any, tuple[int, int]]]:
    """The voter set the leader judges the upgrade against (id -> directory id or None, range)."""
    if state.raft_voters is not None and state.kraft_version >= 1:
        return dict(state.raft_voters)
    voters: dict[int, tuple[Any, tuple[int, int]]] = {i: (None, (0, 0)) for i in state.quorum_node_ids}
    if state.node_id in voters:  # LeaderState: "the static voter set with the leader updated"
        voters[state.node_id] = ("the leader's own", (0, 1))
    for voter_id, reported in state.updated_voters.items():
        if voter_id in voters and voter_id != state.node_id:  # VoterSet.updateVoterIgnoringDirectoryId
            voters[voter_id] = reported
    return voters


def judge_kraft_upgrade(state: Any, level: int, current: int) -> KRaftUpgradeVerdict:
    """Refused with Kafka's message, or accepted (the KRaftVersionRecord and VotersRecord it appends)."""
    notes = ["only the live leader knows whether another kraft.version upgrade is pending (\"Invalid concurrent "
             "upgrade of kraft.version ...\")"]
    if current > level:
        return KRaftUpgradeVerdict(f"Invalid upgrade of {KRAFT_VERSION} from version {_version_name(current)} to "
                                   f"{_version_name(level)} because the new version is a downgrade", notes)
    if current >= 1:
        # kraft.version 2 does not exist in 4.2.1: the leader has no upgrade path from 1
        return KRaftUpgradeVerdict(f"Invalid upgrade of {KRAFT_VERSION} from version {_version_name(current)} to "
                                   f"{_version_name(level)}", notes)
    voters = upgrade_voters(state)
    unsupported = sorted(i for i, (_, (low, high)) in voters.items() if not low <= level <= high)
    if unsupported:
        static = [i for i in unsupported if i not in state.updated_voters and i != state.node_id]
        if static:
            notes.append(f"voter(s) {', '.join(map(str, static))} had not sent UpdateRaftVoter as far as kwire "
                         f"knows: as static voters they support kraft.version 0 only (give what they sent with "
                         f"--updated-voter ID:DIRECTORY_ID)")
        return KRaftUpgradeVerdict(f"Invalid upgrade of {KRAFT_VERSION} to {_version_name(level)} because not all "
                                   f"of the voters support it", notes)
    notes.append(f"unless ValidateOnly, the raft leader appends a control batch: KRaftVersionRecord ({KRAFT_VERSION} "
                 f"{level}) and a VotersRecord of voters {', '.join(map(str, sorted(voters)))} "
                 "with their directory ids")
    return KRaftUpgradeVerdict(None, notes)
