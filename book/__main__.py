import logging
import sys

# The command's log: warnings and errors only, set before Sphinx loads the book's theme. Its
# accessible-pygments package calls logging.basicConfig(level=INFO) when imported, which would put
# every library's INFO records on the terminal (alembic's, when the student bundle is made).
logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

from .build import main  # noqa: E402

sys.exit(main())
