"""Bugs found in the generated codecs, each pinned by the smallest case that showed it."""
from __future__ import annotations

from kwire.generated import FetchRequest


def test_short_string_inside_a_tagged_field_keeps_the_payload_end() -> None:
    # The inline short-string reader once reused the local that held the tagged payload's end,
    # so a tagged string (FetchRequest.ClusterId, tag 0 from v12) failed to decode. Found by the
    # construct-oracle agreement test.
    request = FetchRequest(cluster_id="abc", replica_id=-1)
    for version in (12, 13, 17):
        assert FetchRequest.decode(request.encode(version), version) == request
