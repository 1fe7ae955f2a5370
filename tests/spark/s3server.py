"""An S3-compatible server on loopback for the tests: moto's server (its WSGI app, the one
``moto_server`` runs) under werkzeug, behind an access log of our own that records, per request,
the method, the object, the ``Range`` header and the body bytes the server sent back: the
server's own count of what a reader fetched.

It can also hold object reads (``hold_reads``): GETs of more than a batch header (12 bytes) wait
until released, so a test can act while Spark tasks are known to be in the middle of reading, after
planning (which reads only headers) is done.
"""
from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import make_server

REGION = "us-east-1"


@dataclass(frozen=True)
class Access:
    method: str
    path: str  # /bucket/key
    query: str
    range: str | None
    status: int
    body_bytes: int


def _range_length(environ) -> int | None:
    """How many bytes a ``Range: bytes=A-B`` header asks for (None without one)."""
    match = re.fullmatch(r"bytes=(\d+)-(\d+)", environ.get("HTTP_RANGE", ""))
    return None if match is None else int(match[2]) - int(match[1]) + 1


class _QuietHandler(MotoRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # the access log below replaces werkzeug's lines
        pass


class S3Server:
    """``with S3Server() as s3:`` ... ``s3.env`` holds the AWS variables that point clients at it."""

    def __init__(self, listening: socket.socket | None = None) -> None:
        """``listening``: a socket already bound and listening on loopback to serve on (so its
        address can be known, and handed to processes, before the server starts)."""
        self.accesses: list[Access] = []
        self._lock = threading.Lock()
        self._reads_open = threading.Event()
        self._reads_open.set()
        self.held = 0  # GETs waiting now
        self._server = make_server("127.0.0.1", 0, self._app, threaded=True, request_handler=_QuietHandler,
                                   fd=None if listening is None else listening.fileno())
        self._moto = DomainDispatcherApplication(create_backend_app)
        self._thread = threading.Thread(target=self._server.serve_forever, name="s3-server", daemon=True)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.env = {
            "AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": "kwire-tests",
            "AWS_SECRET_ACCESS_KEY": "kwire-tests-secret", "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION,
        }

    def __enter__(self) -> S3Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._reads_open.set()
        self._server.shutdown()
        self._thread.join()

    # --- the access log ---

    def _app(self, environ, start_response) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"]
        if method == "GET" and environ.get("QUERY_STRING", "") == "" and _range_length(environ) != 12:
            with self._lock:
                self.held += 1
            self._reads_open.wait()
            with self._lock:
                self.held -= 1
        status = []

        def recording_start(code, headers, *rest):
            status.append(int(code.split()[0]))
            return start_response(code, headers, *rest)

        # moto answers from memory: gather the body, log it, then send it, so that the log holds
        # every request whose answer a client has seen
        response = self._moto(environ, recording_start)
        try:
            body = b"".join(response)
        finally:
            getattr(response, "close", lambda: None)()
        with self._lock:
            self.accesses.append(Access(method, unquote(environ.get("PATH_INFO", "")),
                                        environ.get("QUERY_STRING", ""), environ.get("HTTP_RANGE"),
                                        status[0] if status else 0, len(body)))
        return [body]

    def mark(self) -> int:
        """A position in the access log, for :meth:`since`."""
        with self._lock:
            return len(self.accesses)

    def since(self, mark: int) -> list[Access]:
        with self._lock:
            return self.accesses[mark:]

    # --- holding reads ---

    def hold_reads(self) -> None:
        self._reads_open.clear()

    def release_reads(self) -> None:
        self._reads_open.set()

    def wait_for_held(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.held >= count:
                return True
            time.sleep(0.05)
        return False

    # --- data ---

    def upload(self, local: Path, bucket: str, prefix: str) -> list[str]:
        """Every file under ``local`` to ``s3://bucket/prefix/...`` (with boto3); their keys."""
        import boto3

        client = boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION,
                              aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
                              aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"])
        existing = {b["Name"] for b in client.list_buckets().get("Buckets", [])}
        if bucket not in existing:
            client.create_bucket(Bucket=bucket)
        keys = []
        for path in sorted(p for p in Path(local).rglob("*") if p.is_file()):
            key = f"{prefix}/{path.relative_to(local).as_posix()}"
            client.put_object(Bucket=bucket, Key=key, Body=path.read_bytes())
            keys.append(key)
        return keys
