"""Hostile input: every kwire decoder fed random and mutated bytes must fail only with kwire's errors.

Modules, each with one job:

* ``target``        what a decoder under attack is (:class:`Target`) and its memory budget
* ``registry``      every target by name: messages, JSON form, headers, frames, records, the KRaft
  metadata log (the definition loader's target is the command line's,
  ``kwire.cli.definition_target``, and the command line adds it)
* ``codec_targets`` / ``wire_targets`` / ``record_targets`` / ``metadata_targets``  the targets of
  each kind
* ``corpus``        valid seeds: captured frames and batches, real broker and KRaft data
* ``mutations``     random bytes and byte-level mutations; ``json_mutations`` structural JSON ones;
  ``record_inputs`` batches rebuilt around mutated records, with resealed CRCs
* ``inputs``        the deterministic input stream of a target (and reproducing one case)
* ``checks``        one input: exception type, hang, time, memory
* ``runner``        spreading cases over targets and keeping statistics
* ``cli``           :func:`run_hostile`, what ``kwire fuzz --bytes`` runs
"""
from .cli import run_hostile

__all__ = ["run_hostile"]
