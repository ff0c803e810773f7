"""The list helpers a derivable gradient calls (driver/higher.py), so that the adjoints of
lists are code srcdiff differentiates again.

A first-order gradient updates a list's adjoint in place (``xs_bar[i] = xs_bar[i] + v``,
``xs_bar.pop()``, ``list(g)``); a gradient that will be differentiated again writes each
update as a new list instead, through these small functions, each with a rule of its own
(rules/generated_code.py).  Every one is linear in the lists and arrays it moves.
"""

from __future__ import annotations

import operator

import numpy as np

from ..errors import SrcDiffError


def list_position(items: list, index) -> int:
    """The position of `items` a write ``items[index] = v`` changes, as Python finds it: ``xs[-1]``
    is the last item (compared with the raw -1, no item would change, silently).  `index` is an
    int or the 1-tuple of one (an index's parts); out of range raises IndexError, as the write would."""
    if isinstance(index, (tuple, list)):
        (index,) = index
    if isinstance(index, slice):  # (its items' adjoints would need the list's length kept: not written)
        raise SrcDiffError("a write into a slice of a list (xs[i:j] = [...]) is not supported",
                           hint="build a new list instead: xs = xs[:i] + [...] + xs[j:]")
    position = operator.index(index)
    if not -len(items) <= position < len(items):
        raise IndexError(f"list assignment index {position} out of range for a list of {len(items)}")
    return position % len(items)


def zeros_list(xs):
    """The zero adjoint of the list `xs`: one 0.0 per item (``[0.0] * len(xs)``).  None where the
    run never built the list (a branch not taken, whose list's adjoint the reverse pass sets up
    before the branch: ``if x <= y: return y`` above a comprehension, differentiated twice)."""
    return None if xs is None else [0.0] * len(xs)


def list_add(xs, i, v):
    """A new list: `xs` with `v` added to its item `i` (the adjoint of reading ``xs[i]``); for a
    slice `i`, each item of the list `v` to its item (``xs[1:] += v`` would append `v`)."""
    out = list(xs)
    if not isinstance(i, slice):
        out[i] = out[i] + v
        return out
    positions = range(len(out))[i]
    if len(v) != len(positions):
        raise ValueError(f"the adjoint of a slice of {len(positions)} items has {len(v)}")
    for k, vk in zip(positions, v):
        out[k] = out[k] + vk
    return out


def slice_add(base, index: slice, value):
    """``base[index] += value`` of an adjoint srcdiff could not tell a list from an array: an array
    is added into in place (it is the gradient's own), a list item by item (`+=` would append)."""
    if isinstance(base, list):
        return list_add(base, index, value)
    base[index] += value
    return base


def lists_add(a, b):
    """Two lists of one length added item by item: two contributions to a list's adjoint (lists of
    different lengths raise: zip would silently drop the longer one's last items)."""
    if len(a) != len(b):
        raise ValueError(f"two adjoints of one list have {len(a)} and {len(b)} items")
    return [x + y for x, y in zip(a, b)]


def add_adjoints(a, b):
    """Two contributions to the adjoint of a value srcdiff could not tell a list from an array or a
    number (``dist = [10.0] * 5``, then written by index): lists added item by item, a list and an
    array as arrays of one shape, anything else ``a + b``.  Two lists added with ``+`` concatenate: an
    adjoint twice as long, which either fails later or, read by index, is silently wrong."""
    if isinstance(a, list) and isinstance(b, list):
        return lists_add(a, b)
    if isinstance(a, list) or isinstance(b, list):
        a, b = items_array(a), items_array(b)
        if np.shape(a) != np.shape(b) and np.ndim(a) and np.ndim(b):
            raise ValueError(f"two adjoints of one list have shapes {np.shape(a)} and {np.shape(b)}")
    return a + b


def list_rows(a):
    """The rows of the array `a` as a list (``list(a)``): the adjoint of ``np.stack(xs)``."""
    return list(a)


def rows_adjoint(g, a):
    """The adjoint of `list_rows`: the list `g` stacked back into an array shaped like `a`
    (an item 0.0, a row nothing used, is a row of zeros)."""
    row = np.shape(a)[1:]
    if not len(g):
        return np.zeros(np.shape(a))
    return np.stack([np.zeros(row) + gi for gi in g])


def list_repeat(g, xs):
    """`g` once per item of `xs`, each summed back to its item's shape: the adjoint of ``sum(xs)``.
    ``sum([np.sum(v), v])`` broadcasts a number against a vector: the number's adjoint is the sum of
    g (``[g] * len(xs)`` gave it the vector g, a silently wrong gradient).  Each item is its own array:
    the adjoint code adds into list items in place (``ys_bar[-1] += t3_bar``), which through one shared
    array added to every item."""
    shape = np.shape(g)
    return [owned(g) if np.shape(x) == shape else summed_to(g, np.shape(x)) for x in xs]


def owned(g):
    """`g`, or a copy where it is an array another name may also hold."""
    return g.copy() if isinstance(g, np.ndarray) else g


def summed_to(g, shape: tuple):
    """`g` summed back to `shape`, which it was broadcast from (rules/runtime.py `unbroadcast`)."""
    g = np.asarray(g)
    lead = g.ndim - len(shape)
    if lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if ones:
        g = g.sum(axis=ones, keepdims=True)
    return g if shape else g[()]


def list_total(h, like):
    """The sum of the list `h`'s items, shaped like `like` (the adjoint of `list_repeat`)."""
    total = sum(h, 0.0)
    if np.shape(total) == np.shape(like):
        return total
    return np.zeros(np.shape(like)) + total


def list_drop(xs):
    """`xs` without its last item: the adjoint list left once the last append's is read."""
    return xs[:-1]


def list_grow(h):
    """`h` with a 0.0 after its last item: the adjoint of `list_drop`."""
    return list(h) + [0.0]


def split_like(h, pieces, axis):
    """The array `h` cut along `axis` into pieces as long as those of the list `pieces`:
    the adjoint of `split_adjoint` (which puts such pieces back together)."""
    ends = np.cumsum([np.shape(p)[axis] for p in pieces])[:-1]
    return list(np.split(h, ends, axis=axis))


def items_array(xs):
    """`xs` as `zero_item` writes into it (runtime.py): a list of numbers (or of arrays of one shape) an array
    of their floating dtype, anything else as it is (a list of items of different shapes stays a list).  A
    gradient read back to be differentiated again writes ``zero_item(g, i)`` as ``set_item(items_array(g), i,
    0.0)``: a list kept a list there, added to another list, would concatenate."""
    if not isinstance(xs, list):
        return xs
    try:
        return np.array(xs, dtype=np.result_type(*xs, 0.0))
    except ValueError:  # items of different shapes
        return xs


def scatter_target(g):
    """The adjoint `g` as np.add.at writes into it: a list of numbers (``mean = [0.0] * k`` read at
    ``mean[g]``) made an array of their floating dtype, an array as it is."""
    return np.array(g, dtype=np.result_type(*g, 0.0)) if isinstance(g, list) else g


LIST_HELPERS = {f.__name__: f for f in (zeros_list, list_add, slice_add, lists_add, list_rows, rows_adjoint,
                                         list_repeat, list_total, list_drop, list_grow, split_like, scatter_target,
                                         items_array, add_adjoints)}
