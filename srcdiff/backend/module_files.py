"""The files of the modules ``jit="numba"`` generates: where they are kept, written and imported.

Several processes (``pytest -n``, a multiprocessing pool, a job array) and several threads may
load the same module at once.  Each file is written whole (a temporary file of its process and
thread, then linked into place) and never over another process's copy: numba's cache index is
keyed on the file's time stamp.  In one process `LOADING` makes one module object per file: two
threads importing it at once would each run it, or one see it half made in ``sys.modules``."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading

from ..errors import SrcDiffError

#: held while a generated module is imported and its functions made numba dispatchers
LOADING = threading.RLock()


def cache_folder() -> str:
    """Where the generated modules (and numba's cache of them) are kept."""
    folder = os.environ.get("SRCDIFF_NUMBA_CACHE")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "srcdiff", "numba")
    return folder


def load(main: str, text: str):
    """The module of `text`, written to a file named by its hash (written once: numba's cache
    is keyed on the file's time stamp).  Callers hold `LOADING` while they also make its
    functions dispatchers."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:24]
    name = f"srcdiff_numba_{main}_{digest}"
    if name in sys.modules:  # the same code compiled before in this process
        return sys.modules[name]
    for folder in (cache_folder(), os.path.join(tempfile.gettempdir(), f"srcdiff-numba-{os.getuid()}")):
        path = os.path.join(folder, f"{name}.py")
        try:
            os.makedirs(folder, exist_ok=True)
            if not _holds(path, text):
                _written(path, text)
            break
        except OSError:
            continue
    else:
        raise SrcDiffError("jit='numba' could not write the generated module to a file",
                           hint="set SRCDIFF_NUMBA_CACHE to a folder you can write")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache finds the module of what it loads by name
    spec.loader.exec_module(module)
    return module


def _written(path: str, text: str) -> None:
    """`text` written to `path` whole (a temporary file of this process and thread, renamed),
    and never over a copy another process wrote first: numba's cache index is keyed on the
    file's time stamp, so replacing it would make the index that process saved stale."""
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(temporary, "w") as fh:
        fh.write(text)
    try:
        os.link(temporary, path)  # only where no file is: another process's stays as it is
    except FileExistsError:
        if not _holds(path, text):  # (a file cut short by a version of srcdiff before this one)
            os.replace(temporary, path)
    except OSError:  # a file system without hard links
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def _holds(path: str, text: str) -> bool:
    try:
        with open(path) as fh:
            return fh.read() == text
    except OSError:
        return False


__all__ = ["LOADING", "cache_folder", "load"]
