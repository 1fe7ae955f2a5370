"""A Spark standalone cluster on loopback for the tests: one master and two workers, started from
the Spark that the ``pyspark`` wheel carries (``$SPARK_HOME/bin/spark-class``, SPARK_HOME being
the pyspark package directory), as README.md tells a user to start one by hand.

Each daemon runs in a process group of its own, so stopping one also ends the executors (and
their Python workers) it launched; the kernel sends the daemons SIGTERM if the process that
started them dies, so a killed test run leaves no JVM behind. Logs go to ``root/logs``, the
workers' scratch space (executor logs, shipped files) to ``root/worker-N``.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).resolve().parent
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
_PR_SET_PDEATHSIG = 1


class ClusterError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: the child should do little before exec


def _die_with_parent() -> None:
    # runs in the child between fork and exec: SIGTERM when the starting process goes away
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class StandaloneCluster:
    """``with StandaloneCluster(root) as cluster:`` ... ``cluster.url`` is ``spark://127.0.0.1:PORT``."""

    def __init__(self, root: Path, workers: int = 2, cores: int = 1, memory: str = "1g",
                 env: dict[str, str] | None = None, start_timeout: float = 120.0) -> None:
        self.root = Path(root)
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.start_timeout = start_timeout
        self.port = free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.logs = self.root / "logs"
        self.processes: dict[str, subprocess.Popen] = {}
        # No PYTHONPATH: executors must get kwire the way a real cluster does, from the shipped zip.
        self.env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        self.env.update(env or {})
        self.env.update(SPARK_HOME=str(SPARK_HOME), SPARK_LOCAL_IP="127.0.0.1", SPARK_DAEMON_MEMORY="256m",
                        SPARK_CONF_DIR=str(self.root / "conf"))

    # --- starting and stopping ---

    def start(self) -> StandaloneCluster:
        self.logs.mkdir(parents=True, exist_ok=True)
        (self.root / "conf").mkdir(exist_ok=True)  # empty: Spark's own defaults, not a user's
        atexit.register(self.stop)
        try:
            self._launch("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                         "--port", str(self.port), "--webui-port", "0")
            self._wait_for("master", "I have been elected leader")
            for n in range(self.workers):
                work = self.root / f"worker-{n}"
                work.mkdir(exist_ok=True)
                self._launch(f"worker-{n}", "org.apache.spark.deploy.worker.Worker", self.url,
                             "--host", "127.0.0.1", "--port", "0", "--webui-port", "0",
                             "--cores", str(self.cores), "--memory", self.memory, "--work-dir", str(work))
            for n in range(self.workers):
                self._wait_for(f"worker-{n}", "Successfully registered with master")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """End every daemon's process group (SIGTERM, then SIGKILL after a grace period)."""
        for process in self.processes.values():
            self._signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes.values():
            try:
                process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                pass
            self._signal_group(process, signal.SIGKILL)  # executors the worker did not end in time
            process.wait()
        self.processes.clear()
        atexit.unregister(self.stop)

    def __enter__(self) -> StandaloneCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _launch(self, name: str, main_class: str, *args: str) -> None:
        log = open(self.logs / f"{name}.log", "wb")
        with log:
            self.processes[name] = subprocess.Popen(
                [str(SPARK_HOME / "bin" / "spark-class"), main_class, *args], stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.root,
                start_new_session=True, preexec_fn=_die_with_parent)

    def _wait_for(self, name: str, line: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        log = self.logs / f"{name}.log"
        while time.monotonic() < deadline:
            if line in log.read_text(errors="replace"):
                return
            if self.processes[name].poll() is not None:
                raise ClusterError(f"{name} exited with {self.processes[name].returncode}: see {log}")
            time.sleep(0.2)
        raise ClusterError(f"{name} did not say {line!r} within {self.start_timeout:.0f}s: see {log}")

    @staticmethod
    def _signal_group(process: subprocess.Popen, sig: signal.Signals) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass

    # --- looking inside ---

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def executors(self) -> dict[int, str]:
        """Running executor JVMs of this cluster's workers: pid -> the worker's name."""
        workers = {process.pid: name for name, process in self.processes.items() if name.startswith("worker-")}
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
                parent = _parent_pid(entry)
            except OSError:  # the process ended while we looked
                continue
            if EXECUTOR_CLASS.encode() in command and parent in workers:
                found[int(entry.name)] = workers[parent]
        return found


def _parent_pid(proc_entry: Path) -> int:
    stat = (proc_entry / "stat").read_text()
    # the command name (field 2) is in parentheses and may hold spaces: fields after the last ')'
    return int(re.split(r"\s+", stat[stat.rindex(")") + 2:])[1])
