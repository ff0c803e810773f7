"""``python -m srcdiff show|check FILE.py:FUNC``: see `srcdiff.cli`."""

from .tools.cli import main

raise SystemExit(main())
