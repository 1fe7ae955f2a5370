"""A mypyc-compiled build of part of generated/, for running codec tests against both builds.

Compiling every module takes minutes, so the tests compile a representative subset (the
benchmark messages, the hand-worked vectors' messages, KRaft records with uuids and arrays)
into ``build/kwire-compiled/<key>/`` once, where the key hashes the compiled sources, mypyc's
version and the Python that builds; ``build/kwire-compiled/.build`` keeps the object cache, so
new sources recompile only the modules that changed (about a minute of CPU from nothing). The package is named
``kwcompiled``; its other modules stay pure Python, exactly as in a partially compiled install. The benchmarks use
the same build.
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType

from tests.paths import REPO

PACKAGE = "kwcompiled"
SUBSET = frozenset({
    "ApiVersionsRequest", "ApiVersionsResponse", "MetadataRequest", "MetadataResponse", "FetchResponse",
    "OffsetCommitRequest", "OffsetFetchResponse",
    "UpdateFeaturesRequest", "FeatureLevelRecord", "QuorumStateData", "TopicRecord", "PartitionRecord",
    "RegisterBrokerRecord",
})
CACHE = REPO / "build" / "kwire-compiled"


def compiled_package() -> ModuleType:
    """Build (or reuse) the compiled subset and import it.

    Raises kwire.generator.native.build.CompileUnavailable when there is no mypyc or C compiler.
    """
    from kwire.generator.definitions.loader import load_definitions
    from kwire.generator.native.build import cached_build, extension_suffix

    root = cached_build(load_definitions([REPO / "message_defs"]), PACKAGE, CACHE, only=set(SUBSET))
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    package = importlib.import_module(PACKAGE)
    for name in SUBSET:
        module = sys.modules[package.MESSAGES[name].__module__]
        # tests of the compiled build must not pass by running the .py fallback
        if not (module.__file__ or "").endswith(extension_suffix()):
            raise ImportError(f"{module.__name__} was imported from {module.__file__}, not compiled")
    return package
