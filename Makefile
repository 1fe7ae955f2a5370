# `make run` and `make test` each set up .venv from nothing (Python 3.11, pip) and then run.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
BYTECODE = $(BIN)/python -m compileall -q kwire generator generated

.PHONY: run test check bench compile wheel native docs clean mutation

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The main job needs the generator, PyArrow (and Spark) and the report pictures, not the test peers
# (kio, brokers, mypy, ...).
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[generator,spark,report]'
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(RUN_STAMP)

# The main job on the embedded default: regenerate the codecs, check the definitions, sweep
# cross-version compatibility (report and heatmaps in reports/fuzz), then write a sample Kafka
# data directory with kwire's writers and decode it: `kwire dump` (reports/sample-dump.txt) and
# `kwire decode`, in-process with a worker per core (reports/sample-decoded/, one JSON row per
# record; `--spark` would run the same on Spark, local[*]).
run: $(RUN_STAMP)
	$(BIN)/kwire generate --defs message_defs --out generated
	$(BIN)/kwire validate message_defs
	$(BIN)/kwire fuzz --cases 200 --report reports/fuzz --force
	rm -rf build/sample-data && $(BIN)/python examples/sample_data.py build/sample-data
	mkdir -p reports && $(BIN)/kwire dump build/sample-data > reports/sample-dump.txt
	$(BIN)/kwire decode build/sample-data --out reports/sample-decoded --format json --mode overwrite
	@echo
	@echo "make run: done. What it produced:"
	@echo "  generated/                the codecs, regenerated from message_defs/ ($$(find message_defs -name "*.json" | wc -l) definitions)"
	@echo "  reports/fuzz/report.md    the cross-version sweep: $$(sed -n 's/^\*\*\(PASSED\|FAILED\)\*\*: \([0-9]* cells\).*/\1, \2/p' reports/fuzz/report.md) (report.json, one heatmap per message)"
	@echo "  build/sample-data/        a sample Kafka data directory written by kwire's writers"
	@echo "  reports/sample-dump.txt   kwire dump of it: $$(grep -c "^End of " reports/sample-dump.txt) files, $$(grep -o "^End of .*, [0-9]* records" reports/sample-dump.txt | grep -o "[0-9]* records$$" | awk "{s+=\$$1} END {print s}") records"
	@echo "  reports/sample-decoded/   the same directory decoded by kwire decode, one JSON row per record"

# Two workers (pytest-xdist): the suite is mostly CPU-bound and this machine has two cores. Tests
# marked xdist_group("spark-cluster") share one worker, so only one Spark cluster is started.
# The compiled record decoder is built first (cached: seconds once, then nothing), so it is tested.
# Tests that ask for the `spark` fixture share a worker too (tests/conftest.py), so only one local
# Spark session is started. kwire is byte-compiled first (BYTECODE), once: the suite starts hundreds
# of interpreters (`kwire` commands, Spark's Python workers, child pytests), and where
# PYTHONDONTWRITEBYTECODE is set each of them would compile kwire again (0.6 s a `kwire dump`).
test: $(TEST_STAMP) native
	$(BYTECODE)
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

# The fast tier for working on kwire (tests/tiers.py): the unit tests of every part without Spark,
# live peers, compilers or the slow tests tests/tiers.py names, each test function with at most
# five of its parameter sets; under a minute on two cores. The record decoder runs as plain Python
# (nothing is compiled). `make test` runs everything, and is what CI runs.
check: $(TEST_STAMP)
	$(BYTECODE)
	KWIRE_RECORD_DECODER=python $(BIN)/python -m pytest -q -n 2 -m check

# The record column decoder compiled: its C flavour (kwire/records/_column_decoder_c*.so, a second)
# and by mypyc (kwire/records/_column_decoder_mypyc*.so; about ten seconds), cached in
# build/record-decoder. Without mypyc or a C compiler kwire runs the same decoder as plain Python,
# except under CI (CI=true), where a missing toolchain fails the target
# (--require), as it fails the compiled-build tests (tests/optional.py).
# `python -m kwire.generator.native.records --remove` takes it out.
native: $(TEST_STAMP)
	$(BIN)/python -m kwire.generator.native.records --cache build/record-decoder$(if $(filter true 1,$(CI)), --require)

# The API reference, from the docstrings (pdoc): build/docs/index.html
docs: $(TEST_STAMP)
	$(BIN)/python docs/api.py build/docs

# Optional: build generated/ with mypyc (needs a C compiler): the modules on the hot path, whose
# code is written for the compiler (about a minute and a quarter on 2 cores; --compile all builds
# every module, which does not pay: benchmarks/README.md). One library per module, compiled in
# parallel; build/kwire-compile/ keeps the C objects, so a rebuild compiles only what changed.
# generated/ installs as kwire.generated, the name its extensions are built for. The .py files
# stay as the fallback; `make clean` or regenerating changed sources removes the extensions.
compile: $(TEST_STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/kwire generate --defs message_defs --out generated --compile --package kwire.generated

# A platform wheel of kwire whose kwire.generated (its hot path) and record decoder are compiled
# (setup.py; the .py files stay inside; `kwire doctor` in the installed kwire says so):
# dist/kwire-<version>-cp311-cp311-<platform>.whl. Incremental like `make compile` (build/kwire-wheel/).
wheel: $(TEST_STAMP)
	KWIRE_COMPILE=1 $(BIN)/python -m build --wheel --no-isolation --outdir dist .

# Mutation testing, not part of `make test` (CPU-heavy). mutmut mutates every runtime part of kwire
# (kwire/spark too: each of its mutants starts a JVM) and the generator's evolution code;
# tests/mutation/sample.py runs, part by part, the seeded sample in tests/mutation/sample.txt (40
# mutants a part) against that part's own tests (its PARTS table), one mutant at a time.
# PARTS='wire logs' runs only those parts.
# After a change that renames mutants: `.venv/bin/python tests/mutation/sample.py draw` redraws.
# Survivors: `.venv/bin/python -m mutmut results`; one mutant's diff: `... mutmut show NAME`.
PARTS ?=
mutation: $(TEST_STAMP)
	$(BIN)/pip install --quiet -e '.[mutation]'
	KWIRE_RECORD_DECODER=python $(BIN)/python tests/mutation/sample.py run $(PARTS)
	$(BIN)/python -m mutmut results

bench: $(TEST_STAMP) native
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_codec.py --chart benchmarks/codec.png --json benchmarks/codec.json
	$(BIN)/python benchmarks/bench_records.py

clean:
	rm -rf $(VENV) build dist *.egg-info
	rm -f generated/*.so kwire/records/*.so
