"""``python -m srcdiff show|check FILE.py:FUNC``: see `srcdiff.cli`."""

from .cli import main

raise SystemExit(main())
