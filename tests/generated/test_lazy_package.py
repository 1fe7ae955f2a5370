"""The generated package imports a message's module only when that message is first used."""
from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
import kwire.generated as g
# (compiled by `make compile`, a module also loads its library, <module>__mypyc, and the base class)
loaded = lambda: sorted(m for m in sys.modules if m.startswith("kwire.generated.")
                        and not m.endswith("__mypyc") and m not in ("kwire.generated._base", "kwire.generated._index"))
assert loaded() == [], loaded()
# the registry by api key holds names: reading them and the header versions imports nothing
metadata = g.APIS[3]
assert (metadata.name, metadata.request_name, metadata.request_header_version(9)) == ("Metadata", "MetadataRequest", 2)
assert loaded() == [], loaded()
from kwire.generated import AlterPartitionRequest
assert loaded() == ["kwire.generated.alter_partition_request"], loaded()
assert g.MESSAGES["AlterPartitionRequest"] is AlterPartitionRequest
assert "FetchRequest" in g.MESSAGES and "kwire.generated.fetch_request" not in sys.modules
assert g.MESSAGES.get("NoSuchMessage") is None and "NoSuchMessage" not in g.MESSAGES
assert g.APIS[56].response_class.NAME == "AlterPartitionResponse"  # only its own module
assert loaded() == ["kwire.generated.alter_partition_request", "kwire.generated.alter_partition_response"], loaded()
assert len(dict(g.MESSAGES.items())) == len(g.MESSAGES) == len(g.__all__) - 2  # APIS and MESSAGES
assert len(loaded()) == len(g.MESSAGES)
"""


def test_modules_load_on_first_use() -> None:
    # A fresh interpreter: this test process has long since imported everything.
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


def test_unknown_names_are_attribute_errors() -> None:
    import kwire.generated as g

    with pytest.raises(AttributeError, match="NoSuchMessage"):
        g.NoSuchMessage  # noqa: B018
    with pytest.raises(KeyError):
        g.MESSAGES["NoSuchMessage"]
    assert "AlterPartitionRequest" in dir(g)
    with pytest.raises(TypeError):
        g.MESSAGES["X"] = None  # type: ignore[index]  # read-only: the table is the generator's
