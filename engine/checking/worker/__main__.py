"""`python -m engine.checking.worker`: run the checking worker (see `main`)."""

import sys

from engine.checking.worker.main import main

sys.exit(main())
