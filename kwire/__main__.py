"""``python -m kwire``: the ``kwire`` command."""
import sys

from kwire.cli.main import main

sys.exit(main())
