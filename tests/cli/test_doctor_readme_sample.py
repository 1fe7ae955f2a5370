"""The README's ``kwire doctor`` sample is what ``kwire doctor`` prints after ``make run``: an
editable install (``pip install -e``) where neither the record decoder nor the codecs were built."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from kwire.records import columns
from tests.paths import REPO

# A checkout after make run has no compiled record decoder (neither flavour): in the child their
# imports find none, as Python reports a module that is not there (the builds here, if any, stay put).
DOCTOR_WITHOUT_THE_BUILD = f"""
import sys
class NotBuilt:
    def find_spec(self, name, path=None, target=None):
        if name in {(columns.COMPILED_MODULE, columns.C_MODULE)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, NotBuilt())
from kwire.cli.main import main
sys.exit(main(["doctor"]))
"""


def readme_sample() -> list[str]:
    text = (REPO / "README.md").read_text()
    block = re.search(r"```text\n\$ kwire doctor[^\n]*\n(.*?)```", text, re.DOTALL)
    assert block, "the README has no kwire doctor sample"
    return block.group(1).splitlines()


def test_the_readme_doctor_sample_is_what_make_run_leaves():
    # as after make run: no choice of flavour in the environment (make check sets one)
    env = {name: value for name, value in os.environ.items() if name != columns.CHOICE_VARIABLE}
    done = subprocess.run([sys.executable, "-c", DOCTOR_WITHOUT_THE_BUILD], capture_output=True, text=True, check=False,
                          timeout=300, cwd=REPO, env=env)
    assert done.returncode == 1, done.stderr  # a part runs as plain Python
    assert done.stdout.splitlines() == readme_sample()
