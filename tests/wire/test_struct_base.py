"""GeneratedStruct's entry points and the unsigned-varint reader: what the mutation run found
unchecked by the wire and record tests (tests/README.md)."""
from __future__ import annotations

import pytest

from kwire.generated import SaslHandshakeRequest
from kwire.wire.errors import DecodeError, UnsupportedVersionError
from kwire.wire.varint import read_uvarint

REQUEST = SaslHandshakeRequest(mechanism="PLAIN")
WIRE = REQUEST.encode(1)  # int16 length + "PLAIN"


@pytest.mark.parametrize("make", [bytes, bytearray, memoryview], ids=["bytes", "bytearray", "memoryview"])
def test_read_takes_any_buffer_and_returns_the_end(make) -> None:
    assert WIRE == b"\x00\x05PLAIN"
    assert SaslHandshakeRequest.read(make(b"\xff" + WIRE + b"\xee"), 1, 1) == (REQUEST, 1 + len(WIRE))


@pytest.mark.parametrize("pos", [-1, len(WIRE) + 1])
def test_read_refuses_a_start_outside_the_buffer(pos: int) -> None:
    with pytest.raises(DecodeError) as raised:
        SaslHandshakeRequest.read(WIRE, pos, 1)
    assert raised.value.offset == pos and raised.value.reason == f"start position {pos} is outside the buffer"


@pytest.mark.parametrize("version", [-1, 2, 99])
def test_decode_refuses_a_version_outside_the_valid_range(version: int) -> None:
    with pytest.raises(UnsupportedVersionError):
        SaslHandshakeRequest.decode(WIRE, version)


def test_unsigned_varint_errors_name_the_problem_and_the_offset() -> None:
    # the offset is where the varint starts (kwire.wire.varint reads every varint, bounded by ``end``)
    assert read_uvarint(b"\x00\xff\xff\xff\xff\x0f", 1, 6) == (2**32 - 1, 6)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\x00\x80\x80", 1, 3)
    assert (raised.value.reason, raised.value.offset) == ("truncated unsigned varint", 1)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\x00\x80\x80\x80\x80\x80\x01", 1, 7)
    assert (raised.value.reason, raised.value.offset) == ("unsigned varint is longer than 5 bytes", 1)
    with pytest.raises(DecodeError) as raised:
        read_uvarint(b"\xff\xff\xff\xff\x1f", 0, 5)
    assert (raised.value.reason, raised.value.offset) == ("unsigned varint exceeds 32 bits", 0)


# --- equality, repr and hashing: written once in GeneratedStruct, driven by FIELDS -----------

def test_equality_compares_every_field_and_the_unknown_tagged_fields() -> None:
    from kwire.generated.describe_acls_response import AclDescription, DescribeAclsResource

    first = AclDescription(principal="User:a", host="*", operation=3, permission_type=3)
    assert first == AclDescription(principal="User:a", host="*", operation=3, permission_type=3)
    for changed in ({"principal": "User:b"}, {"host": "h"}, {"operation": 4}, {"permission_type": 2},
                    {"unknown_tagged_fields": ((5, b"x"),)}):
        other = AclDescription(**{"principal": "User:a", "host": "*", "operation": 3, "permission_type": 3, **changed})
        assert first != other and not first == other, changed
    # another class, even one with the same field values, is not equal: each side says NotImplemented
    assert first.__eq__(DescribeAclsResource()) is NotImplemented and first.__eq__((1, 2)) is NotImplemented
    assert AclDescription() != DescribeAclsResource() and AclDescription() != object()


def test_a_subclass_instance_compares_by_its_fields_from_either_side() -> None:
    from kwire.generated.describe_acls_response import AclDescription

    class Mine(AclDescription):
        __slots__ = ()

    assert Mine(host="h") == AclDescription(host="h") and AclDescription(host="h") == Mine(host="h")
    assert Mine(host="h") != AclDescription(host="i")


def test_equality_reads_fields_a_decoder_left_to_their_first_read() -> None:
    from kwire.generated.describe_acls_response import DescribeAclsResource, DescribeAclsResponse

    # an empty array is left unset by the pure reader and made on first access: equal to []
    decoded = DescribeAclsResponse.decode(DescribeAclsResponse().encode(3), 3)
    assert decoded == DescribeAclsResponse() and DescribeAclsResponse() == decoded
    assert decoded != DescribeAclsResponse(resources=[DescribeAclsResource()])


def test_repr_names_the_class_and_every_field_in_definition_order() -> None:
    from kwire.generated.describe_acls_response import AclDescription, DescribeAclsResource

    resource = DescribeAclsResource(resource_name="t", acls=[AclDescription(principal="User:a")],
                                    unknown_tagged_fields=((7, b"\x01"),))
    assert repr(resource) == (
        "DescribeAclsResource(resource_type=0, resource_name='t', pattern_type=3, "
        "acls=[AclDescription(principal='User:a', host='', operation=0, permission_type=0, unknown_tagged_fields=())], "
        "unknown_tagged_fields=((7, b'\\x01'),))")


def test_instances_are_mutable_so_not_hashable() -> None:
    from kwire.generated.describe_acls_response import AclDescription

    with pytest.raises(TypeError, match="unhashable type: 'AclDescription'"):
        hash(AclDescription())


def test_help_and_ides_show_the_same_unknown_tagged_fields_text() -> None:
    # IDEs read the attribute docstring GeneratedStruct declares; help() the slot of each class
    import ast
    import inspect

    from kwire.generated.describe_acls_response import AclDescription
    from kwire.wire import struct_base

    body = next(node for node in ast.parse(inspect.getsource(struct_base)).body
                if isinstance(node, ast.ClassDef) and node.name == "GeneratedStruct").body
    (index,) = [i for i, node in enumerate(body)
                if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "unknown_tagged_fields"]
    docstring = body[index + 1]
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    # (help() finds a slot's doc in its class's __slots__ dict, as inspect.getdoc does)
    assert docstring.value.value == inspect.getdoc(AclDescription.unknown_tagged_fields)
    assert "kept as they came" in docstring.value.value
