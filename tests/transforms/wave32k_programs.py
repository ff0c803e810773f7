"""Programs of test_wave32k.py: wave 32's new rewrites and readings combined the way users write them.

PROGRAMS rows are ``(name, func, make_args(rng), wrt)``: einsums of three or more operands
(einsum_pairs.py) with ties, numbers, repeated operands and float32 mixes; the optimizer's
zero_ties, hyperbolic, like_terms and joined_selections shapes at ties, at ±0 and large magnitudes,
differentiated again (hessian, jvp); tuple-keyed dict trees; loops over zip/enumerate of module lists
of functions; keyed writes.  CHANGED rows are ``(name, func, make_args(rng), wrt, change)`` as
wave31m_programs.py's: `change()` changes something the gradient read when built and returns the
function that puts it back."""

from __future__ import annotations

import functools
import math

import numpy as np

from .wave31m_programs import dict_in_place, in_place, set_attribute

# ---- einsums of three or more operands ----


def einsum_relu_bilinear(x, A):
    """'i,ij,j->' of a relu at exact ties (x holds zeros)."""
    r = np.maximum(x, 0.0)
    return np.einsum("i,ij,j->", r, A, r) + np.sum(r ** 2)


def einsum_trace_of_four(A, B):
    """'ij,jk,kl,li->' : the trace of ABAB (wrt A, differentiated twice)."""
    return np.einsum("ij,jk,kl,li->", A, B, A, B)


def einsum_same_operand_thrice(x):
    """'i,i,i->' : x three times (a sum of cubes), and 'i,i,i->i'."""
    return np.einsum("i,i,i->", x, x, x) + np.sum(np.einsum("i,i,i->i", x, np.sin(x), x))


def einsum_permuted_output(A, B, C):
    """'ij,jk,kl->li' : the output's letters in another order than the chain's."""
    return np.sum(np.tanh(np.einsum("ij,jk,kl->li", A, B, C)) ** 2)


def einsum_one_row_batch(W, X, Y):
    """'bi,ij,bj->b' with a batch of one row."""
    return np.sum(np.log1p(np.exp(np.einsum("bi,ij,bj->b", X, W, Y))))


def einsum_int_operand(x, M):
    """An integer array among three operands (wrt x)."""
    return np.einsum("i,ij,j->", x, M, x) + np.einsum("i,ij,j->", np.sin(x), M, x)


def einsum_python_int_scale(x, A):
    """Numbers of int type among the operands: ',i,ij,j->' with 3, and a 0-d array."""
    return np.einsum(",i,ij,j->", 3, x, A, x) + np.einsum(",i,i->", np.float64(0.5), x, x)


def einsum_sum_as_operand(x, A):
    """A 0-d value the function computes as an operand: ',i,ij->j' with np.sum(x)."""
    return np.sum(np.einsum(",i,ij->j", np.sum(x * x), x, A) ** 2)


def einsum_uppercase_and_spaces(A, x):
    """Upper-case letters: 'Ij,jK,K->I'."""
    return np.sum(np.einsum("Ij,jK,K->I", A, A.T, x) ** 2)


def einsum_elementwise_three(x, y):
    """'bi,bi,bi->b' : a letter in every operand and the output (nothing contracted by a pair)."""
    return np.sum(np.einsum("bi,bi,bi->b", x, y, x) ** 2)


def einsum_in_a_loop(x, Ws):
    """'ij,jk,k->i' in a loop over a list of matrices (jacobian of a vector output via the sum)."""
    h = x
    for W in Ws:
        h = np.tanh(np.einsum("ij,jk,k->i", W, W.T, h))
    return np.sum(h ** 2)


def einsum_outer_of_three(x):
    """'i,j,k->ijk' : no letter contracted, an outer product of three."""
    return np.sum(np.einsum("i,j,k->ijk", x, np.cos(x), x) ** 2)


# ---- the optimizer's rewrites at ties, ±0 and large magnitudes ----


def hinge_pair_ties(x):
    """Two maxima whose ties are at different points (0 and 1): a factor zero at one tie is not at the other."""
    m1 = np.maximum(x, 0.0)
    m2 = np.maximum(x - 1.0, 0.0)
    return np.sum(m1 * m2) + np.sum(m2 ** 2)


def hinge_squared_scaled(x):
    """A squared hinge scaled by a number and by an array (k * m, then squared) at ±0 ties."""
    w = np.linspace(0.5, 2.0, x.size)
    m = np.maximum(x, 0.0)
    return 0.5 * np.sum(w * m * m) + np.sum(np.minimum(x, 0.0) ** 2) * 1.5


def huber_at_the_band(r):
    """Huber by np.maximum(abs(r) - d, 0) with r exactly at ±d and ±0."""
    d = 0.5
    e = np.maximum(np.abs(r) - d, 0.0)
    return np.sum(0.5 * np.minimum(np.abs(r), d) ** 2 + d * e)


def hinge_sqrt_power(x):
    """m ** 1.5 of a hinge at its ties (its derivative zero there)."""
    m = np.maximum(x, 0.0)
    return np.sum(m ** 1.5) + np.sum(np.fmax(x, 0.0) ** 3)


def log_cosh_large(x):
    """log cosh at magnitudes near where cosh overflows (|x| 300)."""
    return np.sum(np.log(np.cosh(x)))


def tanh_by_hand(x):
    """sinh over cosh written by the user, and over a name bound to the cosh."""
    c = np.cosh(x)
    return np.sum(np.sinh(x) / c) + np.sum(np.sinh(0.5 * x) / np.cosh(0.5 * x) * x)


def cosh_written_into(x):
    """The cosh's name written into before the sinh over it is read."""
    c = np.cosh(x)
    c[0] = 2.0
    return np.sum(np.sinh(x) / c)


def cosh_rebound(x):
    """A name bound to a cosh, then rebound."""
    c = np.cosh(x)
    t = np.sinh(x) / c
    c = np.cosh(2.0 * x)
    return np.sum(t * x) + np.sum(np.sinh(x) / c)


def math_log_cosh(x):
    """math's log cosh of a scalar."""
    return math.log(math.cosh(x)) + math.sinh(x) / math.cosh(x)


def square_by_product(x):
    """x * x (its adjoint s + s) and 4.0 * (0.5 * x) power-of-two factors, at large magnitudes."""
    s = x * x
    e = 0.25
    return np.sum(s * 2.0) + np.sum(4.0 * (e * x) * x) + np.sum(np.where(x > 0.0, 3.0 * s, 0.0))


def like_terms_tiny(x):
    """Power-of-two factors with a subnormal number: k * (e * x)."""
    e = 1e-300
    return np.sum(1024.0 * (e * x) * 1e300 * x)


def clip_band_equal_bounds(x):
    """np.clip with its two bounds one number, and a ramp clipped by hand at its two edges (ties)."""
    return np.sum(np.clip(x, 0.5, 0.5) * x) + np.sum(np.minimum(np.maximum(x, 0.0), 1.0) ** 2)


def clip_nested_wheres(x):
    """Selections against 0.0 nested by the user (np.where of np.where)."""
    a = np.where(x > 0.0, np.where(x < 1.0, x * x, 0.0), 0.0)
    b = np.where(x <= -0.5, 0.0, np.where(x >= 0.5, 0.0, np.sin(x)))
    return np.sum(a) + np.sum(b * x)


def relu_selected_again(x):
    """np.where(x > 0, relu(x) * k, 0.0): a selection of what already vanishes where it fails."""
    r = np.where(x > 0.0, x, 0.0)
    return np.sum(np.where(x > 0.0, 2.0 * r + r * r, 0.0))


def inf_data_where(x, d):
    """np.where over data holding ±inf, the other side kept (d finite where taken)."""
    safe = np.where(np.isfinite(d), d, 0.0)
    return np.sum(np.where(np.isfinite(d), np.maximum(x * safe, 0.0) ** 2, x))


# ---- trees, module lists of functions, keyed writes ----

COUPLINGS = {(0, 1): 0.3, (1, 2): -0.5, (0, 2): 0.8}
FUNCS = [np.tanh, np.sin, lambda v: v * v]
LABELS = ["a", "b", "c"]
WEIGHTS = [0.5, 1.5, 2.0]


def tuple_keyed_tree(p):
    """A dict keyed by pairs as the differentiated tree, read at module pairs' items."""
    total = 0.0
    for (i, j), w in COUPLINGS.items():
        total = total + w * p[i, j] ** 2 + np.maximum(p[i, j], 0.0)
    return total


def tuple_keyed_einsum(p, x):
    """A tuple-keyed tree's matrices in a three-operand einsum."""
    return np.einsum("i,ij,j->", x, p[0, 1], x) + np.sum(p[1, 0] * np.maximum(x, 0.0))


def zip_funcs_weights(x):
    """zip(WEIGHTS, FUNCS) of a module list of functions."""
    return sum(w * np.sum(f(x)) for w, f in zip(WEIGHTS, FUNCS))


POWERS = (1, 2.5, 3)


def zip_three_columns(x, c):
    """zip(FUNCS, POWERS, c): functions, a module tuple of ints and floats, and an argument (wrt c)."""
    total = 0.0
    for f, k, ci in zip(FUNCS, POWERS, c):
        total = total + ci * np.sum(np.abs(f(x)) ** k)
    return total


def zip_numbers_first_tuple_functions(x):
    """zip(WEIGHTS, (np.tanh, np.cos)) of a display of functions, in a generator."""
    return sum(w * np.sum(f(x) ** 2) for w, f in zip(WEIGHTS, (np.tanh, np.cos)))


def enumerate_funcs(x):
    """enumerate(FUNCS) in a for, the index read into x."""
    total = 0.0
    for i, f in enumerate(FUNCS):
        total = total + np.sum(f(x[i] * x))
    return total


def keyed_writes_zip(x):
    """A dict filled over zip(LABELS, x), read back through a ramp."""
    d = {}
    for lab, v in zip(LABELS, x):
        d[lab] = np.maximum(v, 0.0) ** 2 + v
    return d["a"] * d["c"] + sum(d.values())


def _x(n, scale=1.0):
    return lambda r: (scale * r.standard_normal(n),)


def _normal(*shapes):
    return lambda r: tuple(r.standard_normal(s) for s in shapes)


def _ties(r):
    return (np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -0.3]),)


def _huber(r):
    return (np.array([0.5, -0.5, 0.0, -0.0, 0.8, -1.2, 0.2]),)


PROGRAMS = [
    ("einsum_relu_bilinear", einsum_relu_bilinear, _normal(4, (4, 4)), 0),
    ("einsum_trace_of_four", einsum_trace_of_four, lambda r: (r.standard_normal((3, 3)), r.standard_normal((3, 3))), 0),
    ("einsum_same_operand_thrice", einsum_same_operand_thrice, _x(4), 0),
    ("einsum_permuted_output", einsum_permuted_output,
     lambda r: (0.5 * r.standard_normal((2, 3)), r.standard_normal((3, 4)), r.standard_normal((4, 2))), 1),
    ("einsum_one_row_batch", einsum_one_row_batch,
     lambda r: (r.standard_normal((3, 2)), r.standard_normal((1, 3)), r.standard_normal((1, 2))), 0),
    ("einsum_int_operand", einsum_int_operand,
     lambda r: (r.standard_normal(3), np.array([[1, 2, 0], [0, -1, 3], [2, 0, 1]])), 0),
    ("einsum_python_int_scale", einsum_python_int_scale, _normal(3, (3, 3)), 0),
    ("einsum_sum_as_operand", einsum_sum_as_operand, _normal(3, (3, 2)), 0),
    ("einsum_uppercase_and_spaces", einsum_uppercase_and_spaces, _normal((2, 3), 2), 0),
    ("einsum_elementwise_three", einsum_elementwise_three, _normal((2, 3), (2, 3)), 0),
    ("einsum_in_a_loop", einsum_in_a_loop,
     lambda r: (r.standard_normal(3), [0.5 * r.standard_normal((3, 3)), 0.5 * r.standard_normal((3, 3))]), 0),
    ("einsum_outer_of_three", einsum_outer_of_three, _x(3), 0),
    ("hinge_pair_ties", hinge_pair_ties, _x(7, 2.0), 0),
    ("hinge_squared_scaled", hinge_squared_scaled, _x(7), 0),
    ("huber_at_the_band", huber_at_the_band, _x(7), 0),
    ("hinge_sqrt_power", hinge_sqrt_power, _x(7), 0),
    ("log_cosh_large", log_cosh_large, lambda r: (np.array([300.0, -300.0, 0.0, -0.0, 20.0, 1e-3]),), 0),
    ("tanh_by_hand", tanh_by_hand, lambda r: (np.array([80.0, -80.0, 0.0, -0.0, 2.0, -0.7]),), 0),
    ("cosh_written_into", cosh_written_into, _x(4), 0),
    ("cosh_rebound", cosh_rebound, _x(4), 0),
    ("math_log_cosh", math_log_cosh, lambda r: (0.7,), 0),
    ("math_log_cosh_zero", math_log_cosh, lambda r: (0.0,), 0),
    ("square_by_product", square_by_product, lambda r: (np.array([4.0, -4.0, 0.25, -0.75, 1.5, -2.5]),), 0),
    ("like_terms_tiny", like_terms_tiny, _x(4), 0),
    ("clip_band_equal_bounds", clip_band_equal_bounds, _x(7), 0),
    ("clip_nested_wheres", clip_nested_wheres, _x(8), 0),
    ("relu_selected_again", relu_selected_again, _x(7), 0),
    ("inf_data_where", inf_data_where,
     lambda r: (np.array([0.3, 0.5, -1.0, 2.0]), np.array([1.0, np.inf, -np.inf, 0.5])), 0),
    ("tuple_keyed_tree", tuple_keyed_tree, lambda r: ({(0, 1): 0.4, (1, 2): 0.3, (0, 2): -1.1},), 0),
    ("tuple_keyed_einsum", tuple_keyed_einsum,
     lambda r: ({(0, 1): r.standard_normal((3, 3)), (1, 0): r.standard_normal(3)}, np.array([0.0, 0.4, -1.0])), 0),
    ("zip_funcs_weights", zip_funcs_weights, _x(3), 0),
    ("zip_three_columns_x", zip_three_columns, lambda r: (r.standard_normal(3), r.standard_normal(3)), 0),
    ("zip_three_columns_c", zip_three_columns, lambda r: (r.standard_normal(3), r.standard_normal(3)), 1),
    ("zip_numbers_then_display", zip_numbers_first_tuple_functions, _x(3), 0),
    ("enumerate_funcs", enumerate_funcs, _x(3), 0),
    ("keyed_writes_zip", keyed_writes_zip, lambda r: (np.array([0.2, 0.7, -0.4]),), 0),
]


#: (name, func, args, central): the same functions at ties, ±0 and large magnitudes.  `central`: the
#: function is continuous with one-sided derivatives there, so central differences give the tie's half
#: share; else (a selection's jump, a derivative 0 where the differences straddle a cusp) the optimised
#: gradient is checked against the debug one only
TIES = [
    ("einsum_relu_bilinear", einsum_relu_bilinear,
     (np.array([0.0, -0.0, 0.7, -0.4]), np.arange(16.0).reshape(4, 4) / 8.0 - 1.0), True),
    ("hinge_pair_ties", hinge_pair_ties, _ties(None), True),
    ("hinge_squared_scaled", hinge_squared_scaled, _ties(None), True),
    ("huber_at_the_band", huber_at_the_band, _huber(None), True),
    ("hinge_sqrt_power", hinge_sqrt_power, _ties(None), False),
    ("log_cosh_large", log_cosh_large, (np.array([300.0, -300.0, 0.0, -0.0, 20.0, 1e-3]),), True),
    ("tanh_by_hand", tanh_by_hand, (np.array([300.0, -300.0, 0.0, -0.0, 2.0, -0.7]),), True),
    ("square_by_product", square_by_product, (np.array([1e150, -1e150, 0.0, -0.0, 1.5, -2.5]),), False),
    ("clip_band_equal_bounds", clip_band_equal_bounds, (np.array([0.5, 0.0, 1.0, -0.0, 0.3, 1.7, -2.0]),), True),
    ("clip_nested_wheres", clip_nested_wheres, (np.array([0.0, -0.0, 1.0, 0.5, -0.5, 0.3, -0.8, 2.0]),), False),
    ("relu_selected_again", relu_selected_again, _ties(None), False),
    ("keyed_writes_zip", keyed_writes_zip, (np.array([0.0, 0.7, -0.4]),), True),
    ("inf_data_where", inf_data_where, (np.array([0.0, 0.5, -1.0, 2.0]), np.array([1.0, np.inf, -np.inf, 0.5])), True),
]


# ---- changed between two calls (CHANGED; test_wave31m.changed_cell) ----

SIZES = [2, 3, 1]
LAYER_ACTS = ["tanh", "sin"]
ACTS = {"tanh": np.tanh, "sin": np.sin, "square": lambda v: v * v}
KEEP = [0, 2]
RATES = {"a": 0.5, "b": 1.5}
SCALE_K = [2.0]


class Net:
    DEPTH = 2
    KEYS = ["w0", "w1"]


def keys_of_sizes(p):
    """params[f"w{i}"] over range(len(SIZES) - 1) (module_constants)."""
    total = 0.0
    for i in range(len(SIZES) - 1):
        total = total + np.sum(np.tanh(p[f"w{i}"]) ** 2) * SIZES[i]
    return total


def keys_of_class_depth(p):
    """range(Net.DEPTH) and p[Net.KEYS[0]]."""
    total = np.sum(p[Net.KEYS[0]] ** 3)
    for i in range(Net.DEPTH):
        total = total + np.sum(np.sin(p[f"w{i}"]))
    return total


def acts_by_module_names(x):
    """ACTS[name] for name in LAYER_ACTS (table_keys), a module list of names."""
    h = x
    for name in LAYER_ACTS:
        h = ACTS[name](h) + 0.1 * h
    return np.sum(h ** 2)


def zip_funcs_loop(x):
    """for w, f in zip(WEIGHTS, FUNCS) (static_loops)."""
    total = 0.0
    for w, f in zip(WEIGHTS, FUNCS):
        total = total + w * np.sum(f(x))
    return total


def couplings_module(x):
    """A module dict keyed by pairs, read at its items."""
    p = x.reshape(3, 2)
    total = 0.0
    for (i, j), k in COUPLINGS.items():
        total = total + k * np.sum((p[i] - p[j]) ** 2)
    return total


def couplings_default(x, couplings=COUPLINGS):
    """A default dict keyed by pairs (a tree of constants), read at a key."""
    p = x.reshape(3, 2)
    return couplings[(0, 1)] * np.sum((p[0] - p[1]) ** 2) + couplings[1, 2] * np.sum(p[2] ** 2)


def keyed_writes_labels(x):
    """A dict filled over zip(LABELS, x), LABELS a module list."""
    d = {}
    for lab, v in zip(LABELS, x):
        d[lab] = np.sin(v) * 2.0
    return sum(v ** 2 for v in d.values()) + d["a"]


def kept_einsum(x, A):
    """x[KEEP] in a three-operand einsum (a module list index)."""
    y = x[KEEP]
    return np.einsum("i,ij,j->", y, A, y)


def rates_by_name(x):
    """RATES[name] over enumerate(RATES) (numba's dict_items)."""
    total = 0.0
    for i, name in enumerate(RATES):
        total = total + RATES[name] * np.sum(x ** (i + 2))
    return total


@functools.lru_cache(maxsize=None)
def cached_coefficient(n):
    return SCALE_K[0] * n


def cached_coefficient_call(x):
    """A cached function called with a constant (numba's cached_calls)."""
    return cached_coefficient(3) * np.sum(np.sin(x) ** 2)


@functools.cache
def cached_weights(n, scale=1.0):
    return tuple(scale * SCALE_K[0] ** k for k in range(n))


def _scaled_terms(x):
    w = cached_weights(3, scale=0.5)
    return w[0] * np.sum(x) + w[1] * np.sum(x ** 2) + w[2] * np.sum(np.cos(x))


def cached_tuple_in_a_helper(x):
    """A cached helper's tuple (a keyword among its constants) read in a helper the function calls."""
    return _scaled_terms(np.tanh(x)) + cached_coefficient(2) * np.sum(x)


def _clear_cache_after(change):
    def wrapped():
        undo = change()
        cached_coefficient.cache_clear()
        cached_weights.cache_clear()

        def back():
            undo()
            cached_coefficient.cache_clear()
            cached_weights.cache_clear()
        return back
    return wrapped


def _tree_w(r):
    return ({"w0": r.standard_normal(2), "w1": r.standard_normal(3), "w2": r.standard_normal(2)},)


def _v(n):
    return lambda r: (r.standard_normal(n),)


CHANGED = [
    ("keys_of_sizes_append", keys_of_sizes, _tree_w, 0, in_place(SIZES, lambda s: s.append(2))),
    ("keys_of_sizes_setitem", keys_of_sizes, _tree_w, 0, in_place(SIZES, lambda s: s.__setitem__(0, 5))),
    ("keys_of_class_depth", keys_of_class_depth, _tree_w, 0, set_attribute(Net, "DEPTH", 3)),
    ("keys_of_class_keys", keys_of_class_depth, _tree_w, 0, in_place(Net.KEYS, lambda s: s.reverse())),
    ("acts_names_setitem", acts_by_module_names, _v(3), 0, in_place(LAYER_ACTS, lambda s: s.__setitem__(1, "square"))),
    ("acts_table_replaced", acts_by_module_names, _v(3), 0, dict_in_place(ACTS, "sin", np.cos)),
    ("zip_funcs_setitem", zip_funcs_loop, _v(3), 0, in_place(FUNCS, lambda s: s.__setitem__(0, np.cos))),
    ("zip_weights_setitem", zip_funcs_loop, _v(3), 0, in_place(WEIGHTS, lambda s: s.__setitem__(2, -3.0))),
    ("zip_funcs_pop", zip_funcs_loop, _v(3), 0, in_place(FUNCS, lambda s: s.pop())),
    ("enumerate_funcs_append", enumerate_funcs, _v(4), 0, in_place(FUNCS, lambda s: s.append(np.exp))),
    ("couplings_value", couplings_module, _v(6), 0, dict_in_place(COUPLINGS, (0, 1), 2.5)),
    ("couplings_key_added", couplings_module, _v(6), 0, dict_in_place(COUPLINGS, (2, 0), -1.0)),
    ("couplings_default_value", couplings_default, _v(6), 0, dict_in_place(COUPLINGS, (1, 2), 4.0)),
    ("labels_append", keyed_writes_labels, _v(4), 0, in_place(LABELS, lambda s: s.append("d"))),
    ("labels_reversed", keyed_writes_labels, _v(3), 0, in_place(LABELS, lambda s: s.reverse())),
    ("kept_einsum_index", kept_einsum, lambda r: (r.standard_normal(3), r.standard_normal((2, 2))), 0,
     in_place(KEEP, lambda s: s.__setitem__(1, 1))),
    ("rates_value", rates_by_name, _v(3), 0, dict_in_place(RATES, "b", -2.0)),
    ("rates_key_added", rates_by_name, _v(3), 0, dict_in_place(RATES, "c", 0.25)),
    ("cached_coefficient_cleared", cached_coefficient_call, _v(3), 0,
     _clear_cache_after(in_place(SCALE_K, lambda s: s.__setitem__(0, 5.0)))),
    ("cached_tuple_cleared", cached_tuple_in_a_helper, _v(3), 0,
     _clear_cache_after(in_place(SCALE_K, lambda s: s.__setitem__(0, -1.5)))),
]


# ---- a pass-through wrapper whose __code__ is replaced (code_swaps) ----


def passing_through(fn):
    """A decorator srcdiff reads through (it passes its arguments and result as they are)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def doubling(fn):
    """The wrapper's code once replaced: it doubles the result."""
    def wrapper(*args, **kwargs):
        return 2.0 * fn(*args, **kwargs)
    return wrapper


def wrapped_cubes():
    """A new pass-through wrapper of a sum of cubes (each test replaces its code)."""
    @passing_through
    def cubes(x):
        return np.sum(x ** 3)
    return cubes
