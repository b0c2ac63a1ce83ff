import sys

from scopa.cli import main

sys.exit(main())
