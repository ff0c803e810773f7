"""The red team's wave 29b: the closure of COMPOSED transformations and of the API's options on 86
programs written the way users write them (redteam_wave29b_ml.py: losses and layers, classes with
methods and attributes, dict / dataclass / namedtuple parameter trees, functools.partial,
keyword-only arguments; redteam_wave29b_science.py: small physics and statistics with the math
module, while/for with break and continue, early returns, enumerate/zip/reversed;
redteam_wave29b_idioms.py: *args, closures over globals, comprehensions, srcdiff's grad,
value_and_grad and jacobian called inside a differentiated function, custom_jvp / custom_vjp
functions inside others, and 3 stop_gradient programs checked against twins that hold the stopped
value constant).  Each of the 83 table programs goes through the cells of redteam_wave29b_cells.py,
against float64 central differences of the composed function (of the already-checked gradient
for a second derivative).

Census (ok / n/a / refused at the user's line / WRONG / bad error; a bad error is a crash that is
not a SrcDiffError, or a refusal naming no line of the user's; n/a: grad(grad(f)) of f of an
array, vmap of a tree argument, a Hessian's argnums tuple without a second float argument, float32
of a float argument, vjp by keyword of a function whose first parameter is not the one
differentiated).  Four programs are refused by grad itself at the user's line, and so by every
composition: ``reversed(list(enumerate(x)))`` (list(...)), a dict comprehension over run-time items,
``functools.partial(np.dot, ...)`` made in the body, a call of a srcdiff Jacobian object inside a
differentiated function; forward mode refuses a custom_vjp function at its line (jvp, jvp of a
dict), as JAX does.  "before" is on 82 programs (one excluded then by a mistake of the table),
with the harness's own two mistakes in the dict-Hessian and float32-Hessian cells corrected:

    composition             before: ok  n/a  ref  WRONG  bad        after:  ok  n/a  ref  WRONG  bad
    grad(grad(f))                   26   56    0      0    0               26   57    0      0    0
    jacobian(grad(f))               75    0    7      0    0               79    0    4      0    0
    jvp(grad(f))                    78    0    4      0    0               79    0    4      0    0
    vjp(grad(f))                    75    0    7      0    0               79    0    4      0    0
    vjp(jacobian(f))                 0    0    0      0   82               79    0    4      0    0
    vmap(grad(f))                   75    3    4      0    0               76    3    4      0    0
    vmap(jacobian(f))                0    3    0      0   79               76    3    4      0    0
    vmap(hessian(f))                 0    3    0      0   79               76    3    4      0    0
    hessian, argnums tuple          36   46    0      0    0               36   47    0      0    0
    hessian of a dict               78    0    4      0    0               79    0    4      0    0
    jvp of a dict                   76    0    6      0    0               77    0    6      0    0
    vjp of a dict                   78    0    4      0    0               79    0    4      0    0
    hessian, float32                52   26    4      0    0               53   26    4      0    0
    grad, negative argnums          78    0    4      0    0               79    0    4      0    0
    grad, hessian by keyword        78    0    4      0    0               79    0    4      0    0
    vjp, keyword arguments          38    6    4      0   34               73    6    4      0    0
    jit="numba" (a sample of 31 programs; refusals are numba's or batching's reach, at the line):
    hessian                         29    0    2      0    0               29    0    2      0    0
    jacobian(grad(f))               26    0    5      0    0               29    0    2      0    0
    vmap(grad(f))                   17    3   11      0    0               17    3   11      0    0

No WRONG answer.  Found and fixed, the class with variants here:

1. BAD ERROR (TypeError, 34 programs): ``srcdiff.vjp(f, x, y=y)``, keyword arguments of `f`, as grad,
   hessian, jacobian and hvp take them: "vjp() got an unexpected keyword argument".  vjp passes them
   on, and jit="numba"'s pullback too; wrt may name any parameter (api/vjps.py, api/vjp_numba.py).
2. BAD ERROR: ``srcdiff.jacobian(np.sin)`` (TypeError from NumPy: srcdiff's bound defaults ``dtype=None,
   signature=None`` passed to the ufunc), ``jacobian``/``hessian``/``vjp`` of ``math.sin`` or a builtin
   ran it before any refusal; now refused as grad refuses it (api/pullbacks.py, Pullbacks._target).
3. REFUSED, naming no line, where JAX's users expect an answer: ``vmap(hessian(f))`` and
   ``vmap(jacobian(f))`` (per-example Hessians and Jacobians).  vmap runs srcdiff's Jacobian or
   Hessian once per example (its own rows are one batched call already) through its per-example
   loop: never silent (PerExampleWarning at the user's def line, `.per_example`, `.source`;
   per_example="allow" / "refuse" as for any such call); with jit="numba" still refused, now at
   the user's def line like every refusal of a transformed function (api/vmap.py; frontend/
   callables.py user_def_line).
4. REFUSED: ``vjp(jacobian(f))``.  Its pullback of U is now the gradient of ``sum(U * jacobian(f)(x))``:
   for f of one value ``vjp(grad(f))``, else jacobian(jacobian(f))'s rows contracted with U; a mixed
   derivative (another argument) or vjp of a Hessian stays refused, at the def line (api/vjps.py).
5. REFUSED at the def line: ``jacobian(grad(f))`` and ``vjp(grad(f))`` where the gradient is a tree (a
   dict, dataclass or namedtuples of parameters), though ``hessian(f)`` takes trees.  The Jacobian of
   a plain gradient with respect to its own parameter is the Hessian (api/jacobians.py), and the
   pullback of such a gradient with respect to B is ``g -> H[B][A] g``, forward mode over
   ``grad(f, wrt=B)`` along g (api/vjps.py SymmetricPullback; api/outer.py TreeGradientError).  A
   mixed Jacobian of a tree gradient (``jacobian(grad(f), wrt=1)``) stays refused at the def line.
6. REFUSED by jit="numba" at the user's line: ``vmap(grad(f), jit="numba")`` of a sum along an axis
   (a softmax's normaliser ``np.sum(Z, axis=-1, keepdims=True)``, ``np.sum(X @ W, axis=1)``): the
   batched code's ``sum_last`` and ``full_rows`` had no numba versions; now written
   (backend/numba/row_helpers.py).

Open (refused at the user's line): batching's own reach (a branch that differs between examples, a call of a srcdiff
gradient inside the mapped function) which NumPy's vmap runs one example at a time and numba
refuses; ``vjp`` of a varargs function's Jacobian; ``reversed(list(enumerate(x)))``.  (``vmap(grad(f),
jit="numba")`` where the batched code writes through an index: numba versions since, tests/backend/
test_numba_vmap_writes.py.)
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from . import redteam_wave29b_cells as cells
from . import redteam_wave29b_idioms as idioms
from . import redteam_wave29b_ml as ml
from . import redteam_wave29b_programs as w


def programs():
    return corpus.from_table(w.PROGRAMS, "w29b", "redteam_wave29b_programs", 29)


def _name(p):
    return p.name.partition(":")[2]


#: refused by grad at the user's line, and so by every composition
#: (orbit_reversed and dict_comprehension, accepted since wave 34, agree in every composition)
REFUSED = {"inner_product_partial", "jacobian_object_inside"}
#: forward mode refuses a custom_vjp function at its line (as JAX does)
NO_FORWARD = {"custom_vjp_inside", "custom_vjp_scalar"}
#: the rows the default run keeps (one of each kind; the findings' own tests are below)
KEPT = {"pendulum_energy", "custom_jvp_inside"}
#: the compositions of a row
ROW = ("grad", "hessian", *cells.COMPOSED)


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_every_composition(program):
    row = matrix.run(program, ROW)
    assert not row.excluded, row.excluded
    bad = {k: v for k, v in matrix.not_ok(row).items() if v[0] != matrix.NA}
    if _name(program) in NO_FORWARD:
        for k in ("jvp_tree",):
            assert bad.pop(k)[0] == matrix.REFUSED and row.cells[k].located, row.cells[k].message
    assert not bad, bad


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_compositions_with_numba(program):
    row = matrix.run(program, cells.NUMBA)
    assert not row.excluded, row.excluded
    for name, cell in row.cells.items():
        assert cell.outcome in (matrix.OK, matrix.NA) or cell.outcome == matrix.REFUSED and cell.located, \
            (name, cell.message)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "inner_product_partial", p) for p in programs()
                                     if _name(p) in REFUSED], ids=_name)
def test_what_grad_refuses_every_composition_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jac_grad", "jvp_grad", "vjp_grad", "vmap_hess", "hess_tree",
                                                "kwargs"))


# ---- stop_gradient: every composition against the twin holding the stopped value constant ----


@pytest.mark.parametrize("name, f, twin, make, frozen", idioms.STOPPED, ids=[s[0] for s in idioms.STOPPED])
def test_stop_gradient_through_compositions(name, f, twin, make, frozen):
    args = make(np.random.default_rng(29))
    held = (*args, *frozen(*args))
    g_twin = srcdiff.grad(twin)
    want_g = central_difference(twin, held, 0)
    np.testing.assert_allclose(srcdiff.grad(f)(*args), want_g, rtol=1e-6, atol=1e-8)
    n, shape = int(np.size(args[0])), np.shape(args[0])

    def entry(k):
        return lambda *a: np.ravel(g_twin(*a))[k]
    want_h = np.reshape(np.stack([np.ravel(central_difference(entry(k), held, 0)) for k in range(n)]), shape * 2)
    np.testing.assert_allclose(srcdiff.hessian(f)(*args), want_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(srcdiff.jacobian(srcdiff.grad(f))(*args), want_h, rtol=1e-5, atol=1e-6)
    v = np.ones_like(args[0]) if np.ndim(args[0]) else 1.0
    _, t = srcdiff.jvp(srcdiff.grad(f), args, (v, *[None] * (len(args) - 1)))
    np.testing.assert_allclose(t, np.reshape(np.reshape(want_h, (np.size(v), -1)) @ np.ravel(v), np.shape(v)),
                               rtol=1e-5, atol=1e-6)
    if isinstance(args[0], float):
        np.testing.assert_allclose(srcdiff.grad(srcdiff.grad(f))(*args), want_h, rtol=1e-5, atol=1e-6)
    else:
        batch = np.stack([args[0], args[0] + 0.1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
            got = srcdiff.vmap(srcdiff.hessian(f), in_axes=(0, *[None] * (len(args) - 1)))(batch, *args[1:])
        np.testing.assert_allclose(got[0], want_h, rtol=1e-5, atol=1e-6)


# ---- 1. vjp with keyword arguments ----


def scaled_loss(w, X, y, *, scale=2.0, offset=0.0):
    return scale * np.mean((np.tanh(X @ w) - y) ** 2) + offset * np.sum(w)


def with_default(w, X, y, power=2):
    return np.sum(np.abs(X @ w - y) ** power)


def _data():
    r = np.random.default_rng(291)
    return r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)


@pytest.mark.parametrize("f, kwargs, wrt", [
    (scaled_loss, {"X": None, "y": None}, 0), (scaled_loss, {"y": None, "scale": 0.5}, 0),
    (scaled_loss, {"X": None, "y": None, "offset": 1.5}, "X"), (with_default, {"y": None, "power": 3}, 0),
    (with_default, {"X": None, "y": None}, "y")],
    ids=["data_by_name", "keyword_only", "wrt_named", "default_overridden", "wrt_y"])
@pytest.mark.parametrize("jit", [None, pytest.param("numba", marks=pytest.mark.slow)])
def test_vjp_takes_keyword_arguments(f, kwargs, wrt, jit):
    w_, X, y = _data()
    values = {"X": X, "y": y}
    kwargs = {k: values.get(k, v) if v is None else v for k, v in kwargs.items()}
    positional = [a for name, a in (("w", w_), ("X", X), ("y", y)) if name not in kwargs]
    value, pullback = srcdiff.vjp(f, *positional, wrt=wrt, jit=jit, **kwargs)
    assert value == pytest.approx(f(*positional, **kwargs))
    names = ["w", "X", "y"]
    index = wrt if isinstance(wrt, int) else names.index(wrt)
    full = {"w": w_, "X": X, "y": y, **kwargs}
    extra = {k: v for k, v in full.items() if k not in names}
    want = central_difference(lambda *a: f(*a, **extra), [full[n] for n in names], index)
    np.testing.assert_allclose(pullback(1.5), 1.5 * want, rtol=1e-6, atol=1e-8)


# ---- 2. a ufunc or a builtin given to jacobian, hessian, vjp ----


@pytest.mark.parametrize("func", [np.sin, np.exp, math.sin, abs, np.tanh],
                         ids=["np_sin", "np_exp", "math_sin", "abs", "np_tanh"])
@pytest.mark.parametrize("transform", ["jacobian", "hessian", "vjp", "jacobian_numba"])
def test_a_function_without_source_is_refused_as_grad_refuses_it(func, transform):
    x = np.array([0.3, 0.5])
    with pytest.raises(srcdiff.SrcDiffError, match="srcdiff differentiates Python functions"):
        if transform == "vjp":
            srcdiff.vjp(func, x)
        elif transform == "jacobian_numba":
            srcdiff.jacobian(func, jit="numba")(x)
        else:
            getattr(srcdiff, transform)(func)(x)


# ---- 3. vmap of a Jacobian or a Hessian ----


def ridge(w, X, y, lam):
    return np.sum((np.tanh(X @ w) - y) ** 2) + lam * np.sum(w ** 4)


def vector_field(x, a):
    return np.array([np.sin(x[0] * x[1]), a * x[0] ** 2, np.exp(-x[1])])


def _grads_of(f, args, index):
    return lambda v: srcdiff.grad(f, wrt=index)(*args[:index], v, *args[index + 1:])


@pytest.mark.parametrize("make", ["hessian", "jacobian", "jacobian_of_grad", "vector_jacobian"])
def test_vmap_of_a_jacobian_or_hessian_runs_per_example(make):
    w_, X, y = _data()
    W = np.stack([w_, w_ + 0.2, w_ - 0.3])
    if make == "vector_jacobian":
        xs = np.array([[0.3, 0.4], [1.0, -0.5]])
        got = srcdiff.vmap(srcdiff.jacobian(vector_field), in_axes=(0, None), per_example="allow")(xs, 1.5)
        for k, x in enumerate(xs):
            want = np.stack([central_difference(lambda v, i=i: vector_field(v, 1.5)[i], (x,), 0) for i in range(3)])
            np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-8)
        return
    inner = {"hessian": srcdiff.hessian(ridge), "jacobian": srcdiff.jacobian(ridge),
             "jacobian_of_grad": srcdiff.jacobian(srcdiff.grad(ridge))}[make]
    mapped = srcdiff.vmap(inner, in_axes=(0, None, None, None))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = mapped(W, X, y, 0.1)
    assert [c.category for c in caught] == [srcdiff.PerExampleWarning] and caught[0].lineno > 1
    assert mapped.per_example is not None
    for k, wk in enumerate(W):
        args = (wk, X, y, 0.1)
        if make == "jacobian":
            want = central_difference(ridge, args, 0)
        else:
            g = srcdiff.grad(ridge)
            want = np.stack([central_difference(lambda v, *rest, i=i, g=g: g(v, *rest)[i], args, 0) for i in range(3)])
        np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-6)


def test_vmap_of_a_hessian_with_a_tree_and_the_policies():
    w_, X, y = _data()

    def call(per_example, jit=None):
        return srcdiff.vmap(srcdiff.hessian(ridge, wrt=(0, 3)), in_axes=(0, None, None, None),
                            per_example=per_example, jit=jit)(np.stack([w_, -w_]), X, y, 0.1)
    got = call("allow")
    assert [[np.shape(b) for b in row] for row in got] == [[(2, 3, 3), (2, 3)], [(2, 3), (2,)]]
    np.testing.assert_allclose(got[0][0][1], srcdiff.hessian(ridge)(-w_, X, y, 0.1), rtol=1e-12)
    with pytest.raises(srcdiff.SrcDiffError) as refused:
        call("refuse")
    assert refused.value.location is not None and refused.value.location.filename == __file__
    with pytest.raises(srcdiff.SrcDiffError, match="cannot transform"):
        call("allow", jit="numba")


def cube_sum(t):
    return t ** 3 + math.sin(t)


@pytest.mark.parametrize("case", ["scalar_function", "vector_field", "number"])
def test_vjp_of_a_jacobian(case):
    """``vjp(jacobian(f))``: the pullback of U is the gradient of ``sum(U * jacobian(f)(x))``."""
    w_, X, y = _data()
    f, args, U = {"scalar_function": (ridge, (w_, X, y, 0.1), np.array([1.0, -0.5, 2.0])),
                  "vector_field": (vector_field, (np.array([0.3, -0.2]), 1.5), np.arange(6.0).reshape(3, 2)),
                  "number": (cube_sum, (0.7,), 1.0)}[case]
    jac = srcdiff.jacobian(f)
    value, pullback = srcdiff.vjp(jac, *args)
    np.testing.assert_allclose(value, jac(*args), rtol=1e-12)
    want = central_difference(lambda *a: np.sum(jac(*a) * U), args, 0)
    np.testing.assert_allclose(pullback(U), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(pullback(U), want, rtol=1e-5, atol=1e-6)  # (called again)
    with pytest.raises(srcdiff.SrcDiffError, match="adjoint has shape"):
        pullback(np.ones(7))


def test_vjp_of_a_jacobian_into_another_argument_or_of_a_hessian_is_refused_at_the_def_line():
    w_, X, y = _data()
    for call in (lambda: srcdiff.vjp(srcdiff.jacobian(vector_field), np.array([0.3, -0.2]), 1.5, wrt=1),
                 lambda: srcdiff.vjp(srcdiff.hessian(ridge), w_, X, y, 0.1)):
        with pytest.raises(srcdiff.SrcDiffError, match="cannot transform") as refused:
            call()
        assert refused.value.location is not None and refused.value.location.filename == __file__


# ---- 4. jacobian(grad(f)) and vjp(grad(f)) of a gradient that is a tree ----


def _tree_cases():
    r = np.random.default_rng(294)
    X = r.normal(size=(5, 3))
    return {
        "dict": (ml.mlp_dict, (ml._mlp_params(r), X, r.normal(size=(5, 1)))),  # noqa: SLF001  its table's maker
        "dataclass": (ml.dataclass_logistic, (ml.Params(r.normal(size=3), 0.2), X, np.array([1.0, -1, 1, -1, 1]))),
        "namedtuples": (ml.namedtuple_layers, ([ml.Layer(0.5 * r.normal(size=(3, 3)), 0.1 * r.normal(size=3))
                                                for _ in range(2)], r.normal(size=3))),
    }


def _tree_hessian_reference(f, args, wrt_other=None):
    """Central differences of grad(f) (in the tree) along each leaf entry of `args[0]` (or of
    `args[wrt_other]`): the n x m matrix d grad / d x (flattened, leaf order)."""
    from . import leaves
    g = srcdiff.grad(f)
    at = 0 if wrt_other is None else wrt_other
    x0 = leaves.vector(args[at])
    cols = []
    for k in range(x0.size):
        e = np.zeros_like(x0)
        e[k] = 1e-5
        hi, lo = list(args), list(args)
        hi[at], lo[at] = leaves.with_vector(args[at], x0 + e), leaves.with_vector(args[at], x0 - e)
        cols.append((leaves.vector(g(*hi)) - leaves.vector(g(*lo))) / 2e-5)
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("case", ["dataclass", pytest.param("dict", marks=pytest.mark.slow),
                                  pytest.param("namedtuples", marks=pytest.mark.slow)])
def test_jacobian_and_vjp_of_a_tree_gradient(case):
    from . import leaves
    f, args = _tree_cases()[case]
    want = _tree_hessian_reference(f, args)
    got = srcdiff.jacobian(srcdiff.grad(f))(*args)
    np.testing.assert_allclose(leaves.square(got, args[0]), want, rtol=1e-5, atol=1e-6)
    v = np.linspace(-1.0, 1.0, want.shape[0])
    value, pullback = srcdiff.vjp(srcdiff.grad(f), *args)
    assert type(value) is type(args[0])
    back = pullback(leaves.with_vector(args[0], v))
    assert type(back) is type(args[0])
    np.testing.assert_allclose(leaves.vector(back), want.T @ v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["dict", "dataclass"])
def test_vjp_of_a_tree_gradient_into_another_argument(case):
    """vjp(grad(f), wrt=X): the mixed block, d<grad_p f, v>/dX, by forward mode over grad(f, wrt=X)."""
    from . import leaves
    f, args = _tree_cases()[case]
    v = leaves.with_vector(args[0], np.linspace(-1.0, 1.0, leaves.vector(args[0]).size))
    _, pullback = srcdiff.vjp(srcdiff.grad(f), *args, wrt=1)
    mixed = _tree_hessian_reference(f, args, wrt_other=1)  # d grad_p / dX: (n_p, n_X)
    np.testing.assert_allclose(np.ravel(pullback(v)), mixed.T @ leaves.vector(v), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["dict", "dataclass", "namedtuples"])
def test_a_mixed_jacobian_of_a_tree_gradient(case):
    """jacobian(grad(f), wrt=X) of a tree gradient (refused until wave 30, test_reach30.py): per leaf of
    the tree, its rows of d grad_p / dX."""
    from . import leaves
    f, args = _tree_cases()[case]
    got = srcdiff.jacobian(srcdiff.grad(f), wrt=1)(*args)
    n_x = np.size(args[1])
    rows = np.concatenate([np.reshape(block, (-1, n_x)) for block in leaves.float_leaves(got)])
    np.testing.assert_allclose(rows, _tree_hessian_reference(f, args, wrt_other=1), rtol=1e-5, atol=1e-6)


@pytest.mark.slow  # (numba compiles for seconds)
def test_jacobian_of_a_tree_gradient_with_numba():
    from . import leaves
    f, args = _tree_cases()["dataclass"]
    got = srcdiff.jacobian(srcdiff.grad(f), jit="numba")(*args)
    np.testing.assert_allclose(leaves.square(got, args[0]), _tree_hessian_reference(f, args), rtol=1e-5, atol=1e-6)


# ---- 5. vmap(grad(f), jit="numba") of sums along an axis: numba versions of sum_last and full_rows ----


@pytest.mark.slow  # (numba compiles for seconds)
@pytest.mark.parametrize("f, shape", [(ml.rows_normalised, (3, 2)), (ml.row_sums, (3, 2)), (ml.last_axis_keep, (3,)),
                                      (ml.log_softmax_rows, (3, 2))], ids=["normalised", "row_sums", "keepdims",
                                                                        "log_softmax_rows"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_grad_numba_of_sums_along_an_axis(f, shape, dtype):
    r = np.random.default_rng(295)
    X = r.normal(size=(4, 3))
    extra = (np.eye(2)[[0, 1, 1, 0]],) if f is ml.log_softmax_rows else ()
    Ws = r.normal(size=(2, *shape))
    mapped = srcdiff.vmap(srcdiff.grad(f), in_axes=(0, None, *[None] * len(extra)), jit="numba")
    got = mapped(Ws.astype(dtype), X.astype(dtype), *extra)
    assert got.dtype == dtype and ("sum_last" in mapped.source or "full_rows" in mapped.source)
    for k in range(2):
        want = central_difference(f, (Ws[k], X, *extra), 0)
        np.testing.assert_allclose(got[k], want, rtol=1e-5 if dtype == np.float64 else 2e-3,
                                   atol=1e-6 if dtype == np.float64 else 2e-3)
