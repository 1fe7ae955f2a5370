"""Where the README's commands write. A reader runs them in a checkout after ``make run``: none may
rewrite a file the repository tracks (a picture the README shows, say), and one that writes where
``make run`` already wrote must say ``--force`` (or ``--mode overwrite``), else it is refused."""
from __future__ import annotations

import re
import shlex
import subprocess

from tests.paths import REPO

OUTPUT_OPTIONS = ("--out", "--report", "--picture", "--parquet")
# `kwire generate --out generated` is how generated/ is rewritten from the definitions, on purpose
REWRITES_ON_PURPOSE = ("kwire generate",)


def readme_commands() -> list[tuple[int, list[str]]]:
    """Every ``kwire`` command line of the README (fenced, indented or a ``$`` sample), with its
    continuation lines, as words up to a comment."""
    lines = (REPO / "README.md").read_text().splitlines()
    found = []
    for number, line in enumerate(lines, 1):
        text = re.sub(r"^\s*(\$ )?", "", line)
        if not text.startswith("kwire "):
            continue
        while text.rstrip().endswith("\\") and number < len(lines):
            text = text.rstrip()[:-1] + " " + lines[number].strip()
            number += 1
        try:
            found.append((number, shlex.split(text, comments=True)))
        except ValueError:  # prose that starts with the word kwire ("kwire is built to ...")
            assert "--" not in text, f"README.md:{number}: a command that does not parse: {text}"
    return found


def outputs(words: list[str]) -> list[str]:
    return [words[i + 1].rstrip("/") for i, word in enumerate(words[:-1]) if word in OUTPUT_OPTIONS]


def make_run_outputs() -> set[str]:
    done = subprocess.run(["make", "-n", "--no-print-directory", "run", "VENV=/nonexistent/venv"], cwd=REPO,
                          capture_output=True, text=True, check=True)
    written = set()
    for line in done.stdout.splitlines():
        words = line.split()
        written.update(outputs(words))
        written.update(words[i + 1] for i, word in enumerate(words[:-1]) if word == ">")
    return written


def inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + "/")


def test_the_commands_are_found():
    commands = readme_commands()
    assert len(commands) > 20 and any(outputs(words) for _, words in commands)


def test_no_readme_command_rewrites_a_tracked_file():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    offenders = [(line, path) for line, words in readme_commands()
                 if not " ".join(words).startswith(REWRITES_ON_PURPOSE)
                 for path in outputs(words) if any(inside(file, path) for file in tracked)]
    assert offenders == [], "README commands that would rewrite files the repository tracks"


def test_commands_writing_where_make_run_wrote_say_force():
    written = make_run_outputs()
    assert {"reports/fuzz", "reports/sample-decoded"} <= written
    offenders = [(line, " ".join(words)) for line, words in readme_commands()
                 if not " ".join(words).startswith(REWRITES_ON_PURPOSE)
                 and any(inside(path, w) or inside(w, path) for path in outputs(words) for w in written)
                 and "--force" not in words and "overwrite" not in words]
    assert offenders == [], "refused after make run without --force"
