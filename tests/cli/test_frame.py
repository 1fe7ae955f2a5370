"""``kwire frame``: one captured frame decoded, a request on its own, a response with its request."""
from __future__ import annotations

import json

from kwire.cli.main import main
from tests.paths import CAPTURES

RAW = CAPTURES / "librdkafka-mock" / "raw"
API_VERSIONS_REQUEST = RAW / "c01_req_0000_k18_v3_corr1.bin"
API_VERSIONS_REFUSAL = RAW / "c01_resp_0000_k18_v3_corr1.bin"  # librdkafka's mock refuses v3 (error 35)
METADATA_RESPONSE = RAW / "c01_resp_0002_k3_v13_corr3.bin"  # the mock pads it with one 00 byte


def test_a_request_says_what_it_is(capsys):
    assert main(["frame", str(API_VERSIONS_REQUEST)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ApiVersionsRequest v3 (request, api key 18, header v2)"
    assert lines[1] == ('header: {"requestApiKey": 18, "requestApiVersion": 3, "correlationId": 1, '
                        '"clientId": "cap-none"}')


def test_a_response_with_its_request_as_json(capsys):
    assert main(["frame", str(API_VERSIONS_REFUSAL), "--request", str(API_VERSIONS_REQUEST), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["kind"], out["message"], out["version"], out["headerVersion"]) == (
        "response", "ApiVersionsResponse", 3, 0)
    # the mock's refusal is neither v0 nor v3: shown as what it is, bytes included
    assert out["body"] == {"errorCode": 35, "refusedVersion": 3, "asV0": None, "raw": "00230100120000000200000000"}


def test_a_response_by_api_key_and_version_and_its_trailing_byte(capsys):
    assert main(["frame", str(METADATA_RESPONSE), "--api-key", "3", "--version", "13"]) == 1
    assert "1 bytes left after MetadataResponse v13" in capsys.readouterr().err
    assert main(["frame", str(METADATA_RESPONSE), "--api-key", "3", "--version", "13", "--allow-trailing-bytes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MetadataResponse v13 (response, api key 3, header v1)")
    assert out.rstrip().endswith("trailing bytes after the body: 00 (1 byte, kept, not decoded)")


def test_bad_usage(capsys, tmp_path):
    assert main(["frame", str(METADATA_RESPONSE), "--api-key", "3"]) == 2
    assert main(["frame", str(tmp_path / "missing.bin")]) == 2
    assert "No such file or directory" in capsys.readouterr().err
