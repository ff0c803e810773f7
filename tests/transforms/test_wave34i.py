"""Wave 34i: the red team of wave 34's rewrites (wave34i_programs.py): configuration dicts used whole,
helpers' returned dicts written by the caller, float and Enum keys, products by boolean masks, merged
np.where chains, use masks and forward-over-reverse kinks.  Each program through grad, value_and_grad,
hessian, hvp, jvp, vjp, jacobian, a tree of arguments, float32, vmap(grad) and jit="numba" against
float64 central differences (matrix.py, closure_cells.py); second order at ties and kinks against
one-sided differences of the gradient; module data changed in place after a first call.

Census (26 programs; cells ok / n/a / refused at the user's line / WRONG / BAD; before = wave 34 merged):

    programs, 10 transformations (hessian sampled in full):   before and after: 255 ok, 5 n/a, 0 WRONG
    programs, jit="numba":                                    before and after: 25 ok, 1 refused (np.add.at)
    changed after a first call (20 rows x grad, jit="numba"): before: 17 ok, 1 refused, 22 WRONG
                                                              after:  39 ok, 1 refused,  0 WRONG
    second order at ties (9 programs, hessian and hvp along 8 directions): every entry NaN or one-sided

Found and fixed (each a class, with variants here):

1. A module dict of dicts read at constant keys (``CFG["z"]["s"]``, three levels deep, int keys, a closure's
   dict), changed in place after a first call: the gradient was the old one, silently (grad and
   jit="numba"; not new in wave 34, found through its config dicts).  Lowering folds the number the
   nested dict holds into the code, and recorded only the root dict, by identity.  Now each dict on the
   way is a dependency at its key, the number by value (lower/subscripts.py `_module_data_constant`).
2. A zero's sign: a number the gradient is built from compared by value, and -0.0 == 0.0, so a module
   dict's value (read at a float or Enum key, new in wave 34, or at nested keys), a config dict used whole
   or ``.get`` changed from 0.0 to -0.0 kept the old gradient, though ``np.arctan2(s, -1.0)``,
   ``np.copysign(1.0, s)`` and ``1 / s`` differ.  Now `ir.nodes.typed` holds a float zero's sign, and the
   dependencies (frontend/depends.py `holds`, `key`; backend/guards.py), static values and config dicts'
   snapshots (frontend/config_dicts.frozen) compare with it.

Checked and found right (no change): config dicts used whole through a helper, ``**``, ``.get`` with a
default of a dict missing, a sub-dict whose string decides a branch, aliased as an argument and read as a
global; a helper's returned dict written before it is read; boolean, int and float 0/1 masks against
columns and matrices, at ties and signed zeros (optimised equals debug); merged selections with a shared
factor, subtracted, on a column; second order at ties in loops, through reshape/transpose/slices,
np.add.at, a dot with a weight that does not move, where chains in loops (hvp in mixed directions too).
At a kink second order is NaN where the tied operand moves, or takes abs'(0) = 0 where a gradient
component is itself the kinked value, as docs/guarantees.md says.

Found, a silent wrong value, fixed after this wave's red team: a product by a boolean or 0/1 float mask in
the function's own value was made a selection (backend/optimize/mask_products.py, wave 34d), so where the
mask is 0 and another factor is inf or NaN (``m * y * x`` with y = inf, ``m * np.log(y)`` with y = 0), the
user's value is NaN (0 * inf) and value_and_grad's was finite (3.5; log 2).  The forward sweep's products now
stay products (mask_products.primal_nodes); the backward sweep's selections, where the loss is not finite
either, keep the Huber-by-masks speed-up.

Open (refused at the user's line, none WRONG): jit="numba" of a module dict of dicts keyed by ints
(``INT_KEYED[0][1]``) and of np.add.at; a class attribute's dict (``Cfg.table["a"]["b"]``: "'Cfg' is a
function or module, not a value"); a helper returning a nested dict of computed values ("the differentiated
function returns a tree", at the helper's line) or a tuple of two dicts ("index 'a' is not an integer"), and
one writing a key in a branch of a dict built outside it: the messages could say what to write instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave34i_programs as w

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34i", "wave34i_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (one of each kind; `-m slow` runs them all)
KEPT = {"cfg_whole_to_helper", "returned_dict_written", "mask_column_matrix", "where_column", "index_add_mask"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ("grad", "vjp", "hvp") if _name(program) in KEPT else ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, {"index_add_mask"})


# ---- module data changed in place after a first call: the new derivative, never the old one ----

def _set(d, key, value):
    def change():
        old = d[key]
        d[key] = value
        return lambda: d.__setitem__(key, old)
    return change


CHANGES = [
    ("nested_value", w.nested_keys, _set(w.NESTED["z"], "s", 0.9)),
    ("nested_folded", w.nested_keys_folded, _set(w.NESTED["z"], "s", 0.9)),
    ("nested_replaced", w.nested_keys, _set(w.NESTED, "z", {"s": -0.3})),
    ("deep_value", w.deep_keys, _set(w.DEEP["a"]["b"], "c", 0.9)),
    ("deep_replaced", w.deep_keys, _set(w.DEEP["a"], "b", {"c": 1.7})),
    ("int_keyed", w.int_keyed, _set(w.INT_KEYED[0], 1, 0.9)),
    ("list_of_dicts", w.list_of_dicts, _set(w.LIST_OF_DICTS[0], "s", 0.9)),
    ("nested_kind", w.nested_kind, _set(w.KIND["loss"], "kind", "mae")),
    ("closure_nested", w.closure_nested, _set(w.CLOSURE_TABLE["p"], "q", 0.9)),
    ("zero_nested", w.zero_nested, _set(w.ZERO["z"], "s", -0.0)),
    ("zero_whole", w.zero_whole, _set(w.ZERO["z"], "s", -0.0)),
    ("zero_get", w.zero_get, _set(w.FLAT_ZERO, "s", -0.0)),
    ("zero_enum_key", w.zero_enum_key, _set(w.ENUM_ZERO, w.Term.FIT, -0.0)),
    ("zero_float_key", w.zero_float_key, _set(w.FLOAT_ZERO, 300.0, -0.0)),
    ("zero_copysign", w.zero_copysign, _set(w.ZERO["z"], "s", -0.0)),
    ("cfg_whole_to_helper", w.cfg_whole_to_helper, _set(w.CFG["layer"], "scale", -1.1)),
    ("cfg_spread", w.cfg_spread, _set(w.CFG["layer"], "shift", 0.9)),
    ("cfg_sub_dict_kind", w.cfg_sub_dict_kind, _set(w.CFG["loss"], "kind", "mae")),
    ("cfg_nested_keys", w.cfg_nested_keys, _set(w.CFG["z"], "s", -0.0)),
    ("enum_float_get", w.enum_float_get, _set(w.RATES, 300.0, 0.2)),
]
#: jit="numba" refuses these at the user's line (a module dict of dicts keyed by ints)
NUMBA_REFUSED = {"int_keyed"}
X = np.array([0.3, -0.4, 0.8])


def changed(func, change, jit=None):
    """The gradient of `func` called once, `change` made, called again: (what it gives, central differences of
    the function as it is now), then the change undone and the first gradient checked again."""
    g = srcdiff.grad(func, jit=jit)
    first = g(X)
    undo = change()
    try:
        got, want = g(X), central_difference(func, (X,), 0)
    finally:
        undo()
    np.testing.assert_array_equal(g(X), first)
    return got, want


@pytest.mark.parametrize("name,func,change", CHANGES, ids=[c[0] for c in CHANGES])
def test_changed_after_a_first_call(name, func, change):
    got, want = changed(func, change)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,func,change", [corpus.slow_unless(c[0] == "nested_value", *c) for c in CHANGES],
                         ids=[c[0] for c in CHANGES])
def test_changed_after_a_first_call_numba(name, func, change):
    if name in NUMBA_REFUSED:
        with pytest.raises(srcdiff.SrcDiffError, match="wave34i_programs.py:"):
            changed(func, change, jit="numba")
        return
    got, want = changed(func, change, jit="numba")
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_a_zero_of_either_sign_is_its_own_key():
    """A static number's key holds its sign: 0.0 and -0.0 are two gradients (cached apart), each exact."""
    from srcdiff.ir.nodes import typed
    assert typed(0.0) != typed(-0.0) and typed((1.0, -0.0)) != typed((1.0, 0.0)) and typed(1.0) == typed(1.0)


# ---- second order at ties and kinks: NaN, or a one-sided difference of the gradient ----

def _huber_loop(x):
    t = 0.0
    for d in (0.5, 1.0):
        r = np.abs(x)
        t = t + np.sum(np.where(r <= d, 0.5 * r * r, d * (r - 0.5 * d)))
    return t


def _relu_mean_tv(x):
    return np.mean(np.maximum(x, 0.0) ** 2 * x) + np.sum(np.abs(x[1:] - x[:-1]))


AT_TIES = [
    (w.kinks_in_loop, [0.0, 0.1, 0.2, 0.4, -0.3, 0.7]),
    (w.dot_still, [0.0, 0.5, 0.0, -0.3, 0.0, 1.0]),
    (w.masks_in_loop, [0.0, -0.2, 0.5, -0.1, 1.0, -1.0]),
    (w.mask_float32_chain, [0.5, -0.5, 0.2, 0.0, 1.0, -0.7]),
    (w.mask_int, [0.2, -0.5, 0.3, 0.0, 1.0, -0.7]),
    (w.where_subtracted, [0.3, -0.5, 0.4, 0.0, 1.0, -0.7]),
    (w.where_chain_reused, [0.5, -0.5, 0.4, 0.0, 1.0, -0.7]),
    (_relu_mean_tv, [0.0, 0.0, 0.5, 0.5, -0.2, 0.0]),
    (_huber_loop, [0.5, -0.5, 1.0, 0.0, -1.0, 0.2]),
]
MIXED = [np.array([1.0, 0.0, -1.0, 0.5, 0.0, 2.0]), np.array([0.0, 1.0, 1.0, 0.0, -1.0, 0.0])]


def _one_sided(g, x, v, h=1e-6):
    return (g(x + 2 * h * v) - g(x + h * v)) / h, (g(x - h * v) - g(x - 2 * h * v)) / h


@pytest.mark.parametrize("func,point", [corpus.slow_unless(f is w.kinks_in_loop, f, p) for f, p in AT_TIES],
                         ids=[f.__name__ for f, _ in AT_TIES])
def test_second_order_at_ties(func, point):
    """hessian's columns and hvp along each axis and two mixed directions: each entry NaN (the tie holds and
    its operand moves) or a one-sided difference of the gradient (at points one and two steps away)."""
    x = np.array(point)
    g = srcdiff.grad(func)
    H = srcdiff.hessian(func)(x)
    for k, v in enumerate([*np.eye(x.size), *MIXED]):
        right, left = _one_sided(lambda y: np.asarray(g(y)), x, v)
        for got in [srcdiff.hvp(func, x, v)] + ([H[:, k]] if k < x.size else []):
            fine = np.isnan(got) | np.isclose(got, right, rtol=1e-4, atol=1e-4) | np.isclose(got, left, rtol=1e-4,
                                                                                               atol=1e-4)
            assert fine.all(), (k, got, right, left)


# ---- a product by a mask in the function's own value stays a product (mask_products.primal_nodes) ----

NOT_FINITE = [(w.bool_mask_times_data, (np.array([1.0, -1.0, 0.5]), np.array([2.0, np.inf, 1.0])), 1),
              (w.float_mask_times_log, (np.array([1.0, -1.0, 0.5]), np.array([2.0, 0.0, 1.0])), 0)]


@pytest.mark.parametrize("func,args,wrt", NOT_FINITE, ids=[f.__name__ for f, *_ in NOT_FINITE])
def test_the_value_is_the_functions_where_a_masked_out_factor_is_not_finite(func, args, wrt):
    with np.errstate(all="ignore"):
        value, _ = srcdiff.value_and_grad(func, wrt=wrt)(*args)
        assert np.isnan(func(*args))
        assert np.isnan(value), value
