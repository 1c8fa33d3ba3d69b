import sys

from certificates.cli import main

sys.exit(main())
