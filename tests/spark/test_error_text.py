"""``spark_error_text``: the one line ``kwire decode --spark`` prints from a failed job's error.
Plain text in, no Spark needed."""
from __future__ import annotations

from kwire.spark.jvm_output import spark_error_text

JOB_FAILED = """py4j.protocol.Py4JJavaError: An error occurred while calling o52.save.
: org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed
  File "/x/kwire/arrow/decode_files.py", line 90, in split
kwire.arrow.decode_files.SplitFailed: segment 00000000000000000000.log: record batch cut short
  File "/x/pyspark/worker.py", line 1, in main
ValueError: a later, unrelated error
"""


def test_a_kwire_error_anywhere_in_the_family_is_preferred_to_a_later_foreign_one():
    # SplitFailed (kwire.arrow) is a KwireError the old hand-written list of names did not hold
    assert spark_error_text(Exception(JOB_FAILED)) == (
        "SplitFailed: segment 00000000000000000000.log: record batch cut short")


def test_without_a_kwire_error_the_innermost_error_line_then_the_first_line():
    assert spark_error_text(Exception("x\nKeyError: 'a'\nOSError: disk full")) == "OSError: disk full"
    assert spark_error_text(Exception("no error line here\nsecond")) == "no error line here"
    assert spark_error_text(Exception("")) == "Exception"
