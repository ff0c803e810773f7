"""Importing test code from a file: srcdiff reads functions' source, so they need a real one."""

import importlib.util
import textwrap
from pathlib import Path


def import_source(folder: Path, source: str, name: str = "model", module_name: str | None = None):
    """Write `source` (dedented) to ``folder/name.py`` and import it as a fresh module."""
    path = Path(folder) / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(module_name or f"{name}_{Path(folder).name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
