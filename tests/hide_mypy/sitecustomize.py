"""Put on PYTHONPATH by tests/test_optional.py: this interpreter behaves as if mypy and mypyc were
not installed (find_spec finds nothing, importing them fails), as on a machine without them."""
import importlib.util
import sys

_HIDDEN = ("mypy", "mypyc")
_find_spec = importlib.util.find_spec


def _hidden(name: str) -> bool:
    return name.split(".")[0] in _HIDDEN


def _find_spec_without_mypy(name, package=None):
    return None if _hidden(name) else _find_spec(name, package)


class _HideMypy:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if _hidden(name):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


importlib.util.find_spec = _find_spec_without_mypy
sys.meta_path.insert(0, _HideMypy)
