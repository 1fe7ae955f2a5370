"""Decode bench_codec's FetchResponse v12 N times inside functools.reduce, so callgrind counts the decodes only.

Run (ROOT: the checkout whose benchmarks/bench_codec.py and kwire to use; DECODER: kwire, the
pure-Python generated classes, or kafka-python)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        --collect-atstart=no --toggle-collect=functools_reduce \\
        python benchmarks/fetch_decode_instructions.py ROOT kwire 20

"Collected" for 20 decodes minus that for 10, divided by 10, is the instructions of one decode
(each decode also frees the previous one's result, as in bench_codec.py's timed loop).
"""
import functools
import importlib.util
import sys

root, name, loops = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
spec = importlib.util.spec_from_file_location("bench_codec", f"{root}/benchmarks/bench_codec.py")
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_codec"] = bench
spec.loader.exec_module(bench)
_, _, message_spec, message = bench.fetch_workload()
data = message.encode(12)
if name == "kwire":
    codec = bench.kwire_codec(message_spec.cls, 12, data)
else:
    codec = bench.kafka_python_codec(*message_spec.kafka_python, 12, data)
decode = codec.decode
decode()  # warm: lazy imports, specialisation
decode()
functools.reduce(lambda acc, _: decode(), range(loops), 0)
