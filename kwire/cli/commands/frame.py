"""``kwire frame FILE``: decode one captured frame (size prefix included), a request or a response.

A request says what it is (its header names the API and version). A response does not: give its
request's frame with ``--request FILE``, or ``--api-key`` and ``--version``. Text output is the
header and Kafka's JSON form of the body; ``--json`` prints one JSON object.

Exit status: 0 decoded, 1 the bytes do not decode, 2 bad usage, an unreadable or empty file (worded as
every command words an empty file, :mod:`kwire.logs.damage`).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kwire.cli.commands import add_command, plural
from kwire.cli.errors import fail
from kwire.logs.damage import empty_file
from kwire.network.framing import Correlator, RequestFrame, ResponseFrame, UnsupportedApiVersions
from kwire.wire.errors import KwireError


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "frame",
                    description="Decode one size-prefixed frame: a request, or a response given its request "
                                   "(--request) or its api key and version.",
                    exit_status="0 decoded, 1 does not decode, 2 bad usage, an unreadable or empty file.")
    p.add_argument("file", type=Path, metavar="FILE", help="the frame, with its int32 size prefix")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--request", type=Path, metavar="FILE", help="FILE is a response: this is its request's frame")
    how.add_argument("--api-key", type=int, metavar="N", help="FILE is a response to this API (needs --version)")
    p.add_argument("--version", type=int, metavar="V", help="the request's version (with --api-key)")
    p.add_argument("--allow-trailing-bytes", action="store_true",
                   help="accept bytes after the body (some peers pad frames); they are shown, not dropped")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (args.api_key is None) != (args.version is None):
        print("kwire frame: --api-key and --version go together", file=sys.stderr)
        return 2
    try:
        frame = args.file.read_bytes()
        request = args.request.read_bytes() if args.request else None
    except OSError as exc:
        return fail("frame", f"{exc.filename}: {exc.strerror}", 2)
    for path, data in ((args.file, frame), (args.request, request)):
        if data is not None and not data:  # nothing to decode is unusable input, as in every command
            return fail("frame", f"{empty_file(path, holding='frame')}", 2)
    correlator = Correlator(allow_trailing_bytes=args.allow_trailing_bytes)
    try:
        if request is not None:
            correlator.parse_request(request)
            parsed: RequestFrame | ResponseFrame = correlator.parse_response(frame)
        elif args.api_key is not None:
            correlation_id = int.from_bytes(frame[4:8], "big", signed=True) if len(frame) >= 8 else 0
            correlator.expect(correlation_id, args.api_key, args.version)
            parsed = correlator.parse_response(frame)
        else:
            parsed = correlator.parse_request(frame)
    except KwireError as exc:
        return fail("frame", f"{args.file}: {exc}", 1)
    described = describe(parsed)
    if args.json:
        print(json.dumps(described, ensure_ascii=False))
    else:
        print(text(described))
    return 0


def describe(parsed: RequestFrame | ResponseFrame) -> dict[str, Any]:
    """The frame as one JSON-ready object: kind, API, versions, header and body."""
    is_request = isinstance(parsed, RequestFrame)
    body = parsed.body
    version = parsed.api_version
    if isinstance(body, UnsupportedApiVersions):
        fallback = None if body.fallback is None else body.fallback.to_dict(0)
        body_json: Any = {"errorCode": body.error_code, "refusedVersion": body.requested_version,
                          "asV0": fallback, "raw": body.raw.hex()}
        name = "ApiVersionsResponse"
    else:
        body_json, name = body.to_dict(version), type(body).NAME
    return {
        "kind": "request" if is_request else "response",
        "message": name,
        "apiKey": parsed.api_key,
        "version": version,
        "headerVersion": parsed.header_version,
        "header": parsed.header.to_dict(parsed.header_version),
        "body": body_json,
        "trailingBytes": parsed.trailing.hex(),
    }


def text(described: dict[str, Any]) -> str:
    lines = [f"{described['message']} v{described['version']} ({described['kind']}, api key {described['apiKey']}, "
             f"header v{described['headerVersion']})",
             f"header: {json.dumps(described['header'], ensure_ascii=False)}",
             f"body: {json.dumps(described['body'], ensure_ascii=False, indent=2)}"]
    if described["trailingBytes"]:
        lines.append(f"trailing bytes after the body: {described['trailingBytes']} "
                     f"({plural(len(described['trailingBytes']) // 2, 'byte')}, kept, not decoded)")
    return "\n".join(lines)
