"""The Python spellings of the red team's tenth wave, rewritten right after parsing (desugar.py
calls `rewrite_python_forms` once, before its other rewrites): each module named here says what
it rewrites and into what.

- sequences made from a computed value, ``zip(*pairs)`` (sequence_spellings.py); ``list(zip(*rows))`` of
  a display of tuples (zip_columns.py);
- a nested function writing the caller's names with ``nonlocal``: its body where it is called
  (nonlocal_calls.py);
- ``.pop`` / ``.insert`` / ``.reverse`` / ``.extend`` of a list built from a display: the new list
  each makes, item by item (list_methods.py);
- ``p._replace(a=v)`` of a namedtuple the function builds: its constructor (namedtuple_forms.py);
- ``dict(a, k=v)`` and ``a | b`` of dicts: the display ``{**a, "k": v}`` (dict_merges.py);
- a sliding window in ``collections.deque(maxlen=K)``: K variables and a count (deque_windows.py);
- ``d.setdefault(k, []).append(v)``: a test and a write of the missing key, then ``d[k]`` (setdefault_calls.py);
- ``fs = []`` and a loop appending a lambda (a nested def, a dict display): a list comprehension
  (appended_functions.py).
"""

from __future__ import annotations

import ast

from .appended_functions import has_appended_functions, rewrite_appended_functions
from .deque_windows import has_deques, rewrite_deques
from .dict_merges import has_dict_merges, rewrite_dict_merges
from .list_methods import has_list_changes, rewrite_list_changes
from .namedtuple_forms import has_replace, rewrite_replace
from .naming import FreeNames
from .nonlocal_calls import has_nonlocal, inline_nonlocal_calls
from .sequence_spellings import has_sequence_spellings, rewrite_sequence_spellings
from .setdefault_calls import has_setdefault, rewrite_setdefault
from .zip_columns import rewrite_zip_columns


def has_python_forms(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether any rewrite here could apply."""
    return has_sequence_spellings(tree) or has_nonlocal(tree) or has_list_changes(tree) or has_replace(tree) \
        or has_dict_merges(tree) or has_deques(tree) or has_setdefault(tree) \
        or has_appended_functions(tree)


def rewrite_python_forms(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the spellings the modules above cover."""
    inline_nonlocal_calls(tree, names)  # first: the bodies written out may hold the spellings below
    rewrite_zip_columns(tree, names)  # (has_sequence_spellings sees its list/zip calls)
    rewrite_sequence_spellings(tree, names)
    rewrite_list_changes(tree, names)
    rewrite_replace(tree, names)
    rewrite_dict_merges(tree, names)
    rewrite_deques(tree, names)
    rewrite_setdefault(tree, names)
    rewrite_appended_functions(tree, names)


__all__ = ["has_python_forms", "rewrite_python_forms"]
