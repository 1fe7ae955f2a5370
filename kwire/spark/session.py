"""A SparkSession with defaults that work on a laptop and carry over to a cluster.

- master: the argument, else ``$SPARK_MASTER``, else ``local[*]``;
- no web UI, no console progress bar (kwire's commands print their own), Arrow on;
- quiet logs: the ``log4j2.properties`` shipped beside this module (errors only);
- Python workers on this interpreter (``PYSPARK_PYTHON``) unless it is set; on a cluster set
  it to the executors' interpreter;
- kwire importable in the workers: through ``PYTHONPATH`` with a local master; otherwise shipped
  as archives the executors unpack, compiled modules included (:mod:`kwire.spark.shipping`),
  unless ``ship`` is empty or the Spark setting ``spark.kwire.ship`` is ``false``;
- the ``kwire`` data source registered.

Settings made elsewhere win over these defaults: keys given in ``config`` or in
``spark-defaults.conf`` (``$SPARK_CONF_DIR`` or ``$SPARK_HOME/conf``), a ``log4j2.properties``
there, and ``PYSPARK_PYTHON`` are left alone.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

from kwire.spark.jvm_output import jvm_stderr
from kwire.spark.shipping import SHIPPED_PACKAGES, ship_packages, shipping_enabled

LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")
DEFAULT_MASTER = "local[*]"

_PANDAS_WARNING = "PySpark does not yet fully support pandas"

DEFAULTS = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}
_DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"


def resolve_master(master: str | None = None) -> str:
    return master or os.environ.get("SPARK_MASTER") or DEFAULT_MASTER


def is_local(master: str) -> bool:
    return master == "local" or master.startswith("local[")


def build_session(
    master: str | None = None,
    *,
    app_name: str = "kwire",
    config: Mapping[str, str] | None = None,
    ship: Iterable[str] = SHIPPED_PACKAGES,
    show_jvm_output: bool = True,
):
    """Get or create the SparkSession (see the module docstring for what is set up).

    ``show_jvm_output=False`` keeps the JVM's console output (log lines, stack frames of failed
    tasks) off the screen for the session's life: for commands that report errors themselves.
    """
    master = resolve_master(master)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # PySpark warns on import that it does not fully support pandas 3; kwire does not use pandas.
    warnings.filterwarnings("ignore", message=_PANDAS_WARNING, category=FutureWarning)
    packages = list(ship)
    if is_local(master):
        _add_to_pythonpath(_package_roots(packages))

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in session_config(config).items():
        builder = builder.config(key, value)
    with jvm_stderr(show_jvm_output):
        spark = builder.getOrCreate()

    if not is_local(master) and shipping_enabled(spark):
        ship_packages(spark, packages)
    # Registered last: a data source keeps the Python includes (addPyFile) known when it is
    # registered; kwire's own archives reach its tasks through the SparkFiles root either way.
    from kwire.spark.datasource import register

    register(spark)
    return spark


def session_config(config: Mapping[str, str] | None = None) -> dict[str, str]:
    """kwire's defaults, minus keys set in ``spark-defaults.conf``, plus ``config``."""
    preset = spark_defaults_keys()
    merged = {key: value for key, value in DEFAULTS.items() if key not in preset}
    merged.update(config or {})
    java_options = merged.get(_DRIVER_JAVA_OPTIONS, "")
    conf_dir = spark_conf_dir()
    own_logging = (
        _DRIVER_JAVA_OPTIONS in preset
        or "log4j2.configurationFile" in java_options
        or (conf_dir is not None and Path(conf_dir, "log4j2.properties").exists())
    )
    # the file is package data: present unless an install left it out
    if not own_logging and LOG4J2_CONFIG.exists():
        merged[_DRIVER_JAVA_OPTIONS] = f"{java_options} -Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}".strip()
    return merged


def spark_conf_dir() -> str | None:
    """Where spark-submit looks for spark-defaults.conf and log4j2.properties."""
    conf_dir = os.environ.get("SPARK_CONF_DIR")
    if not conf_dir and os.environ.get("SPARK_HOME"):
        conf_dir = os.path.join(os.environ["SPARK_HOME"], "conf")
    return conf_dir or None


def spark_defaults_keys() -> set[str]:
    """Keys set in the ``spark-defaults.conf`` that spark-submit will read, if there is one."""
    conf_dir = spark_conf_dir()
    if not conf_dir:
        return set()
    try:
        text = Path(conf_dir, "spark-defaults.conf").read_text(encoding="utf-8")
    except OSError:
        return set()
    keys = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keys.add(line.replace("=", " ").split()[0])
    return keys


def _package_roots(packages: Iterable[str]) -> list[str]:
    """The directories holding each package (what must be on a worker's sys.path)."""
    roots = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = str(Path(next(iter(spec.submodule_search_locations))).resolve().parent)
        if root not in roots:
            roots.append(root)
    return roots


def _add_to_pythonpath(roots: list[str]) -> None:
    # The JVM inherits this environment and passes PYTHONPATH on to the Python workers it starts.
    current = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    missing = [root for root in roots if root not in current]
    if missing:
        os.environ["PYTHONPATH"] = os.pathsep.join(current + missing)
