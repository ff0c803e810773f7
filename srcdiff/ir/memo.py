"""Memo tables: what srcdiff works out once per function (or code object) and keeps between calls.

Every such table is made here, so `srcdiff.clear_cache()` (the driver's `Cache.clear`) empties
all of them and no state outlives it; a test scans the package for module-level tables made
any other way. It lives in the lowest package so that every layer can make one.
"""

from __future__ import annotations

import weakref

_TABLES: list = []


def table(weak: bool = False):
    """A new memo table: a dict, or (`weak`) one whose keys (functions, objects) may die."""
    made = weakref.WeakKeyDictionary() if weak else {}
    _TABLES.append(made)
    return made


def forget() -> None:
    """Empty every memo table."""
    for made in _TABLES:
        made.clear()


def sizes() -> list[int]:
    """How many entries each table holds (for tests and `cache_info`-style diagnostics)."""
    return [len(made) for made in _TABLES]
