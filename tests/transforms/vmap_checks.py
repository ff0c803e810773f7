"""One check for vmap test tables: the batched gradient and value equal the loop over examples,
whose gradients agree with central differences, and nothing runs one example at a time."""

from __future__ import annotations

import numpy as np
from numeric import central_difference

import srcdiff


def example(args, axes, i, dtype=None) -> list:
    """Example `i` of batched `args` (`axes`: None for a shared argument, else 0), in `dtype` if given."""
    out = [a if ax is None else a[i] for a, ax in zip(args, axes)]
    return [np.asarray(a, dtype=dtype) if dtype is not None else a for a in out]


def assert_batched_like_the_loop(f, wrt: int, args, axes, size: int, marker: str, rtol: float, atol: float) -> None:
    """vmap of `f` and of its gradient w.r.t. `wrt` over `size` examples: equal to the loop over
    examples (each gradient checked against central differences), batched (`marker` in the source)."""
    gradient = srcdiff.grad(f, wrt=wrt)
    per = [gradient(*example(args, axes, i)) for i in range(size)]
    for i in range(size):
        np.testing.assert_allclose(per[i], central_difference(f, example(args, axes, i), wrt), rtol=1e-6, atol=1e-7)
    mapped = srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")
    np.testing.assert_allclose(mapped(*args), np.stack(per), rtol=rtol, atol=atol)
    assert mapped.per_example is None and marker in mapped.source
    values = srcdiff.vmap(f, in_axes=axes, per_example="refuse")(*args)
    np.testing.assert_allclose(values, [f(*example(args, axes, i)) for i in range(size)], rtol=1e-12)
