"""kwire.network.versions: negotiation from hand-written ApiVersions answers, and the KIP-511 retry."""
from __future__ import annotations

import pytest

from kwire.generated import MESSAGES, ApiVersionsResponse
from kwire.generated.api_versions_response import ApiVersion
from kwire.generator.definitions.jsonc import loads as jsonc_loads
from kwire.network.errors import ErrorCode, KafkaApiError
from kwire.network.framing import UnsupportedApiVersions, parse_response_frame
from kwire.network.versions import UNSTABLE_LATEST, ApiVersionsRefused, negotiate, our_versions
from tests.paths import MESSAGE_DEFS


def answer(*ranges: tuple[int, int, int], error_code: int = 0) -> ApiVersionsResponse:
    return ApiVersionsResponse(error_code=error_code,
                               api_keys=[ApiVersion(api_key=k, min_version=lo, max_version=hi) for k, lo, hi in ranges])


def test_highest_common_version_per_api():
    produce_hi = MESSAGES["ProduceRequest"].VALID_VERSIONS[1]
    chosen = negotiate(answer((0, 3, 99), (1, 0, 4), (3, 0, 12)))
    assert chosen == {0: produce_hi, 1: 4, 3: 12}


def test_apis_only_one_side_knows_and_disjoint_ranges_are_left_out():
    fetch_hi = MESSAGES["FetchRequest"].VALID_VERSIONS[1]
    chosen = negotiate(answer((1, fetch_hi + 1, fetch_hi + 5), (30000, 0, 3), (18, 0, 3)))
    assert chosen == {18: 3}


def test_unstable_versions_only_when_asked():
    assert MESSAGES["InitProducerIdRequest"].VALID_VERSIONS[1] == 6
    assert negotiate(answer((22, 0, 6))) == {22: 5}
    assert negotiate(answer((22, 0, 6)), include_unstable=True) == {22: 6}


def test_unstable_table_matches_the_definitions():
    unstable = {}
    for path in sorted(MESSAGE_DEFS.glob("*Request.json")):
        definition = jsonc_loads(path.read_text())
        if definition.get("latestVersionUnstable") in (True, "true"):
            unstable[definition["apiKey"]] = int(str(definition["validVersions"]).split("-")[-1])
    assert UNSTABLE_LATEST == unstable
    for api_key, latest in unstable.items():
        cls = next(c for c in MESSAGES.values() if c.MESSAGE_TYPE == "request" and c.API_KEY == api_key)
        assert our_versions(cls) == (cls.VALID_VERSIONS[0], latest - 1)


def test_an_error_code_raises_its_exception():
    with pytest.raises(KafkaApiError) as raised:
        negotiate(answer(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED))
    assert raised.value.code is ErrorCode.CLUSTER_AUTHORIZATION_FAILED


# A broker that only knows ApiVersions v0-2 refusing a v4 request: its own list at v0 (KIP-511).
REFUSAL_BODY = bytes.fromhex("0023" "00000002" "0012 0000 0002" "0003 0000 000c".replace(" ", ""))


def refusal(asked: int, body: bytes = REFUSAL_BODY) -> object:
    payload = (7).to_bytes(4, "big") + body
    frame = len(payload).to_bytes(4, "big") + payload
    return parse_response_frame(frame, 18, asked).body


def test_refusal_asks_again_at_the_highest_version_the_broker_lists():
    body = refusal(4)
    assert isinstance(body, UnsupportedApiVersions)
    with pytest.raises(ApiVersionsRefused) as refused:
        negotiate(body)
    assert (refused.value.asked, refused.value.retry_version) == (4, 2)


def test_refusal_without_an_api_versions_entry_asks_v0():
    with pytest.raises(ApiVersionsRefused) as refused:
        negotiate(refusal(3, bytes.fromhex("0023" "00000001" "0003" "0000" "000c")))
    assert refused.value.retry_version == 0


def test_refusal_of_v0_is_final():
    with pytest.raises(KafkaApiError) as raised:
        negotiate(answer(error_code=35), asked=0)
    assert raised.value.code is ErrorCode.UNSUPPORTED_VERSION and not isinstance(raised.value, ApiVersionsRefused)
