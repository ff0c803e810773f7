"""Wave 33a: module-level data read by attribute, and keys from arguments (wave33a_programs.py): 39 programs
written as users write them, each through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree,
float32 and jit="numba", against float64 central differences; and what they read changed after a first call.

Census (39 programs x 10 transformations; ok / n/a / refused at the user's line / WRONG / BAD, BAD being a
crash or a refusal whose reason is srcdiff's own TypeError), before -> after:

                        before                      after
                     ok  n/a  ref WRONG BAD      ok  n/a  ref WRONG BAD
    grad             15    0   22    0    2      38    0    1    0    0
    value_and_grad   15    0   22    0    2      38    0    1    0    0
    hessian          14   24    1    0    0      38    1    0    0    0
    hvp              14    0   23    0    2      38    0    1    0    0
    jvp              15    0   22    0    2      38    0    1    0    0
    vjp              15    0   22    0    2      38    0    1    0    0
    jacobian         15    0   22    0    2      38    0    1    0    0
    tree             11    4   22    0    2      34    4    1    0    0
    float32          15    4   18    0    2      34    4    1    0    0
    numba            12    0   25    0    2      37    0    2    0    0

(hessian is n/a where grad is not ok; tree n/a for keyword-only parameters, which the matrix's wrapper does not
pass; float32 n/a where no float array is differentiated.)  No WRONG cell before or after; the 19 changes
(CHANGES: an attribute set, a frozen dataclass's field set through object.__setattr__, a class attribute's list
changed in place, a namedtuple or dataclass instance rebound, an array field written into) give the new
derivative in every transformation, and the rows grad took before (a dataclass instance's and a plain
object's numbers, a class's numbers) followed such changes before too.

Found and fixed (each a class, variants in wave33a_programs.py):

1. Module-level data read by attribute (frontend/global_objects.py, lower/static_values.py): a namedtuple's
   fields (``RATES.rate``, ``SHAPE.rows`` as a shape, ``a, b = RATES``, ``RATES[1]``, array fields), a
   ``types.SimpleNamespace``'s (``HP.l2``, ``range(HP.n_steps)``, ``for t in HP.taps``) were refused ("the
   attribute .rate is not supported"); an object a class holds (``Outer.inner.eps``) and a class's tuple or list of
   numbers looped over (``for c in Table.COEFS``) were refused ("'Table' is a function or module, not a
   value"); an object's tuple of numbers indexed by a loop's counter (``SHAPE.weights[i]``) was refused ("reads it
   with constant keys only").  A class's tuple used as a shape (``x.reshape(Table.SIZES)``) passed grad but was
   refused by hessian, hvp and numba (the generated code read ``Table.SIZES``).  Now namedtuples and namespaces
   are module objects read as trees of constants, an object a class holds too, an object's tuple of numbers is
   one constant, a class's tuple or list of numbers a tuple constant spelled as its value in the code; an
   object's numbers are written in the code (numba's too: a closure cell of unknown shape made numba's
   ``unbroadcast`` fail).  Each is a dependency checked per call (by value, a list by its items): a change
   builds the gradient again (CHANGES, test_changed_after_a_first_call*).
2. A function as a default (lower/user_calls.py, driver/callee_lowering.py, backend/numba/call_defaults.py):
   ``def _layer(h, *, act=np.tanh)`` called as ``_layer(x)`` was BAD ("TypeError while computing this line:
   _layer_vjp() missing 1 required positional argument: 'act'": the helper's adjoint took its keyword-only
   parameters as positional ones without their defaults), in every transformation; ``def _dense(h, w=0.8,
   act=np.tanh)`` left to its default was refused by numba ("non-precise type pyobject").  Now the generated
   function has the keyword-only defaults, a function default is bound as a function passed, and numba's calls
   pass what a call leaves to defaults by name after a keyword.
3. Keys from arguments (frontend/key_parameters.py, api/flatcall.py, frontend/flatten_exprs.py,
   frontend/appended_functions.py): ``params[f"w{i}"]`` over ``range(n)`` of an int parameter (given, a
   default, a NumPy integer, passed on to a helper or to a module's function ``w.f(params, n)``), ``"w%d" % i``,
   ``"w" + str(i)``, ``{k: x[k - 1] ** k for k in range(1, n + 1)}``, a list of dicts over ``range(n)``
   comprehended or appended in a loop, labels a tuple of strings (written into a dict, read from params, a dict
   comprehension over ``zip(labels, x)``) were refused ("reads it with constant keys only", "dict comprehensions
   over items known only when the function runs", "a dict holding values computed in the function").  Now such a
   parameter is a constant of the rewrite, a "key" structure in the call's structures: each value its own
   rewrite and gradient (test_a_count_of_keys_changed_between_calls_gets_its_own_gradient, labels likewise).
   Wave 31a's tree_fstring_keys, wave 32c's labels rows and wave 31r's list_of_dicts_runtime_count agree now.

Open (refused at the user's line): a count computed when the function runs (``range(len(x))`` building dicts:
dicts_appended_len; the refusal says to pass it as an int argument), straight-line ``comps.append({...})``
outside a loop, ``groups.setdefault(lab, []).append(v)`` over ``zip(labels, x)`` (wave 31r); jit="numba" of a
tuple of functions as the differentiated function's default (kw_acts_tuple: numba takes no tuple of functions).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave33a_programs as w
from .test_wave31m import changed_cell

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"nt_rate_times_x", "ns_taps_tuple", "cls_coefs_loop", "nested_attribute", "fstring_range_param_passed",
        "labels_tuple_argument"}
#: refused by grad at the user's line, and so by every transformation (the docstring's open items)
REFUSED = {"dicts_appended_len"}
#: jit="numba" refuses these at the user's line (kw_acts_tuple, a tuple of functions as a keyword's default,
#: compiles since wave 36e: test_wave36e.py)
NUMBA_REFUSED: set = set()
#: the changes the default run makes (one transformation each: QUICK)
CHANGES_KEPT = {"nt_rate_times_x", "ns_list_field_loop", "cls_list_numbers", "nested_attribute"}
QUICK = ("grad",)
TRANSFORMS = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "numba", "float32")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33a", "wave33a_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


TABLE = table_tests.Table(programs, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_every_transformation = TABLE.every_transformation(ALL, kept=KEPT)
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(
    (*table_tests.REFUSED_CELLS, "hvp"), kept=())


def _changes():
    found = {_name(p): p for p in programs()}
    return [(found[name], change) for name, change in w.CHANGES]


@pytest.mark.parametrize("pair", [corpus.slow_unless(False, pair) for pair in _changes()],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call_every_transformation(pair):
    """What a row read when its gradient was built (an attribute rebound, a frozen dataclass's field set, a
    class attribute's list changed in place, the module name rebound) changed after a first call: the new
    derivative, against central differences of the function as it is now, or a refusal at the line."""
    for name in TRANSFORMS:
        cell = changed_cell(*pair, name)
        assert cell.outcome in (matrix.OK, matrix.NA) or cell.outcome == matrix.REFUSED and cell.located, \
            (name, cell.outcome, cell.message)


@pytest.mark.parametrize("pair", [pair for pair in _changes() if _name(pair[0]) in CHANGES_KEPT],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call(pair):
    """The same through grad (the default run)."""
    for name in QUICK:
        cell = changed_cell(*pair, name)
        assert cell.outcome == matrix.OK, (name, cell.outcome, cell.message)


def test_a_namespace_changed_and_put_back_follows_each_call():
    """``HP.l2`` set, then put back: each call's gradient is of the namespace as it is at that call."""
    x = np.array([0.3, -0.4, 0.6])
    g = srcdiff.grad(w.ns_hyper)
    first = g(x)
    w.HP.l2 = 1.0
    try:
        second = g(x)
    finally:
        w.HP.l2 = 0.05
    np.testing.assert_array_equal(g(x), first)
    assert not np.allclose(first, second)


def _by_hand(p: dict, n: int) -> dict:
    """The gradient of fstring_range_param_passed: sum over i < n of (i + 1) * p[f"w{i}"] ** 2."""
    return {k: 2 * v * (int(k[1:]) + 1) if int(k[1:]) < n else 0.0 for k, v in p.items()}


def _passes_on(params, n):
    return w.fstring_range_param_passed(params, n)


@pytest.mark.parametrize("jit", [None, pytest.param("numba", marks=pytest.mark.slow)])
@pytest.mark.parametrize("func", [w.fstring_range_param_passed, _passes_on], ids=lambda f: f.__name__)
def test_a_count_of_keys_changed_between_calls_gets_its_own_gradient(func, jit):
    """``params[f"w{i}"] for i in range(n)``, n an int argument (given to a helper, or a NumPy integer):
    each n its own rewrite and gradient, never another n's (called with 2, 3, 1, 2 in turn)."""
    p = {"w0": 0.3, "w1": -0.5, "w2": 0.7}
    g = srcdiff.grad(func, jit=jit)
    for n in (2, 3, 1, np.int64(2)):
        got, want = g(dict(p), n), _by_hand(p, int(n))
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), n


def test_labels_changed_between_calls_get_their_own_gradient():
    """``params[lab] for lab in labels``, labels a tuple (or list) of strings: each its own gradient."""
    values = {"a": 0.3, "b": -0.6, "c": 0.9}
    g = srcdiff.grad(w.labels_read_from_params)
    for labels in (("a", "c"), ("b",), ["c", "a", "b"], ("a", "c")):
        want = dict.fromkeys(values, 0.0)
        for k, lab in enumerate(labels):
            want[lab] += 2 * values[lab] * (k + 1)
        assert g(dict(values), labels) == pytest.approx(want, rel=1e-12, abs=1e-12), labels


def test_a_count_changed_in_forward_and_second_order():
    """jvp and hessian of the same, n changed between calls."""
    p = {"w0": 0.3, "w1": -0.5, "w2": 0.7}
    for n in (1, 3):
        _, tangent = srcdiff.jvp(w.fstring_range_param_passed, (dict(p), n), (dict.fromkeys(p, 1.0), None))
        assert tangent == pytest.approx(sum(_by_hand(p, n).values()), rel=1e-12)
        assert srcdiff.hessian(w.fstring_range_param_passed)(dict(p), n)["w2"]["w2"] == (6.0 if n == 3 else 0.0)


def test_a_bool_count_is_refused_at_the_line():
    """``range(True)`` is Python's, but a bool is no count srcdiff takes as a key: refused at the line."""
    line = w.fstring_range_param_passed.__code__.co_firstlineno + 1
    with pytest.raises(srcdiff.SrcDiffError, match=rf"wave33a_programs.py:{line}: "):
        srcdiff.grad(w.fstring_range_param_passed)({"w0": 0.3}, True)
