"""``python -m srcdiff show|check|graph|trace|export FILE.py:FUNC``: see `srcdiff.tools.cli`."""

from .tools.cli import main

raise SystemExit(main())
