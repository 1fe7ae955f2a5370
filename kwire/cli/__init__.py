"""The ``kwire`` command line: one sub-command per module in ``commands``, above every other part."""
