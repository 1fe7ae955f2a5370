"""Decode a bench_records batch N times inside functools.reduce, so callgrind counts the decodes only.

Run (ROOT: the checkout whose benchmarks/bench_records.py and kwire to use, e.g. a ``git archive``
of a base revision with its own ``make native``)::

    PYTHONPATH=ROOT PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        --collect-atstart=no --toggle-collect=functools_reduce \\
        python benchmarks/record_decode_instructions.py ROOT kwire-arrow 20 [none|lz4|zstd|...]

"Collected" divided by N x 1,000 is the instructions per record, without the start-up (whose
count moves by millions between runs, more than ``bench_records.py --instructions`` can subtract).
"""
import functools
import importlib.util
import sys

root, name, loops = sys.argv[1], sys.argv[2], int(sys.argv[3])
codec = sys.argv[4] if len(sys.argv) > 4 else "none"
spec = importlib.util.spec_from_file_location("bench_records", f"{root}/benchmarks/bench_records.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
decode = bench.DECODERS[name]
wire = bench.make_batch(bench.Codec[codec.upper()])
decode(wire)  # warm: lazy imports, caches
decode(wire)
functools.reduce(lambda acc, _: decode(wire), range(loops), 0)
