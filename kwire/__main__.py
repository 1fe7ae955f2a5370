"""``python -m kwire``: the ``kwire`` command."""
import importlib
import os
import sys

if getattr(sys.modules.get("kwire"), "__file__", None) is None:
    # Run from the directory that holds a clone named ``kwire``: that folder (no __init__.py) was
    # imported as a namespace package in place of the real one. Drop the working directory from
    # the path and import kwire again, so ``python -m kwire`` works from any directory.
    here = os.getcwd()
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    del sys.modules["kwire"]
    importlib.import_module("kwire")

from kwire.cli.main import main  # noqa: E402

sys.exit(main())
