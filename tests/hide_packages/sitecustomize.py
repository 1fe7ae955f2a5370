"""Put on PYTHONPATH by tests/test_optional.py: this interpreter behaves as if the packages named in
KWIRE_HIDDEN_PACKAGES (comma-separated top-level names, e.g. ``mypy,mypyc``) were not installed:
importing them fails and find_spec finds nothing, as on a machine without them.

The path finder itself is told, not only sys.meta_path: pytest's assertion rewriter, which sits
first on sys.meta_path, asks the path finder for the modules of a pytest plugin's distribution."""
import importlib.machinery
import os

_HIDDEN = frozenset(name.strip() for name in os.environ.get("KWIRE_HIDDEN_PACKAGES", "").split(",") if name.strip())
_find_spec = importlib.machinery.PathFinder.find_spec


def _find_spec_hiding(cls, fullname, path=None, target=None):
    if fullname.split(".")[0] in _HIDDEN:
        return None
    return _find_spec(fullname, path, target)


if _HIDDEN:
    importlib.machinery.PathFinder.find_spec = classmethod(_find_spec_hiding)
