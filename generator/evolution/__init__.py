"""How definitions change across Kafka releases: the wire-compatibility checker (:mod:`.compat`,
``kwire check-compat``), the merge of an older definition's versions into a newer one
(:mod:`.history_merge`, ``kwire merge-versions``) and the release tables derived from Kafka's
history (:mod:`.release_tables`, ``kwire versions --derive-from``)."""
