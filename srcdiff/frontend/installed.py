"""Whether a file belongs to an installed package or the standard library, and how a refusal
met in one is named at the user's line that led there (the library's line is not one the
user can change)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from ..errors import Location, SrcDiffError

LIBRARY_HINT = ("srcdiff reads {name}'s own source and stops there; a function srcdiff has a rule for "
                "(docs/supported-numpy.md) or srcdiff.custom_vjp around this call avoids it")


def installed(filename: str) -> bool:
    """Whether `filename` belongs to an installed package or the standard library."""
    path = Path(filename).resolve()
    roots = {Path(sysconfig.get_paths()[k]).resolve() for k in ("purelib", "platlib", "stdlib")}
    return any(root == path or root in path.parents for root in roots)


def library_name(func) -> str:
    """``scipy.linalg._decomp_schur.schur``: how a refusal names the library function it met."""
    return f"{getattr(func, '__module__', '')}.{getattr(func, '__qualname__', func)}".lstrip(".")


def at_users_line(error: SrcDiffError, where: Location | None, name: str = "installed code") -> SrcDiffError | None:
    """`error`, met inside an installed library's code, named at the user's line `where` that
    led there; None when `error` is not in a library or `where` is not the user's."""
    inner = error.location
    if type(error) is not SrcDiffError or inner is None or where is None or not installed(inner.filename) \
            or installed(where.filename):
        return None
    named = SrcDiffError(f"inside {name} ({inner}): {error.reason}", where, LIBRARY_HINT.format(name=name))
    if hasattr(error, "sweep"):  # which sweep a run-time refusal came from (backend/origins.py)
        named.sweep = error.sweep
    return named
