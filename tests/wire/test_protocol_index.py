"""``kwire.wire.index.ProtocolIndex`` built directly (kwire.generated's own index is built once, at
its import): it keeps its own read-only copy of the class -> module mapping it is given and imports
a class's module on first use. Kills ``kwire.wire.index.xǁProtocolIndexǁ__init____mutmut_3`` (the
mapping not copied: a TypeError), which the generated index's import-time construction hides from
mutmut."""
from __future__ import annotations

import pytest

from kwire.generated import ApiVersionsRequest
from kwire.wire.errors import SchemaError
from kwire.wire.index import ProtocolIndex


def test_an_index_keeps_its_own_copy_of_the_modules_and_imports_on_first_use() -> None:
    given = {"ApiVersionsRequest": "api_versions_request"}  # generated/api_versions_request.py
    index = ProtocolIndex("kwire.generated", modules=given)
    given["FetchRequest"] = "fetch_request"  # the caller's later change does not reach the index
    assert dict(index.modules) == {"ApiVersionsRequest": "api_versions_request"}
    with pytest.raises(TypeError):
        index.modules["FetchRequest"] = "fetch_request"  # type: ignore[index]
    assert index.message_class("ApiVersionsRequest") is ApiVersionsRequest
    with pytest.raises(SchemaError, match="kwire.generated has no message 'FetchRequest'"):
        index.message_class("FetchRequest")
