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


BATCHED, PER_EXAMPLE, REFUSED, WRONG, BAD_ERROR, NA = "batched", "per-example", "refused", "WRONG", "bad error", "n/a"


def census_outcome(f, wrt: int, args, axes, size: int, rtol: float = 1e-8, atol: float = 1e-10) -> tuple:
    """What ``vmap(grad(f, wrt=wrt))`` does over `size` examples, and why: batched, per-example (it warned
    and ran one example at a time), refused (a SrcDiffError at a line), WRONG (not the loop over the
    examples, each checked against central differences), a bad error, or n/a (grad itself refuses)."""
    gradient = srcdiff.grad(f, wrt=wrt)
    try:
        per = [gradient(*example(args, axes, i)) for i in range(size)]
    except srcdiff.SrcDiffError as exc:
        return NA, f"grad refuses: {exc.reason}"
    for i in range(size):
        want = central_difference(f, example(args, axes, i), wrt)
        if not np.allclose(per[i], want, rtol=1e-5, atol=1e-6):
            return NA, "grad disagrees with central differences (not vmap's)"
    mapped = srcdiff.vmap(gradient, in_axes=axes, per_example="allow")
    try:
        got = mapped(*args)
    except srcdiff.SrcDiffError as exc:
        return (REFUSED if exc.location is not None else BAD_ERROR), str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001  (what the census counts as a bad error)
        return BAD_ERROR, f"{type(exc).__name__}: {exc}"
    if np.shape(got) != np.shape(np.stack(per)) or not np.allclose(got, np.stack(per), rtol=rtol, atol=atol):
        return WRONG, f"batched {np.shape(got)} differs from the loop {np.shape(np.stack(per))}"
    if mapped.per_example is not None:
        return PER_EXAMPLE, mapped.per_example.splitlines()[0]
    return BATCHED, ""
