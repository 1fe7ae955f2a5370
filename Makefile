# `make run` and `make test` each set up .venv from nothing (Python 3.11, pip) and then run.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench generate compile clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The main job on the embedded default: regenerate the codecs, check the definitions, sweep
# cross-version compatibility (report and heatmaps in reports/fuzz), then write a sample Kafka
# data directory with kwire's writers and decode it: `kwire dump` (reports/sample-dump.txt) and
# the same directory on Spark, local[*] (reports/sample-decoded/, one JSON row per record).
run: $(STAMP)
	$(BIN)/kwire generate --defs message_defs --out generated
	$(BIN)/kwire validate message_defs
	$(BIN)/kwire fuzz --cases 200 --report reports/fuzz
	rm -rf build/sample-data && $(BIN)/python examples/sample_data.py build/sample-data
	mkdir -p reports && $(BIN)/kwire dump build/sample-data > reports/sample-dump.txt
	tail -n 3 reports/sample-dump.txt
	$(BIN)/kwire decode build/sample-data --out reports/sample-decoded --format json

test: $(STAMP)
	$(BIN)/python -m pytest -q

# Optional: build generated/ with mypyc (needs a C compiler; minutes on 2 cores). The .py files
# stay as the fallback; `make clean` or regenerating changed sources removes the extensions.
compile: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/kwire generate --defs message_defs --out generated --compile

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_codec.py --chart benchmarks/codec.png --json benchmarks/codec.json

clean:
	rm -rf $(VENV) build *.egg-info
	rm -f generated/*.so
