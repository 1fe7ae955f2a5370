# `make run` and `make test` each set up .venv from nothing (Python 3.11, pip) and then run.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench generate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/kwire generate --defs message_defs --out generated
	$(BIN)/kwire validate message_defs

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_codec.py --chart benchmarks/codec.png --json benchmarks/codec.json

clean:
	rm -rf $(VENV) build *.egg-info
