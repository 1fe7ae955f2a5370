"""KRaft metadata as Kafka's controller and brokers see it: the metadata image and its snapshots.

- :mod:`kwire.metadata.image`: the image (features, brokers, controllers, topics and partitions,
  configs, client quotas, producer ids, ACLs, SCRAM credentials, delegation tokens, ZK migration
  state, quorum), frozen as Kafka's;
- :mod:`kwire.metadata.delta`: how each metadata record changes it (Kafka's ``MetadataDelta``),
  part by part (``features_delta``, ``cluster_delta``, ``topics_delta``, ``configs_delta``,
  ``security_delta``, ``quorum_delta``, over :mod:`kwire.metadata.changes`); ``apply()`` makes the
  next image; :mod:`kwire.metadata.replay` replays records one after another;
- :mod:`kwire.metadata.loader`: replaying a log directory, a snapshot or a segment into it, a
  delta committed per batch or transaction;
- :mod:`kwire.metadata.describe`: its JSON and text forms;
- :mod:`kwire.metadata.writer`: the image written as a snapshot's records at a metadata.version,
  by the rules of the writing release (3.x as Kafka 3.9.0, 4.x as Kafka 4.2.1), with what it
  loses; :mod:`kwire.metadata.supported_configs` the configs Kafka 4.2.1 keeps;
  :mod:`kwire.metadata.snapshot` the snapshot file around them;
- :mod:`kwire.metadata.cluster_features`: what the controller judging UpdateFeatures knows,
  taken from an image (:mod:`kwire.features.update_features`);
- :mod:`kwire.metadata.matrix` and :mod:`kwire.metadata.matrix_picture`: the downgrade matrix
  and its heatmap.

This part sits above ``kwire.logs`` (which reads the files) and below the command line.
"""
