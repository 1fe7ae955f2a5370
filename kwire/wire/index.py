"""The index of a generated package: which class is which API, record type or control record.

``kwire generate`` writes one ``_index.py`` per generated package (kwire's own and a user's alike):
a :class:`ProtocolIndex` naming, for every API, its classes, former names, header versions,
listeners and stable and deprecated versions; the KRaft metadata and ``__remote_log_metadata``
records by apiKey; the coordinator records of each coordinator topic by record type; the KRaft
control records by control type. Like Kafka's generated ``ApiMessageType`` and
``MetadataRecordType``, everything is decided when the package is generated (which of two
classes of one api key is the current name, which header version each version takes); here it is
only looked up. The index names modules and imports none: a class is imported when first asked
for, so a program that speaks one API imports that API's two modules.

:func:`load` is the one place an index is read; framing, the log readers, ``kwire.arrow``,
``kwire.spark``, fuzzing and ``kwire.testing`` take the object it returns.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from functools import cache
from types import MappingProxyType, ModuleType
from typing import Any

from .errors import KwireError, SchemaError, UnsupportedVersionError

#: Api keys whose header versions break the flexible-version rule (see :func:`kafka_header_version`).
CONTROLLED_SHUTDOWN_KEY = 7
API_VERSIONS_KEY = 18

# The topics whose records the index holds by type (the coordinators' logs, KIP-405's topic).
OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTIONS_TOPIC = "__transaction_state"
SHARE_STATE_TOPIC = "__share_group_state"
REMOTE_LOG_METADATA_TOPIC = "__remote_log_metadata"

#: Kafka's ControlRecordType (clients' ``org.apache.kafka.common.record.ControlRecordType``, 4.2.1):
#: the control record types whose value is a generated message's body (0 and 1 are
#: end-transaction markers, read by :mod:`kwire.records.control` itself).
KRAFT_CONTROL_MESSAGES: dict[int, str] = {2: "LeaderChangeMessage", 3: "SnapshotHeaderRecord",
                                          4: "SnapshotFooterRecord", 5: "KRaftVersionRecord", 6: "VotersRecord"}

DEFAULT_PACKAGE = "kwire.generated"
INDEX_MODULE = "_index"  # the module `kwire generate` writes into every package

# (lowest, highest, header version): a range of message versions and the header version they take.
HeaderRanges = tuple[tuple[int, int, int], ...]
VersionRange = tuple[int, int]  # (lowest, highest), inclusive


def kafka_header_version(kind: str, api_key: int, version: int, flexible: bool) -> int:
    """The header version Kafka gives ``version`` of a request or response without a ``headerVersions``
    table (Kafka's ``ApiMessageTypeGenerator``, 4.2.1): RequestHeader v2 at flexible versions and v1
    below, but v0 for ControlledShutdown v0 (its old header has no client id); ResponseHeader v1 at
    flexible versions and v0 below, but always v0 for ApiVersions (KIP-511: a client reads it before
    it knows which versions the broker speaks). Used by the generator only: at run time the index
    holds the answer."""
    if kind == "request":
        if api_key == CONTROLLED_SHUTDOWN_KEY and version == 0:
            return 0
        return 2 if flexible else 1
    if api_key == API_VERSIONS_KEY:
        return 0
    return 1 if flexible else 0


class UnknownApiKeyError(UnsupportedVersionError):
    """A frame of an API that the index has no definition for."""

    def __init__(self, api_key: int, detail: str = "") -> None:
        self.api_key = api_key
        super().__init__(f"no request/response definition for api key {api_key}{detail}")


class Api:
    """One API: a request and its response, as one api key names them."""

    __slots__ = (
        "_load",
        "api_key",
        "deprecated_versions",
        "former_names",
        "listeners",
        "name",
        "request_headers",
        "request_name",
        "response_headers",
        "response_name",
        "stable_versions",
        "valid_versions",
    )

    def __init__(self, api_key: int, name: str, request_name: str, response_name: str,
                 request_headers: HeaderRanges, response_headers: HeaderRanges, *,
                 valid_versions: VersionRange = (0, -1), former_names: tuple[tuple[int, int, str, str], ...] = (),
                 listeners: tuple[str, ...] = (),
                 stable_versions: VersionRange | None = None,
                 deprecated_versions: VersionRange | None = None) -> None:
        self.api_key = api_key
        self.name = name  # Kafka's name of the API: the request's name without "Request"
        self.request_name = request_name
        self.response_name = response_name
        self.request_headers = request_headers
        self.response_headers = response_headers
        # (lowest, highest, request, response) of classes kept under a name the API had before,
        # whose versions the current classes cover (ListClientMetricsResources: API 74 v0)
        self.former_names = former_names
        self.listeners = listeners
        self.valid_versions = valid_versions  # of the current request class
        self.stable_versions = stable_versions  # without a latest version marked unstable; None: none is
        self.deprecated_versions = deprecated_versions
        self._load: Any = None  # ProtocolIndex.message_class, set by the index holding this Api

    @property
    def request_class(self) -> Any:
        """The generated request class (its module imported on first use)."""
        return self._load(self.request_name)

    @property
    def response_class(self) -> Any:
        """The generated response class (its module imported on first use)."""
        return self._load(self.response_name)

    def request_header_version(self, version: int) -> int:
        """The RequestHeader version that precedes ``version`` of the request: as Kafka's
        ``ApiMessageType``, any version has one, even one the classes lack."""
        return self._header(self.request_headers, version, self.request_name)

    def response_header_version(self, version: int) -> int:
        """The ResponseHeader version that precedes ``version`` of the response."""
        return self._header(self.response_headers, version, self.response_name)

    @staticmethod
    def _header(ranges: HeaderRanges, version: int, name: str) -> int:
        for low, high, header in ranges:
            if low <= version <= high:
                return header
        raise UnsupportedVersionError(f"{name} has no version {version!r} (versions are 0..32767)")

    def __repr__(self) -> str:
        return f"Api({self.api_key}, {self.name!r})"


class ProtocolIndex:
    """Everything a generated package holds, by the numbers Kafka puts on the wire."""

    def __init__(self, package: str, *, modules: Mapping[str, str], apis: tuple[Api, ...] = (),
                 metadata_records: Mapping[int, str] = MappingProxyType({}),
                 remote_log_metadata_records: Mapping[int, str] = MappingProxyType({}),
                 coordinator_records: Mapping[str, Mapping[int, tuple[str, str]]] = MappingProxyType({}),
                 control_records: Mapping[int, str] = MappingProxyType({})) -> None:
        self.package = package
        self.modules: Mapping[str, str] = MappingProxyType(dict(modules))  # class name -> module name
        for api in apis:
            api._load = self.message_class
        self.apis: Mapping[int, Api] = MappingProxyType({api.api_key: api for api in apis})
        self.metadata_records: Mapping[int, str] = MappingProxyType(dict(metadata_records))
        self.remote_log_metadata_records: Mapping[int, str] = MappingProxyType(dict(remote_log_metadata_records))
        # coordinator topic -> record type -> (key class name, value class name)
        self.coordinator_records: Mapping[str, Mapping[int, tuple[str, str]]] = MappingProxyType(
            {topic: MappingProxyType(dict(types)) for topic, types in coordinator_records.items()})
        self.control_records: Mapping[int, str] = MappingProxyType(dict(control_records))  # control type -> name
        self._classes: dict[str, Any] = {}
        self._record_classes: tuple[dict[int, Any], dict[int, Any]] = ({}, {})  # KRaft, remote log: by apiKey

    def message_class(self, name: str) -> Any:
        """The generated class called ``name``, its module imported on first use."""
        cls = self._classes.get(name)
        if cls is None:
            module = self.modules.get(name)
            if module is None:
                raise SchemaError(f"{self.package} has no message {name!r}")
            cls = self._classes[name] = getattr(importlib.import_module(f"{self.package}.{module}"), name)
        return cls

    @property
    def messages(self) -> Mapping[str, Any]:
        """Class name -> class, each imported when first looked up (a generated package's ``MESSAGES``)."""
        return _Messages(self)

    @property
    def share_group_state_records(self) -> Mapping[int, tuple[str, str]]:
        """The ``__share_group_state`` records (the share coordinator's log) by record type."""
        return self.coordinator_records.get(SHARE_STATE_TOPIC, MappingProxyType({}))

    def api(self, api_key: int) -> Api:
        try:
            return self.apis[api_key]
        except KeyError:
            raise UnknownApiKeyError(api_key) from None

    def request_class(self, api_key: int) -> Any:
        return self.api(api_key).request_class

    def response_class(self, api_key: int) -> Any:
        return self.api(api_key).response_class

    def metadata_record_class(self, api_key: int, *, remote_log: bool = False) -> Any | None:
        """The class of a KRaft metadata record (or, with ``remote_log``, of a ``__remote_log_metadata``
        record) with this apiKey; None for a type the package does not know."""
        classes = self._record_classes[remote_log]  # a record log's hot path: one dict look-up
        cls = classes.get(api_key)
        if cls is None:
            name = (self.remote_log_metadata_records if remote_log else self.metadata_records).get(api_key)
            if name is None:
                return None
            cls = classes[api_key] = self.message_class(name)
        return cls

    def __repr__(self) -> str:
        return f"<ProtocolIndex of {self.package}: {len(self.apis)} APIs, {len(self.modules)} messages>"


class _Messages(Mapping[str, Any]):
    __slots__ = ("_index",)

    def __init__(self, index: ProtocolIndex) -> None:
        self._index = index

    def __getitem__(self, name: str) -> Any:
        if name not in self._index.modules:
            raise KeyError(name)
        return self._index.message_class(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.modules)

    def __len__(self) -> int:
        return len(self._index.modules)

    def __contains__(self, name: object) -> bool:
        return name in self._index.modules

    def __repr__(self) -> str:
        return f"<{self._index.package}.MESSAGES: {len(self._index.modules)} messages>"


def load(package: str | ModuleType | ProtocolIndex | None = None) -> ProtocolIndex:
    """The index of a generated package (its name or the module; None: kwire's own), read once."""
    if package is None:
        return _load(DEFAULT_PACKAGE)
    if isinstance(package, ProtocolIndex):
        return package
    name = DEFAULT_PACKAGE if package is None else package if isinstance(package, str) else package.__name__
    return _load(name)


@cache
def _load(package: str) -> ProtocolIndex:
    try:
        module = importlib.import_module(f"{package}.{INDEX_MODULE}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{package}.{INDEX_MODULE}":
            raise KwireError(f"{package} is not a package kwire generated (it has no {INDEX_MODULE} module); "
                             f"run `kwire generate` for it") from None
        raise KwireError(f"cannot load the generated package {package!r}: {exc}") from None
    except ImportError as exc:
        raise KwireError(f"cannot load the generated package {package!r}: {exc}") from None
    index = getattr(module, "INDEX", None)
    if not isinstance(index, ProtocolIndex):
        raise KwireError(f"{package}.{INDEX_MODULE} holds no ProtocolIndex; run `kwire generate` again")
    return index
