"""``python -m attncert``: the same command line as ``attncert``."""

import sys

from attncert.certificates.frontends.cli import main

sys.exit(main())
