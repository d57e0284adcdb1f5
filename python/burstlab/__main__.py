"""``python -m burstlab``: the ``burstlab`` command line (:mod:`burstlab.cli`)."""

import sys

from burstlab.cli import main

sys.exit(main())
