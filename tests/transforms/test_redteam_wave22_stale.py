"""The red team's twenty-second wave: the newest optimiser pass (float masks taken case by case,
backend/optimize/masks.py) and the newest cache key (a function's code replaced in place, as a
module reloader does) attacked by programs written the way users write them.  References are
float64 central differences of the function as it is now, never srcdiff's earlier answer.

Found and fixed, each class with variants here (each test below fails before its fix):

1. SILENT (grad, value_and_grad, hessian, every transformation reading the optimised gradient):
   a float mask times bool arrays, ``m * above + m * far`` (a count of flags where the mask
   holds), was selected as ``np.where(c, above + far, ...)``: the product by the mask dropped,
   ``+`` of two bool arrays is NumPy's logical or, 1 where the arithmetic counted 2; ``-`` of
   them (``m * above - m * far``) raised a TypeError named at the user's line.  Fixed in
   backend/optimize/masks.py: a branch keeps a sum, difference or negation only where it is
   certainly of floats, and one branch at least is a float.
2. SILENT (every transformation, a fresh one too): a helper inlined into its caller was keyed
   on what it reads, not on its own code: ``helper.__code__ = ...`` (IPython's autoreload) kept
   the old helper's derivative wherever the helper reads no global of its own.  Fixed in
   driver/lowering.py (`inlinable`'s key holds the helper's state: its code and defaults).
3. SILENT (a transformation made before the change): a helper's defaults replaced
   (``helper.__defaults__ = (3.0,)``) or its keyword-only defaults changed in place were not in
   the fast path's test, which kept the old code.  Fixed in backend/guards.py.
4. SILENT (every transformation, fresh ones and new objects too): a method called through
   ``self`` (``self.act(x)``, a property ``self.scale``) was built in from the class without a
   dependency: rebinding it on the class (``Model.act = ...``) or replacing its code kept the old
   derivative, and so did replacing a bound method's own code (``Model.loss.__code__ = ...``).
   Fixed in frontend/flatten_exprs.py (the class's attribute is a dependency, its code and
   defaults its state) and frontend/flatten.py (the flattened function is keyed on its code).
5. SILENT (every transformation): a staticmethod called through its class (``Phys.scale(x)``)
   or an object's ``__call__`` (``PHYS(x)``) rebound on the class, or the staticmethod's code
   replaced, kept the old derivative.  Fixed in lower/static_values.py and
   frontend/flatten_exprs.py (the class's attribute a dependency) and frontend/depends.py (a
   staticmethod's, classmethod's or property's state is its function's).
6. SILENT (every transformation): a decorated helper (``functools.wraps``)
   whose wrapped function's code was replaced kept the old derivative: only the wrapper's own
   code was compared, while srcdiff reads the wrapped function's source.  Fixed in
   frontend/depends.py (`state_of` holds the wrapped functions' code) and backend/guards.py.

Attacked without a wrong gradient: masks of a residual and of an argument, masks dividing,
squared, rebound operands, two masks, masks broadcast along rows, int arrays kept in both
branches and written into afterwards, a dropped operand wider than the mask, masks read in a
loop, an operand written after the selection; Hessians and Jacobians of 64-70 variables (several
chunks of rows whose seed-independent work is hoisted) through cumulative sums written into,
loops accumulating in place, sorts, Cholesky factors and vector outputs written into.
"""

from __future__ import annotations

import copy
import importlib
import sys
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

# ---- 1. bool arrays meeting a float mask (backend/optimize/masks.py) --------------------------


def votes(w, X, y):
    """Two overlapping flags counted where the mask holds: 2 where both are set."""
    r = X @ w - y
    above = r > 0.0
    far = np.abs(r) > 0.5
    m = (y > 0).astype(float)
    score = m * above + m * far + (1.0 - m) * 0.5
    return np.sum(score * r * r)


def three_votes(w, X, y):
    r = X @ w - y
    a = r > 0.0
    b = r > -0.5
    c = r > 0.5
    m = (np.abs(y) < 1.0).astype(float)
    n = m * a + m * b + m * c + (1.0 - m) * 3.0
    return np.sum(n * r ** 2)


def votes_difference(w, X, y):
    """``m * above - m * far``: a bool array's ``-`` raises where the mask is dropped."""
    r = X @ w - y
    above = r > 0.0
    far = np.abs(r) > 0.5
    m = (y > 0).astype(float)
    score = m * above - m * far + (1.0 - m) * 0.5
    return np.sum(score * r * r)


def where_mask_flags(w, X, y):
    """The mask made by np.where, the flags one bool array read twice."""
    r = X @ w - y
    big = np.abs(r) > 0.3
    m = np.where(r > 0, 1.0, 0.0)
    weight = m * big + m * big + (1.0 - m) * big
    return np.sum(weight * r * r)


def negated_flags(w, X, y):
    r = X @ w - y
    above = r > 0.0
    m = (y > 0).astype(float)
    score = -(m * above) + (1.0 - m) * above
    return np.sum(score * r * r * r)


def int_ranks_written(w, X, y):
    """An int array in both branches, the result written into with a float afterwards."""
    r = X @ w - y
    order = np.argsort(y)
    m = (r > 0).astype(float)
    rank = m * order + (1.0 - m) * order * 2 + m * order * 3
    rank[0] = 0.5
    return np.sum(rank * r * r)


def smooth_l1_mask(w, X, y):
    """The benchmark's smooth L1 (still selected: its branches are floats)."""
    r = X @ w - y
    m = (np.abs(r) < 1.0).astype(float)
    return np.sum(m * 0.5 * r ** 2 + (1 - m) * (np.abs(r) - 0.5))


FLAGS = [votes, three_votes, votes_difference, where_mask_flags, negated_flags, int_ranks_written, smooth_l1_mask]


def _residual_args():
    r = np.random.default_rng(0)
    X, w, y = r.normal(size=(8, 3)), r.normal(size=3), r.normal(size=8)
    return [w, X, y]


def _quiet():
    warnings.simplefilter("ignore")
    return np.errstate(all="ignore")


@pytest.mark.parametrize("f", FLAGS, ids=lambda f: f.__name__)
def test_flags_meeting_a_mask_against_central_differences(f):
    args = _residual_args()
    want = central_difference(f, copy.deepcopy(args), 0)
    with warnings.catch_warnings(), _quiet():
        np.testing.assert_allclose(srcdiff.grad(f)(*copy.deepcopy(args)), want, rtol=1e-6, atol=1e-7)
        value, got = srcdiff.value_and_grad(f)(*copy.deepcopy(args))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(value, f(*copy.deepcopy(args)), rtol=1e-12)
        debug = srcdiff.grad(f, debug=True)(*copy.deepcopy(args))
    np.testing.assert_allclose(debug, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FLAGS, ids=lambda f: f.__name__)
def test_flags_meeting_a_mask_second_order(f):
    args = _residual_args()
    grad = srcdiff.grad(f)
    w, eps = args[0], 1e-5
    want = np.stack([(grad(w + eps * e, *args[1:]) - grad(w - eps * e, *args[1:])) / (2 * eps)
                     for e in np.eye(w.size)])
    with warnings.catch_warnings(), _quiet():
        H = srcdiff.hessian(f)(*copy.deepcopy(args))
        v = np.array([0.3, -1.0, 0.5])
        hv = srcdiff.hvp(f, w.copy(), v, *copy.deepcopy(args[1:]))
    np.testing.assert_allclose(H, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hv, want @ v, rtol=1e-5, atol=1e-5)


def test_flags_are_not_summed_as_bools_in_the_source():
    args = _residual_args()
    made = srcdiff.grad(votes)
    made(*args)
    assert "above + far" not in made.source


def test_a_float_mask_is_still_selected():
    args = _residual_args()
    made = srcdiff.grad(smooth_l1_mask)
    made(*args)
    assert "np.where(" in made.source and ".astype(float)" not in made.source


# ---- 2-4. code, defaults and methods changed after a transformation was made -----------------

MODULE = '''
import numpy as np


def helper(x):
    return np.sin(x)


def helper_other(x):
    return np.cos(x) * x


def through_helper(x):
    return np.sum(helper(x) * x)


def scaled(x, p=2.0):
    return x ** p


def through_default(x):
    return np.sum(scaled(x))


def keyword_scaled(x, *, p=2.0):
    return x ** p


def through_keyword_default(x):
    return np.sum(keyword_scaled(x))


def wrap(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@wrap
def wrapped(x):
    return x ** 2


def wrapped_other(x):
    return x ** 3


def through_wrapped(x):
    return np.sum(wrapped(x))


class Model:
    def __init__(self, k):
        self.k = k

    def act(self, z):
        return np.tanh(z)

    def act_other(self, z):
        return z * z

    @property
    def gain(self):
        return self.k * 2.0

    def loss(self, x):
        return np.sum(self.act(x) * self.gain)

    def loss_other(self, x):
        return np.sum(self.act(x) * x * self.gain)


def scale_other(x):
    return 3.0 * x


class Phys:
    def __init__(self, k):
        self.k = k

    @staticmethod
    def scale(x):
        return 2.0 * x

    def __call__(self, x):
        return np.sum(np.sin(x) * self.k)

    def call_other(self, x):
        return np.sum(np.cos(x) * self.k)


PHYS = Phys(1.5)


def through_static(x):
    return np.sum(Phys.scale(x) ** 2)


def through_call(x):
    return PHYS(x)
'''

X = np.array([0.5, -1.0, 2.0])
V = np.array([1.0, -0.5, 0.25])


@pytest.fixture
def mod(tmp_path, monkeypatch):
    (tmp_path / "reload22_model.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("reload22_model", None)
    yield importlib.import_module("reload22_model")
    sys.modules.pop("reload22_model", None)


def _grad_at(f, x):
    return central_difference(f, (x,), 0)


def _hv(f):
    eps = 1e-4
    return (_grad_at(f, X + eps * V) - _grad_at(f, X - eps * V)) / (2 * eps)


def _set(obj, name, value):
    setattr(obj, name, value)


def _model(m):
    return m.Model(1.5).loss


#: (the function transformed, given the module; how the module changes)
CHANGES = {
    "helper_code": (lambda m: m.through_helper, lambda m: _set(m.helper, "__code__", m.helper_other.__code__)),
    "helper_defaults": (lambda m: m.through_default, lambda m: _set(m.scaled, "__defaults__", (3.0,))),
    "helper_kwdefaults_in_place": (lambda m: m.through_keyword_default,
                                   lambda m: m.keyword_scaled.__kwdefaults__.__setitem__("p", 3.0)),
    "method_code": (_model, lambda m: _set(m.Model.act, "__code__", m.Model.act_other.__code__)),
    "method_rebound": (_model, lambda m: _set(m.Model, "act", m.Model.act_other)),
    "property_rebound": (_model, lambda m: _set(m.Model, "gain", property(lambda self: self.k * 3.0))),
    "bound_method_code": (_model, lambda m: _set(m.Model.loss, "__code__", m.Model.loss_other.__code__)),
    "staticmethod_rebound": (lambda m: m.through_static, lambda m: _set(m.Phys, "scale", staticmethod(m.scale_other))),
    "staticmethod_code": (lambda m: m.through_static, lambda m: _set(m.Phys.scale, "__code__", m.scale_other.__code__)),
    "call_rebound": (lambda m: m.through_call, lambda m: _set(m.Phys, "__call__", m.Phys.call_other)),
    "wrapped_code": (lambda m: m.through_wrapped,
                     lambda m: _set(m.wrapped.__wrapped__, "__code__", m.wrapped_other.__code__)),
}


def _value_and_grad(f):
    made = srcdiff.value_and_grad(f)
    return lambda x: made(x)[1]


def _hessian(f):
    made = srcdiff.hessian(f)
    return lambda x: made(x) @ V


def _jvp(f):
    return lambda x: srcdiff.jvp(f, (x,), (V,))[1]


KEPT = {
    "grad": srcdiff.grad,
    "value_and_grad": _value_and_grad,
    "hessian": _hessian,
    "jacobian": srcdiff.jacobian,
    "numba": lambda f: srcdiff.grad(f, jit="numba"),
}
REFERENCE = {"hessian": _hv, "jvp": lambda f: _grad_at(f, X) @ V}
#: a Hessian's reference is a difference of differences
TOLERANCE = {"hessian": dict(rtol=1e-4, atol=1e-5)}
CLOSE = dict(rtol=1e-5, atol=1e-6)


def _transforms(names):
    """The transformations, numba's (a compilation each) in the slow set."""
    return [pytest.param(n, marks=pytest.mark.slow) if n == "numba" else n for n in names]


@pytest.mark.parametrize("transform", _transforms(KEPT))
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_transformation_made_before_the_change_sees_it(mod, transform, change):
    if transform == "numba":
        pytest.importorskip("numba")
    make, apply = CHANGES[change]
    reference = REFERENCE.get(transform, lambda f: _grad_at(f, X))
    f = make(mod)
    try:
        kept = KEPT[transform](f)
        for _ in range(2):  # the first call compiles, the second takes the fast path
            np.testing.assert_allclose(kept(X), reference(f), **TOLERANCE.get(transform, CLOSE))
    except srcdiff.SrcDiffError:  # refused before the change: nothing compiled to go stale
        return
    apply(mod)
    np.testing.assert_allclose(kept(X), reference(f), **TOLERANCE.get(transform, CLOSE))


FRESH = {"grad": srcdiff.grad, "jvp": _jvp, "hessian": _hessian, "numba": lambda f: srcdiff.grad(f, jit="numba")}


@pytest.mark.parametrize("transform", _transforms(FRESH))
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_transformation_made_after_the_change_sees_it(mod, transform, change):
    """Made again after the change (on a new object, for a method): no cache below the
    transformation (an inlined helper, a flattened method) may hand back the old code."""
    if transform == "numba":
        pytest.importorskip("numba")
    make, apply = CHANGES[change]
    reference = REFERENCE.get(transform, lambda f: _grad_at(f, X))
    try:
        FRESH[transform](make(mod))(X)
    except srcdiff.SrcDiffError:
        return
    apply(mod)
    f = make(mod)
    np.testing.assert_allclose(FRESH[transform](f)(X), reference(f), **TOLERANCE.get(transform, CLOSE))
