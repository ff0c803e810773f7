"""`srcdiff.vmap` of what ran one example at a time before wave 28, now one batched call:

* lists of lists in a gradient's loops (a list grown in a loop and read back in a later loop or by
  earlier positions, a window of the last steps, ``np.stack`` of a list of lists);
* the gradient of a max along an axis (``np.max(x, axis=1)``, ``x.max(axis=0)``), whose adjoint tests
  ``t == np.expand_dims(m, 1)``, the standard deviation's (``np.expand_dims(s, 1) == 0``), and a test
  holding a reduction (``x > np.mean(x)``);
* ``np.linalg.det``, ``np.linalg.eigh`` and ``np.linalg.eigvalsh`` (NumPy's calls on a stack);
* a gather beside slices (``x[idx, 1:]``, ``x[:, idx]``, ``x[i, 1:]`` with ``i = np.argmax(...)``), the
  index mapped or computed from the example, and its scatter-add adjoint.

Each program, in each variant of in_axes (the data along axis 0 or 1, the parameter mapped and the
data shared, everything mapped, a batch of one, float32), is checked as ``vmap(f)`` against the loop
of `f` and ``vmap(grad(f))`` against the loop of ``grad(f)``, itself checked against float64 central
differences; ``per_example="refuse"`` makes any fall back to one example at a time an error, and no
`srcdiff.PerExampleWarning` is given.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

B, N = 3, 4


# ---- the programs: f(w, x, ...), w a parameter vector of N numbers, x an example's data ----

def previous_items(w, x):
    ys = [w * x[0]]
    for i in range(1, 3):
        ys.append(ys[i - 1] * 0.5 + w * x[i])
    return np.sum(sum(ys) ** 2)


def read_in_a_later_loop(w, x):
    hs = []
    h = x[0]
    for _ in range(3):
        h = np.sin(w * h)
        hs.append(h)
    acc = 0.0
    for k in range(3):
        acc = acc + np.sum(hs[k] * hs[2 - k])
    return acc


def window_of_steps(w, x):
    hist = [x[0], x[1]]
    for _ in range(3):
        hist.append(np.tanh(w * hist[-1] + 0.5 * hist[-2]))
    return np.sum(hist[-1] * hist[1])


def stacked_grid(w, x):
    a, b = w * x[0], np.sin(x[1])
    return np.sum(np.stack([[a, b], [b * a, a - b]]) ** 2)


def array_of_a_list_of_lists(w, x):
    a, b = w * x[0], np.sin(x[1])  # np.array of lists of rows: each inner list stacked first (a wrong shape before)
    return np.sum(np.array([[a, b], [b * a, a - b]]) ** 2)


def lists_appended_in_a_loop(w, x):
    rows = []
    for k in range(2):
        rows.append([w * x[k] * (k + 1), np.cos(x[2])])
    return np.sum(np.array(rows) ** 2)


def grown_from_the_parameter(w, x):
    hs = [w]
    for _ in range(3):
        hs.append(np.sin(hs[-1] * x[2]))
    return np.sum(np.stack(hs) ** 2)


def max_along_rows(w, x):
    return np.sum(np.max(x * w, axis=1) ** 2)


def max_method_along_columns(w, x):
    return np.sum((x * w).max(axis=0) ** 2) + np.sum(np.min(x * w, axis=-1))


def spread_along_rows(w, x):
    return np.sum(np.std(x * w, axis=1)) + np.sum(np.mean(x * w, axis=0) ** 2)


def above_the_mean(w, x):
    return np.sum(np.where(x > np.mean(x), w * x, 0.5 * w * x ** 2))


def near_the_row_max(w, x):
    return np.sum(np.where(x * w >= np.expand_dims(np.max(x * w, axis=1), 1) - 0.5, np.sin(x * w), 0.0))


def determinant(w, x):
    return np.linalg.det(x + np.diag(w ** 2 + 2.0))


def eigenvalues(w, x):
    return np.sum(np.linalg.eigvalsh(x + x.T + np.diag(w)) ** 3)


def eigenpairs(w, x):
    vals, vecs = np.linalg.eigh(x + x.T + np.diag(w))
    return np.sum(vals ** 3) + np.sum(vecs[:, 0] ** 4)  # (a vector's sign is free: an even power)


def rows_then_slice(w, x, idx):
    return np.sum(np.sin(x[idx, 1:]) * w[1:])


def columns_at(w, x, idx):
    return np.sum(np.tanh(x[:, idx]) * w[:, None])


def slice_then_columns(w, x, idx):
    return np.sum(np.sin(x[1:, idx]) ** 2 * w[1:, None])


def rows_and_a_number(w, x, idx):
    return np.sum(np.sin(x[idx, 0]) * w[:3])


def rows_at_the_argmax_column(w, x, idx):
    i = np.argmax(x[0])  # a number per example beside positions per example (as many as the batch)
    return np.sum(np.sin(x[idx, i]) * w[:3])


def ordered_rows_then_slice(w, x):
    order = np.argsort(x[:, 0])
    return np.sum(x[order, 1:] ** 2 * w[1:])


def argmax_row_then_slice(w, x):
    i = np.argmax(x[:, 0])
    return np.sum(np.sin(x[i, 1:]) * w[1:])


@dataclasses.dataclass
class Program:
    func: object
    data: tuple  # an example's data: the shape of x, and "idx" for integer positions into x's rows/columns


SQUARE, ROWS_OF_N = (N, N), (3, N)
PROGRAMS = [Program(previous_items, (ROWS_OF_N,)), Program(read_in_a_later_loop, (ROWS_OF_N,)),
            Program(window_of_steps, (ROWS_OF_N,)), Program(stacked_grid, (ROWS_OF_N,)),
            Program(array_of_a_list_of_lists, (ROWS_OF_N,)), Program(lists_appended_in_a_loop, (ROWS_OF_N,)),
            Program(grown_from_the_parameter, (ROWS_OF_N,)), Program(max_along_rows, (ROWS_OF_N,)),
            Program(max_method_along_columns, (ROWS_OF_N,)), Program(spread_along_rows, (ROWS_OF_N,)),
            Program(above_the_mean, (ROWS_OF_N,)), Program(near_the_row_max, (ROWS_OF_N,)),
            Program(determinant, (SQUARE,)), Program(eigenvalues, (SQUARE,)), Program(eigenpairs, (SQUARE,)),
            Program(rows_then_slice, (SQUARE, "idx")), Program(columns_at, (SQUARE, "idx")),
            Program(slice_then_columns, (SQUARE, "idx")), Program(rows_and_a_number, (SQUARE, "idx")),
            Program(rows_at_the_argmax_column, (SQUARE, "idx")), Program(ordered_rows_then_slice, (SQUARE,)),
            Program(argmax_row_then_slice, (SQUARE,))]
BY_NAME = {p.func.__name__: p for p in PROGRAMS}

#: how the arguments are mapped: (w's in_axes, the data's in_axes, examples, dtype)
VARIANTS = {"data_axis0": (None, 0, B, np.float64), "data_axis1": (None, 1, B, np.float64),
            "parameter_mapped": (0, None, B, np.float64), "all_mapped": (0, 0, B, np.float64),
            "batch_of_one": (None, 0, 1, np.float64), "float32": (None, 0, B, np.float32)}
#: the default run's rows (each class once); the slow set runs every program in every variant
DEFAULT = {("previous_items", "data_axis0"), ("array_of_a_list_of_lists", "data_axis0"),
           ("window_of_steps", "data_axis1"), ("max_along_rows", "data_axis0"),
           ("above_the_mean", "parameter_mapped"), ("determinant", "all_mapped"), ("eigenpairs", "data_axis0"),
           ("rows_then_slice", "data_axis0"), ("columns_at", "data_axis1"), ("argmax_row_then_slice", "float32")}


def _examples(program: Program, count: int, dtype, seed: int) -> list[tuple]:
    r = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        args = [r.normal(size=N).astype(dtype)]
        for spec in program.data:
            if spec == "idx":
                args.append(r.integers(0, N, size=3))
            else:
                args.append((r.normal(size=spec) / (2 if spec == SQUARE else 1)).astype(dtype))
        out.append(tuple(args))
    return out


def _batch(examples: list[tuple], axes: list) -> tuple:
    """The arguments of the mapped call: an argument mapped along `axis` holds every example's there,
    one not mapped is the first example's."""
    return tuple(examples[0][k] if axis is None else np.stack([e[k] for e in examples], axis=axis)
                 for k, axis in enumerate(axes))


def _per_example(examples: list[tuple], axes: list) -> list[tuple]:
    """What each example's call sees: its own mapped arguments, the first example's others."""
    return [tuple(e[k] if axis is not None else examples[0][k] for k, axis in enumerate(axes)) for e in examples]


def _plan(name: str, variant: str):
    program = BY_NAME[name]
    w_axis, data_axis, count, dtype = VARIANTS[variant]
    axes = [w_axis] + [data_axis] * len(program.data)
    examples = _examples(program, count, dtype, seed=len(name) * 7 + len(variant))
    return program.func, tuple(axes), _batch(examples, axes), _per_example(examples, axes), dtype


def _quiet(call):
    """`call()` with a `srcdiff.PerExampleWarning` made an error: nothing runs one example at a time."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcdiff.PerExampleWarning)
        return call()


ROWS = [pytest.param(p.func.__name__, v, marks=() if (p.func.__name__, v) in DEFAULT else pytest.mark.slow,
                     id=f"{p.func.__name__}-{v}") for p in PROGRAMS for v in VARIANTS]


@pytest.mark.parametrize("name, variant", ROWS)
def test_vmap_batches_the_program_and_its_gradient(name, variant):
    f, axes, args, per, dtype = _plan(name, variant)
    mapped = srcdiff.vmap(f, in_axes=axes, per_example="refuse")
    want = np.stack([np.asarray(f(*e)) for e in per])
    tight = dict(rtol=1e-12, atol=1e-13) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(_quiet(lambda: mapped(*args)), want, **tight)
    assert mapped.per_example is None and "_batched(" in mapped.source
    gradient = srcdiff.grad(f)
    loop = [gradient(*e) for e in per]
    if dtype == np.float64:  # the loop's truth, checked
        for e, g in zip(per, loop):
            np.testing.assert_allclose(g, central_difference(f, e, 0), rtol=1e-5, atol=1e-6)
    batched = srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")
    got = _quiet(lambda: batched(*args))
    assert got.dtype == np.dtype(dtype) and got.shape == (len(per), N)
    np.testing.assert_allclose(got, np.stack(loop), **tight)
    if dtype == np.float32:  # float32's precision of the float64 gradient
        wide = [tuple(np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else a for a in e)
                for e in per]
        np.testing.assert_allclose(got, np.stack([gradient(*e) for e in wide]), rtol=2e-3, atol=2e-3)


#: the gradient with respect to the data (the scatter-add of a gather, a list's adjoints, a stack's)
DATA_ROWS = [pytest.param(name, marks=() if name in ("rows_then_slice", "previous_items", "eigenvalues",
                                                     "rows_at_the_argmax_column")
                          else pytest.mark.slow) for name in BY_NAME]


@pytest.mark.parametrize("name", DATA_ROWS)
def test_vmap_batches_the_gradient_with_respect_to_the_data(name):
    for variant in ("data_axis0", "all_mapped"):
        f, axes, args, per, _ = _plan(name, variant)
        gradient = srcdiff.grad(f, wrt=1)
        loop = [gradient(*e) for e in per]
        for e, g in zip(per, loop):
            np.testing.assert_allclose(g, central_difference(f, e, 1), rtol=1e-5, atol=1e-6)
        got = _quiet(lambda: srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")(*args))  # noqa: B023
        np.testing.assert_allclose(got, np.stack(loop), rtol=1e-12, atol=1e-13)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["max_along_rows", "determinant", "eigenvalues", "rows_then_slice",
                                  "previous_items"])
def test_numba_agrees_or_refuses_at_a_line(name):
    f, axes, args, per, _ = _plan(name, "data_axis0")
    want = np.stack([srcdiff.grad(f)(*e) for e in per])
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# ---- what is still one example at a time: warned, the same numbers ----

def mask_beside_a_slice(w, x):
    return np.sum(x[x[:, 0] > 0, 1:] * w[1:])  # each example's own number of rows


@pytest.mark.parametrize("f", [mask_beside_a_slice], ids=lambda f: f.__name__)  # (a stack given to det: batched
# since wave 29, test_vmap29_census.py)
def test_what_is_not_batched_runs_one_example_at_a_time_with_a_warning(f):
    examples = _examples(Program(f, (SQUARE,)), B, np.float64, seed=11)
    examples = [(e[0], e[1] + np.array([[1.0], [-1.0], [1.0], [-1.0]]) * (k + 1)) for k, e in enumerate(examples)]
    args, per = _batch(examples, [None, 0]), _per_example(examples, [None, 0])
    for g in (f, srcdiff.grad(f)):
        mapped = srcdiff.vmap(g, in_axes=(None, 0))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = mapped(*args)
        warned = [w for w in caught if issubclass(w.category, srcdiff.PerExampleWarning)]
        assert mapped.per_example is not None and len(warned) == 1, mapped.per_example
        np.testing.assert_allclose(got, np.stack([np.asarray(g(*e)) for e in per]), rtol=1e-12, atol=1e-13)


# ---- a tree of parameters (each leaf's gradient batched) ----

def tree_max_along_rows(p, x):
    return np.sum(np.max(x * p["w"], axis=1) ** 2) + p["b"] * np.sum(x)


def tree_determinant(p, x):
    return np.linalg.det(x + np.diag(p["w"] ** 2 + 2.0)) * p["b"]


def tree_rows_then_slice(p, x, idx):
    return np.sum(np.sin(x[idx, 1:]) * p["w"][1:]) + p["b"]


def tree_previous_items(p, x):
    ys = [p["w"] * x[0]]
    for i in range(1, 3):
        ys.append(ys[i - 1] * p["b"] + p["w"] * x[i])
    return np.sum(sum(ys) ** 2)


TREES = [(tree_max_along_rows, max_along_rows), (tree_determinant, determinant),
         (tree_rows_then_slice, rows_then_slice), (tree_previous_items, previous_items)]


@pytest.mark.parametrize("f, like", TREES, ids=[t[0].__name__ for t in TREES])
def test_vmap_of_the_gradient_of_a_tree_of_parameters(f, like):
    program = BY_NAME[like.__name__]
    examples = _examples(program, B, np.float64, seed=5)
    axes = [None] + [0] * len(program.data)
    p = {"w": examples[0][0], "b": 0.7}
    args = (p, *_batch(examples, axes)[1:])
    per = [(p, *e[1:]) for e in _per_example(examples, axes)]
    gradient = srcdiff.grad(f)
    got = _quiet(lambda: srcdiff.vmap(gradient, in_axes=tuple(axes), per_example="refuse")(*args))
    loop = [gradient(*e) for e in per]
    for e, g in zip(per, loop):  # the loop's truth, leaf by leaf
        np.testing.assert_allclose(g["w"], central_difference(lambda w, *rest: f({"w": w, "b": 0.7}, *rest),
                                                              (p["w"], *e[1:]), 0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g["b"], central_difference(lambda b, *rest: f({"w": p["w"], "b": b}, *rest),
                                                              (0.7, *e[1:]), 0), rtol=1e-5, atol=1e-6)
    for key in p:
        np.testing.assert_allclose(got[key], np.stack([g[key] for g in loop]), rtol=1e-12, atol=1e-13)


# ---- an index of arrays apart from each other, the same for every example (it made invalid code) ----

def positions_apart(w, x, idx):
    return np.sum(np.cos(x[idx, :, 1]) * w[0]) + np.sum(x[1:, idx[:2], 0] ** 2)


@pytest.mark.parametrize("wrt", [0, 1])
def test_an_index_of_arrays_apart_the_same_for_every_example(wrt):
    r = np.random.default_rng(8)
    w, xs, idx = r.normal(size=N), r.normal(size=(B, N, 3, 2)), np.array([2, 0, 2])
    per = [(w, x, idx) for x in xs]
    for f in (positions_apart, srcdiff.grad(positions_apart, wrt=wrt)):
        got = _quiet(lambda: srcdiff.vmap(f, in_axes=(None, 0, None), per_example="refuse")(w, xs, idx))  # noqa: B023
        np.testing.assert_allclose(got, np.stack([np.asarray(f(*e)) for e in per]), rtol=1e-12, atol=1e-13)
    for e in per:
        np.testing.assert_allclose(srcdiff.grad(positions_apart, wrt=wrt)(*e),
                                   central_difference(positions_apart, e, wrt), rtol=1e-5, atol=1e-6)
