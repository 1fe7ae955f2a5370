"""Targets for the KRaft metadata log (:mod:`kwire.logs.metadata_log`).

* ``metadata:value`` decodes one framed record value (frameVersion, apiKey, version varints, then
  the body), leniently and then strictly;
* ``metadata:log`` reads a segment or snapshot buffer batch by batch, records decoded (with the
  records API's default decompression cap: the mutated inputs never inflate beyond 256 KiB);
* ``metadata:snapshot`` reads a snapshot and checks its header/footer structure;
* ``metadata:quorum-state`` parses a ``quorum-state`` file (JSON);
* ``metadata:image`` replays a segment or snapshot into the metadata image (:mod:`kwire.metadata`)
  and writes it back at its own level and two lower ones, and at its own level as Kafka 4.2.1
  would, so that records which decode but make no sense (a change to a partition that does not
  exist, an unknown level) meet the replay rules and both releases' writer rules.
"""
from __future__ import annotations

from kwire.logs.metadata_log import (
    decode_metadata_value,
    encode_metadata_value,
    parse_quorum_state,
    read_metadata_log,
    read_snapshot,
)

from ..values import case_instance
from .codec_targets import mutate_json_text
from .corpus import corpus_files, kraft_entries, kraft_record_bodies, split_entries
from .record_inputs import mutate_records, reseal_crcs
from .record_targets import DECOMPRESSION_MEMORY
from .target import Target


def _decode_value(data: bytes) -> None:
    decode_metadata_value(data)
    decode_metadata_value(data, strict=True)


def _value_seeds() -> list[bytes]:
    from kwire.generated import MESSAGES

    seeds = []
    for (api_key, version), bodies in sorted(kraft_record_bodies().items()):
        seeds += [b"\x01" + bytes((api_key, version)) + body for body in bodies[:3] if api_key < 0x80]
    for _, cls in sorted(MESSAGES.items()):
        if getattr(cls, "MESSAGE_TYPE", None) == "metadata":
            version = cls.VALID_VERSIONS[1]
            seeds.append(encode_metadata_value(case_instance(cls, version, 0, 0), version))
    return seeds


def _decode_log(data: bytes) -> None:
    for _ in read_metadata_log(data, allow_truncated=True):
        pass


def _decode_snapshot(data: bytes) -> None:
    read_snapshot(data)


def _snapshot_seeds() -> list[bytes]:
    return [path.read_bytes() for path in corpus_files("kraft-*/**/*.checkpoint")]


def _decode_quorum_state(data: bytes) -> None:
    parse_quorum_state(data)


def _quorum_state_seeds() -> list[bytes]:
    found = [path.read_bytes() for path in corpus_files("kraft-*/**/quorum-state")]
    return found or [b'{"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,'
                     b'"currentVoters":[{"voterId":1}],"data_version":0}']


def _replay_image(data: bytes) -> None:
    from kwire.metadata.loader import load_image_bytes
    from kwire.metadata.writer import write_image

    image = load_image_bytes(data, snapshot=False).image
    # at its own level, 3.3-IV3 and 3.2-IV0 by its own release's rules; at its own level by 4.2.1's
    for level, release in ((None, None), (7, None), (3, None), (None, "4.2")):
        write_image(image, level, release=release)


#: Batches of a real log fed whole to the image replay: enough to register a broker and create topics.
IMAGE_SEED_BATCHES = 120


def _image_seeds() -> list[bytes]:
    seeds = [path.read_bytes() for path in corpus_files("kraft-*/**/*.checkpoint")]
    for path in corpus_files("kraft-*/__cluster_metadata-0/*.log"):
        seeds.append(b"".join(split_entries(path.read_bytes())[:IMAGE_SEED_BATCHES]))
    return seeds


def metadata_targets() -> list[Target]:
    return [
        Target("metadata:value", _decode_value, _value_seeds, weight=10),
        Target("metadata:log", _decode_log, lambda: list(kraft_entries()), weight=15,
               extra_memory=DECOMPRESSION_MEMORY, mutators=(mutate_records,), fixup=reseal_crcs),
        Target("metadata:snapshot", _decode_snapshot, _snapshot_seeds, weight=5,
               extra_memory=DECOMPRESSION_MEMORY, mutators=(mutate_records,), fixup=reseal_crcs),
        Target("metadata:quorum-state", _decode_quorum_state, _quorum_state_seeds, weight=3,
               mutators=(mutate_json_text,), structural_share=0.6),
        Target("metadata:image", _replay_image, _image_seeds, weight=3, extra_memory=DECOMPRESSION_MEMORY,
               mutators=(mutate_records,), fixup=reseal_crcs),
    ]
