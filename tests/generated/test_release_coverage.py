"""kwire speaks every (API, version) pair any release with JSON definitions spoke (issue 26).

The union comes from the committed release tables (``kwire/network/release_versions.json``, read
through :mod:`kwire.network.releases`), derived from each release's own definitions; for each pair
``kwire.generated.MESSAGES`` must hold a request and a response class of that api key whose valid
versions include it. Nothing is allowed to be missing: a pair kwire cannot restore fails here.
"""
from __future__ import annotations

from kwire.generated import APIS, MESSAGES
from kwire.network.releases import release_tables


def spoken_by_some_release() -> dict[tuple[int, int], list[str]]:
    """(api key, version) -> the releases that spoke it."""
    spoken: dict[tuple[int, int], list[str]] = {}
    for release in release_tables().releases:
        for key, (_, low, high, _) in release.apis.items():
            for version in range(low, high + 1):
                spoken.setdefault((key, version), []).append(release.name)
    return spoken


def test_the_tables_reach_from_the_first_json_release_to_4_2_1():
    names = [release.name for release in release_tables().releases]
    assert names[0] == "2.2.0" and names[-1] == "4.2.1" and "3.8.0" in names
    assert len(names) == 56  # every release 2.2.0-4.2.1: no gap (release-gaps)
    assert len(spoken_by_some_release()) >= 354


def missing_pairs(messages) -> list[str]:
    """Each (kind, api key, version) some release spoke that no class of ``messages`` covers."""
    classes: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for cls in messages:
        if cls.MESSAGE_TYPE in ("request", "response"):
            classes.setdefault((cls.MESSAGE_TYPE, cls.API_KEY), []).append(cls.VALID_VERSIONS)
    return [f"{kind} {key} v{version} (spoken by {releases[0]}-{releases[-1]})"
            for (key, version), releases in sorted(spoken_by_some_release().items())
            for kind in ("request", "response")
            if not any(low <= version <= high for low, high in classes.get((kind, key), []))]


def test_every_pair_any_release_spoke_has_its_request_and_response_classes():
    assert missing_pairs(MESSAGES.values()) == []


def test_a_version_kwire_lacked_would_be_named():
    # ListOffsets as kwire shipped it before the restore (v1-11): v0, spoken by 2.2.0-3.9.2, is missing
    class OldListOffsetsRequest:
        MESSAGE_TYPE, API_KEY, VALID_VERSIONS = "request", 2, (1, 11)

    others = [cls for cls in MESSAGES.values() if cls.__name__ != "ListOffsetsRequest"]
    assert missing_pairs([*others, OldListOffsetsRequest]) == ["request 2 v0 (spoken by 2.2.0-3.9.2)"]


def test_every_pair_is_in_the_api_table_under_its_current_name():
    # APIS (what framing and clients use) reaches every spoken version too, with a header version
    for (key, version) in spoken_by_some_release():
        api = APIS[key]
        assert api.request_class.VALID_VERSIONS[0] <= version <= api.request_class.VALID_VERSIONS[1], (key, version)
        assert api.response_class.VALID_VERSIONS[0] <= version <= api.response_class.VALID_VERSIONS[1], (key, version)
        assert api.request_header_version(version) in (0, 1, 2)
        assert api.response_header_version(version) in (0, 1)
