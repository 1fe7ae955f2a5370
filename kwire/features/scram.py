"""``kafka-storage format --add-scram 'SCRAM-SHA-256=[name=alice,password=...]'``: the
UserScramCredentialRecord Kafka puts into the bootstrap records.

Followed: Kafka's ``ScramParser`` (metadata/.../metadata/storage/ScramParser.java, trunk 1eb7644,
where Kafka 3.9's StorageTool parser moved; same messages) and ``ScramFormatter``/``ScramMechanism``
(clients/.../security/scram/internals, 3.9): a random salt (:func:`kafka_random_salt`) unless ``salt`` is
given (base64),
4096 iterations unless ``iterations`` (4096 to 16384), ``saltedPassword = Hi(UTF-8 password, salt,
iterations)`` (PBKDF2 with HMAC-SHA-256/512), ``storedKey = H(HMAC(saltedPassword, "Client Key"))``,
``serverKey = HMAC(saltedPassword, "Server Key")``; or a given ``saltedpassword`` (base64, with
``salt``). Checked against Kafka's ScramFormatter compiled with javac (tests/data/kafka-checkpoints/kafka-scram.tsv).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .errors import FeatureError

#: ScramMechanism: name -> (type, enum name, hash, min and max iterations)
MECHANISMS = {
    "SCRAM-SHA-256": (1, "SCRAM_SHA_256", "sha256", 4096, 16384),
    "SCRAM-SHA-512": (2, "SCRAM_SHA_512", "sha512", 4096, 16384),
}
DEFAULT_ITERATIONS = 4096


def kafka_random_salt() -> bytes:
    """``ScramFormatter.secureRandomBytes``: the UTF-8 text of a random 130-bit number in base 36
    (``new BigInteger(130, random).toString(Character.MAX_RADIX)``): up to 26 of ``0-9a-z``."""
    number = int.from_bytes(os.urandom(17), "big") & ((1 << 130) - 1)
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if number == 0:
            return digits.encode("ascii")


@dataclass(frozen=True)
class ScramArgument:
    """One parsed ``--add-scram`` (``ScramParser.PerMechanismData``)."""

    mechanism: str
    name: str
    salt: bytes | None = None
    iterations: int | None = None
    password: str | None = None
    salted_password: bytes | None = None


def split_component(text: str) -> tuple[str, str]:
    """``ScramParser.splitTrimmedConfigStringComponent``: ``key=value``, a quoted value unquoted."""
    key, equals, value = text.partition("=")
    if not equals:
        raise FeatureError(f"No equals sign found in SCRAM component: {text}")
    if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return key, value


def _java_base64(text: str, what: str) -> bytes:
    """``Base64.getDecoder().decode``: the basic alphabet, padding optional but not wrong."""
    if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text) or len(text.rstrip("=")) % 4 == 1:
        raise FeatureError(f"Failed to decode given {what}: {text}")
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error:
        raise FeatureError(f"Failed to decode given {what}: {text}") from None


def _java_trim(text: str) -> str:
    return text.strip("".join(chr(c) for c in range(33)))


def parse_scram_argument(text: str) -> ScramArgument:
    """``ScramParser.parsePerMechanismArgument`` then ``PerMechanismData(mechanism, config)``."""
    text = _java_trim(text)
    mechanism, equals, config = text.partition("=")
    if not equals:
        raise FeatureError(f"Failed to find equals sign in SCRAM argument '{text}'")
    if mechanism not in MECHANISMS:
        raise FeatureError(f"The add-scram mechanism {mechanism} is not supported.")
    if not config.startswith("["):
        raise FeatureError("Expected configuration string to start with [")
    if not config.endswith("]"):
        raise FeatureError("Expected configuration string to end with ]")
    components: dict[str, str] = {}
    for part in _java_split_comma(config[1:-1]):
        key, value = split_component(part)
        components[key] = value
    name = components.pop("name", None)
    if name is None:
        raise FeatureError("You must supply 'name' to add-scram")
    salt_text = components.pop("salt", None)
    salt = None if salt_text is None else _java_base64(salt_text, "salt")
    iterations_text = components.pop("iterations", None)
    iterations = None
    if iterations_text is not None:
        if not re.fullmatch(r"[+-]?\d+", iterations_text) or not -(1 << 31) <= int(iterations_text) < 1 << 31:
            raise FeatureError(f"Failed to parse iterations count: {iterations_text}")
        iterations = int(iterations_text)
    password = components.pop("password", None)
    salted_text = components.pop("saltedpassword", None)
    salted = None
    if password is None:
        if salted_text is None:
            raise FeatureError("You must supply one of 'password' or 'saltedpassword' to add-scram")
        if salt is None:
            raise FeatureError("You must supply 'salt' with 'saltedpassword' to add-scram")
        salted = _java_base64(salted_text, "saltedPassword")
    if components:
        raise FeatureError(f"Unknown SCRAM configurations: {', '.join(sorted(components))}")
    return ScramArgument(mechanism, name, salt, iterations, password, salted)


def _java_split_comma(text: str) -> list[str]:
    """``String.split(",")``: trailing empty parts dropped (an empty string stays one empty part)."""
    parts = text.split(",")
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def scram_credential_record(argument: ScramArgument, random_salt: Callable[[], bytes] = kafka_random_salt):
    """``PerMechanismData.toRecord``: the UserScramCredentialRecord (version 0)."""
    from kwire.generated.user_scram_credential_record import UserScramCredentialRecord

    mechanism_type, enum_name, digest, low, high = MECHANISMS[argument.mechanism]
    salt = argument.salt if argument.salt is not None else random_salt()
    iterations = argument.iterations if argument.iterations is not None else DEFAULT_ITERATIONS
    if iterations < low:
        raise FeatureError(f"The 'iterations' value must be >= {low} for add-scram using {enum_name}")
    if iterations > high:
        raise FeatureError(f"The 'iterations' value must be <= {high} for add-scram using {enum_name}")
    if argument.salted_password is not None:
        salted = argument.salted_password
    else:
        password = (argument.password or "").encode("utf-8")
        if not password:  # javax.crypto refuses an empty HMAC key: Kafka fails with "Empty key"
            raise FeatureError(f"add-scram for {argument.name}: the password is empty (Kafka's ScramFormatter "
                               f"fails with IllegalArgumentException: Empty key)")
        salted = hashlib.pbkdf2_hmac(digest, password, salt, iterations)
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    return UserScramCredentialRecord(
        name=argument.name, mechanism=mechanism_type, salt=salt,
        stored_key=hashlib.new(digest, client_key).digest(),
        server_key=hmac.new(salted, b"Server Key", digest).digest(), iterations=iterations)


def check_scram_supported(metadata_version_level: int) -> None:
    """``Formatter.calculateBootstrapMetadata``: SCRAM records need metadata.version 3.5-IV2 or later."""
    from .metadata_version import from_level

    if not from_level(metadata_version_level).is_scram_supported:
        raise FeatureError("SCRAM is only supported in metadata.version 3.5-IV2 or later.")


def scram_records(arguments: Iterable[str], random_salt: Callable[[], bytes] = kafka_random_salt) -> list:
    """``ScramParser.parse``: one record (version 0) per ``--add-scram``, each as a MetadataRecord."""
    from kwire.logs.metadata_log import MetadataRecord

    return [MetadataRecord(scram_credential_record(parse_scram_argument(a), random_salt), 0) for a in arguments]
