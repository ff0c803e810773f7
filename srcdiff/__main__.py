"""``python -m srcdiff show|check|graph|trace FILE.py:FUNC``: see `srcdiff.tools.cli`."""

from .tools.cli import main

raise SystemExit(main())
