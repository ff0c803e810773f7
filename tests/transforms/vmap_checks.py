"""One check for vmap test tables: the batched gradient and value equal the loop over examples,
whose gradients agree with central differences, and nothing runs one example at a time."""

from __future__ import annotations

import copy

import numpy as np
from numeric import central_difference

import srcdiff

from . import leaves


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


def item(value, i: int):
    """Example `i` of a batched argument: of each leaf of a tree (a dict, list, tuple, namedtuple)."""
    if isinstance(value, dict):
        return {k: item(v, i) for k, v in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[item(v, i) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(item(v, i) for v in value)
    return value[i]


def _stacked_leaves(results: list) -> list:
    """The float leaves of per-example `results` (trees of one structure), each stacked along a batch axis."""
    flat = [leaves.float_leaves(r) for r in results]
    return [np.stack([np.asarray(f[k]) for f in flat]) for k in range(len(flat[0]))]


def wide(value):
    """`value` with float32 arrays and numbers as float64 (central differences need float64's precision)."""
    if isinstance(value, dict):
        return {k: wide(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(wide(v) for v in value)
    if isinstance(value, (np.ndarray, np.floating)) and value.dtype == np.float32:
        return value.astype(np.float64)
    return value


def tree_difference(f, args: list, wrt: int) -> np.ndarray:
    """Central differences of `f` along every float of argument `wrt` (a tree too), flat."""
    x = args[wrt]
    at = lambda v: f(*args[:wrt], leaves.with_vector(x, v), *args[wrt + 1:])  # noqa: E731
    return central_difference(at, [leaves.vector(x)], 0)


def _same_structure(got, one) -> bool:
    """Whether a batched result `got` is built like one example's result `one` (its arrays stacked)."""
    if isinstance(one, dict):
        return isinstance(got, dict) and list(got) == list(one) and all(_same_structure(got[k], one[k]) for k in one)
    if isinstance(one, (tuple, list)):
        return type(got) is type(one) and len(got) == len(one) and all(map(_same_structure, got, one))
    return isinstance(got, np.ndarray) or not isinstance(got, (tuple, list, dict))


def census_outcome(f, wrt: int, args, axes, size: int, rtol: float = 1e-8, atol: float = 1e-10,
                   valued: bool = False) -> tuple:
    """What ``vmap(grad(f, wrt=wrt))`` (`valued`: of value_and_grad) does over `size` examples, and
    why: batched, per-example (it warned and ran one example at a time), refused (a SrcDiffError at a
    line), WRONG (not the loop over the examples, each gradient checked against central
    differences), a bad error, or n/a (grad itself refuses).  Arguments may be trees (in_axes 0:
    every leaf batched)."""
    gradient = (srcdiff.value_and_grad if valued else srcdiff.grad)(f, wrt=wrt)
    examples = [[a if ax is None else item(a, i) for a, ax in zip(args, axes)] for i in range(size)]
    try:
        per = [gradient(*e) for e in examples]
    except srcdiff.SrcDiffError as exc:
        return NA, f"grad refuses: {exc.reason}"
    for e, result in zip(examples, per):
        single = any(np.asarray(leaf).dtype == np.float32 for leaf in leaves.float_leaves(e))  # (float32 arguments:
        tol = 1e-3 if single else 1e-5  # the differences of the function in float64, to float32's precision)
        if not np.allclose(leaves.vector(result[1] if valued else result), tree_difference(f, wide(e), wrt),
                           rtol=tol, atol=tol / 10):
            return NA, "grad disagrees with central differences (not vmap's)"
    return mapped_outcome(gradient, args, axes, per, rtol, atol)


def mapped_outcome(transformed, args, axes, per: list, rtol: float = 1e-8, atol: float = 1e-10) -> tuple:
    """What ``vmap(transformed, in_axes=axes)(*args)`` does beside `per`, the loop over the examples'
    results (already checked against central differences): batched, per-example, refused, WRONG (another
    structure, shape, dtype or numbers) or a bad error."""
    mapped = srcdiff.vmap(transformed, in_axes=axes, per_example="allow")
    try:
        got = mapped(*args)
    except srcdiff.SrcDiffError as exc:
        return (REFUSED if exc.location is not None else BAD_ERROR), str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001  (what the census counts as a bad error)
        return BAD_ERROR, f"{type(exc).__name__}: {exc}"
    want = _stacked_leaves(per)
    if not _same_structure(got, per[0]):  # (the leaves alone would not tell a 1-tuple from its array)
        return WRONG, f"batched {type(got).__name__} where the loop gives {type(per[0]).__name__}"
    return _compared(got, want, mapped, rtol, atol)


def _compared(got, want: list, mapped, rtol: float, atol: float) -> tuple:
    """The outcome of batched `got` against the loop's stacked leaves `want`: WRONG where a leaf's
    shape, dtype (float32 in, float32 out, as one example's) or numbers differ (float32 leaves to
    float32's precision: a sum over a row's axis of a batch adds in another order)."""
    try:
        found = [np.asarray(leaf) for leaf in leaves.float_leaves(got)]
        same = len(found) == len(want) and all(
            np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=max(rtol, 8 * _eps(b)), atol=max(atol, _eps(b)))
            for a, b in zip(found, want))
    except (TypeError, ValueError):
        same = False
    if not same:
        return WRONG, f"batched {[np.shape(a) for a in leaves.float_leaves(got)]} differs from the loop"
    dtypes = [a.dtype for a in found], [np.asarray(b).dtype for b in want]
    if dtypes[0] != dtypes[1]:
        return WRONG, f"batched dtypes {dtypes[0]} where the loop gives {dtypes[1]}"
    if mapped.per_example is not None:
        return PER_EXAMPLE, mapped.per_example.splitlines()[0]
    return BATCHED, ""


def _eps(value) -> float:
    dtype = np.asarray(value).dtype
    return float(np.finfo(dtype).eps) if dtype.kind in "fc" else 0.0


def values_outcome(f, args, axes, size: int, rtol: float = 1e-8, atol: float = 1e-10) -> tuple:
    """What ``vmap(f)`` does over `size` examples (census_outcome's outcomes, for f's values: the
    loop's structure, shapes, dtypes and numbers); n/a where f itself raises."""
    kept = copy.deepcopy(args)  # (a function writing into its argument: the loop gets copies, vmap the arguments)
    examples = [[a if ax is None else item(a, i) for a, ax in zip(kept, axes)] for i in range(size)]
    try:
        per = [f(*e) for e in examples]
        want = _stacked_leaves(per)
    except Exception as exc:  # noqa: BLE001  (the function's own error: not vmap's)
        return NA, f"f raises {type(exc).__name__}"
    mapped = srcdiff.vmap(f, in_axes=axes, per_example="allow")
    try:
        got = mapped(*args)
    except srcdiff.SrcDiffError as exc:
        return (REFUSED if exc.location is not None else BAD_ERROR), str(exc).splitlines()[0]
    except Exception as exc:  # noqa: BLE001  (what the census counts as a bad error)
        return BAD_ERROR, f"{type(exc).__name__}: {exc}"
    if not _same_structure(got, per[0]):
        return WRONG, f"batched {type(got).__name__} where the loop gives {type(per[0]).__name__}"
    return _compared(got, want, mapped, rtol, atol)


def _stackable(values: list) -> bool:
    if all(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in values):
        return len({v.shape for v in values}) == 1
    return all(type(v) is float for v in values)


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(np.array_equal(a, b)) if isinstance(a, (np.ndarray, float, int)) \
            else a is b
    except (TypeError, ValueError):
        return False


def stacked_examples(make, size: int, seed: int) -> tuple[list, tuple]:
    """`size` examples of a program table's ``make(rng)`` (seeds `seed`, `seed` + 1, ...) as batched
    arguments: an argument that differs between the examples of a batch of 3 and is a float or an
    array of floats of one shape is stacked (in_axes 0); any other is the first example's (in_axes None)."""
    made = [tuple(make(np.random.default_rng(seed + i))) for i in range(max(size, 3))]
    axes = tuple(0 if _stackable([m[k] for m in made[:3]]) and not all(_same(m[k], made[0][k]) for m in made[1:3])
                 else None for k in range(len(made[0])))
    args = [np.stack([np.asarray(m[k]) for m in made[:size]]) if ax == 0 else made[0][k]
            for k, ax in enumerate(axes)]
    return args, axes
