"""Wave 32c: idioms grad refused at the user's line though it could take them (wave32c_programs.py), each
through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and jit="numba", against
float64 central differences.

Census (38 programs x 10 transformations; ok / n/a / refused at the user's line / WRONG / BAD), before -> after:

                        before                      after
                     ok  n/a  ref WRONG BAD      ok  n/a  ref WRONG BAD
    grad              4    0   34    0    0      18    0   20    0    0
    value_and_grad    4    0   34    0    0      18    0   20    0    0
    hessian           4   34    0    0    0      18   20    0    0    0
    hvp               4    0   32    0    2      18    0   18    0    2
    jvp               4    0   32    0    2      18    0   18    0    2
    vjp               4    0   32    0    2      18    0   18    0    2
    jacobian          4    0   32    0    2      18    0   18    0    2
    tree              4    0   34    0    0      18    0   20    0    0
    float32           3   11   24    0    0      11   11   16    0    0
    numba             4    0   34    0    0      18    0   20    0    0
    total            39   45  288    0    8     173   31  168    0    8

(hessian is n/a where grad is not ok; float32 n/a where no float array is differentiated.)  The 8 BAD
cells, before and after, are the tuple-keyed dict argument's (OPEN below).  No WRONG cell.

Found and fixed (each a class, with variants in the programs module):

1. Keys into a parameter dict computed from module data (frontend/module_constants.py): ``params[f"w{i}"]``
   in a loop over ``range(len(SIZES) - 1)`` of a module list, ``p["c{}".format(k)]``, ``range(Net.DEPTH)``,
   ``p[Net.KEYS[0]]``, a loop over a class attribute's list of names (``for name in Cfg.NAMES``), over a
   module list of lists of names (``for group in GROUPS: for name in group``), over a tuple of pairs
   (``for first, second in PAIRS``) and over a display of lists (``for pair in [["a", "b"], ...]: p[pair[0]]``)
   were refused ("reads it with constant keys only").  Each is known when the gradient is built; the list
   or class attribute read is a dependency (changing it builds the gradient again).
2. An activation chosen by a string from a module dict of functions in a loop (``for name in names:
   ACTS[name](h)``, names a default tuple, a module tuple or a display) or bound to a name first (``act =
   ACTS[name]; act(z)``): "cannot tell which function".  lower/table_keys.py unrolls such a loop, each name
   a constant, and binds the name to the function (a name bound so in a branch or rebound in a loop is
   still refused at its line).
3. A nested function with keyword-only parameters (``def penalty(v, *, scale=1.0)``, required ones too):
   refused; now bound as Python binds them (lower/nested.py), a keyword-only one given by position refused.

Still refused at the user's line (REFUSED below; OPEN): dict keys that are data (labels an argument or a
default, ``zip(LABELS, x)`` written into a new dict, a comprehension over such a zip); a list of dicts over
``range(n)`` of an argument's length or shape, and ``{k: ... for k in range(1, n + 1)}``; ``tuple(generator)``
loop states holding a list, and lists of such states; ``.items()`` of a tuple-keyed dict argument (its
tangent or cotangent as a dict of tuple keys is refused by jvp/vjp/jacobian/hvp naming no line: BAD, before
and after); a loop over an instance attribute's list of names (``self.layers`` of a module-level object: the
strings reach the method as leaves, not constants); a nested function's keyword-only default that is a
function (``act=np.tanh``).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave32c_class_lists as c
from . import wave32c_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"fstring_range_len", "list_of_lists_params", "act_bound_then_called", "kwonly_nested_required",
        "tuple_keyed_items_of_x"}
#: refused by grad at the user's line, and so by every transformation (the docstring's open items)
REFUSED = {"labels_argument", "labels_argument_read_back", "labels_default_argument",
           "labels_comprehension_argument", "dicts_over_half_length", "dicts_over_shape", "dicts_over_rows",
           "dict_comprehension_from_one", "dict_comprehension_from_one_loop", "tuple_state_nested_list",
           "tuple_states_list_of_states", "tuple_state_heun_lists", "method_over_self_layers", "kwonly_nested_tree",
           "class_sizes_loop"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w32c", "wave32c_programs", 32)


def _name(p):
    return p.name.partition(":")[2]


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and check."""
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "labels_argument", p) for p in programs()
                                     if _name(p) in REFUSED], ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "hvp"))


def test_a_class_list_of_names_changed_in_place_builds_the_gradient_again():
    """``for name in Cfg.NAMES: p[name]``: the list is a dependency, read by its items."""
    p = {"a": 0.3, "b": -0.7}
    gradient = srcdiff.grad(c.class_names_params)
    assert gradient(p) == pytest.approx({"a": 2 * 0.3, "b": 2 * -0.7})
    c.Cfg.NAMES.append("b")
    try:
        assert gradient(p) == pytest.approx({"a": 2 * 0.3, "b": 2 * 2 * -0.7})
    finally:
        c.Cfg.NAMES.pop()


def test_a_table_of_functions_changed_builds_the_gradient_again():
    """``act = ACTS[name]; act(z)`` and ``for name in LAYER_ACTS: ACTS[name]``: the table is a dependency."""
    x = np.array([0.3, -0.2, 0.5])
    gradient = srcdiff.grad(w.act_bound_then_called)
    kept = w.ACTS["relu"]
    try:
        for func in (kept, np.sin):
            w.ACTS["relu"] = func
            want = [(w.act_bound_then_called(x + e) - w.act_bound_then_called(x - e)) / 2e-6 for e in 1e-6 * np.eye(3)]
            np.testing.assert_allclose(gradient(x), want, rtol=1e-6, atol=1e-8)
    finally:
        w.ACTS["relu"] = kept


def test_a_dict_filled_from_a_shorter_array_is_refused_when_it_runs():
    """``for lab, v in zip(LABELS, x): d[lab] = ...`` with x shorter than LABELS: refused at the loop's line
    (Python would leave keys out), never a gradient of other keys; a longer x stops at LABELS' end, as zip."""
    gradient = srcdiff.grad(w.labels_module_tuple)
    line = w.labels_module_tuple.__code__.co_firstlineno + 2
    with pytest.raises(srcdiff.SrcDiffError, match=rf"wave32c_programs.py:{line}: .*shorter sequence"):
        gradient(np.array([0.1, 0.2, 0.3]))
    x = np.array([0.1, -0.2, 0.3, 0.4, 0.7])
    want = [(w.labels_module_tuple(x + e) - w.labels_module_tuple(x - e)) / 2e-6 for e in 1e-6 * np.eye(5)]
    np.testing.assert_allclose(gradient(x), want, rtol=1e-6, atol=1e-8)
