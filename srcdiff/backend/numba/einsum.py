"""``np.einsum`` for numba, which has none: for constant subscripts (as generated code
writes them), the loops the subscripts describe, written from the operands' types.

``np.einsum("ij,kj->ik", a, b)`` becomes, compiled for two 2-D arrays::

    out = np.zeros((a.shape[0], b.shape[0]), DTYPE)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(b.shape[0]):
                out[i, k] += a[i, j] * b[k, j]

after checking that every letter has one length.  An ellipsis (``...``) stands for letters
of its own, as many as the operand has axes left, aligned from the right as NumPy aligns
them (`expanded`); where NumPy would broadcast an axis of length one against a longer one,
the check raises, and the Python gradient then computes it.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from .naming import made, overload


def einsum_1(subscripts, a):
    return np.einsum(subscripts, a)


def einsum_2(subscripts, a, b):
    return np.einsum(subscripts, a, b)


def einsum_3(subscripts, a, b, c):
    return np.einsum(subscripts, a, b, c)


def expanded(text: str, operands: list) -> str | None:
    """`text` with each ``...`` written as letters of its own, for operands of these types;
    an implicit output gets the ellipsis' letters first, as NumPy's does."""
    if "..." not in text:
        return text
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        return None
    free = [c for c in "ZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in text]
    counts = []
    for term, op in zip(terms, operands):
        ndim = op.ndim if isinstance(op, types.Array) else 0
        counts.append(ndim - len(term.replace("...", "")) if "..." in term else 0)
    width = max(counts)
    if min(counts) < 0 or width > len(free):
        return None
    letters = "".join(free[:width][::-1])  # (rightmost axes: the last letters)
    terms = [t.replace("...", letters[width - n:]) for t, n in zip(terms, counts)]
    if arrow:
        output = output.replace("...", letters)
    else:
        joined = "".join(terms)
        output = letters + "".join(sorted(c for c in set(joined) if joined.count(c) == 1 and c not in letters))
    return ",".join(terms) + "->" + output


def loops(subscripts: str, operands: list) -> str | None:
    """The text of ``impl`` for `subscripts` and the operands' types, or None."""
    text = expanded(subscripts.replace(" ", ""), operands)
    if text is None or "." in text:
        return None
    inputs, _, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        return None
    if "->" not in text:  # implicit: the letters seen once, in order
        letters = "".join(terms)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    names = ["a", "b", "c"][:len(operands)]
    sizes: dict[str, str] = {}
    checks = []
    for name, term, op in zip(names, terms, operands):
        ndim = op.ndim if isinstance(op, types.Array) else 0
        if len(term) != ndim or term and not term.isalpha():
            return None
        for d, c in enumerate(term):
            size = f"{name}.shape[{d}]"
            if c in sizes:
                checks.append(f"    if {size} != {sizes[c]}:\n"
                              "        raise ValueError('einsum: a subscript letter with two lengths')\n")
            else:
                sizes[c] = size
    if any(c not in sizes for c in output) or len(set(output)) != len(output):
        return None
    order = list(output) + sorted(set(sizes) - set(output))
    args = ", ".join(names)
    body = [f"def impl(subscripts, {args}):\n", *checks]
    shape = ", ".join(sizes[c] for c in output)
    body.append(f"    out = np.zeros(({shape},), DTYPE)\n" if output else "    out = np.zeros(1, DTYPE)\n")
    indent = "    "
    for c in order:
        body.append(f"{indent}for i_{c} in range({sizes[c]}):\n")
        indent += "    "
    target = "out[" + (", ".join(f"i_{c}" for c in output) if output else "0") + "]"
    factors = " * ".join(f"{name}[{', '.join(f'i_{c}' for c in term)}]" if term else name
                         for name, term in zip(names, terms))
    body.append(f"{indent}{target} += {factors}\n")
    body.append("    return out\n" if output else "    return out[0]\n")
    return "".join(body)


def _typer(subscripts, *operands):
    if not isinstance(subscripts, types.StringLiteral):
        return None
    if not all(isinstance(op, types.Array) or isinstance(op, types.Number) for op in operands):
        return None
    text = loops(subscripts.literal_value, list(operands))
    if text is None:
        return None
    dtype = np.result_type(*[as_dtype(op.dtype if isinstance(op, types.Array) else op) for op in operands], 0.0)
    return made(text, DTYPE=dtype)


@overload(einsum_1, prefer_literal=True)
def _einsum_1(subscripts, a):
    return _typer(subscripts, a)


@overload(einsum_2, prefer_literal=True)
def _einsum_2(subscripts, a, b):
    return _typer(subscripts, a, b)


@overload(einsum_3, prefer_literal=True)
def _einsum_3(subscripts, a, b, c):
    return _typer(subscripts, a, b, c)


HELPERS = ("einsum_1", "einsum_2", "einsum_3")
