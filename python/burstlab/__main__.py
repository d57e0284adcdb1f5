"""``python -m burstlab``: the ``burstlab`` command line (:mod:`burstlab.cli`)."""

import sys

from burstlab.cli import main

if __name__ == "__main__":
    sys.exit(main())
