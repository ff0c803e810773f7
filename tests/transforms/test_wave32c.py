"""Wave 32c: idioms grad refused at the user's line though it could take them (wave32c_programs.py and
wave32c_class_lists.py), each through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree,
float32 and jit="numba", against float64 central differences.

Census (42 programs x 10 transformations; ok / n/a / refused at the user's line / WRONG / BAD), before -> after:

                        before                      after
                     ok  n/a  ref WRONG BAD      ok  n/a  ref WRONG BAD
    grad              6    0   35    0    1      27    0   15    0    0
    value_and_grad    6    0   35    0    1      27    0   15    0    0
    hessian           6   36    0    0    0      27   15    0    0    0
    hvp               6    0   32    0    4      27    0   15    0    0
    jvp               6    0   32    0    4      27    0   15    0    0
    vjp               6    0   32    0    4      27    0   15    0    0
    jacobian          6    0   32    0    4      27    0   15    0    0
    tree              6    0   36    0    0      27    0   15    0    0
    float32           5   13   24    0    0      16   13   13    0    0
    numba             6    0   35    0    1      27    0   15    0    0
    total            59   49  293    0   19     259   28  133    0    0

(hessian is n/a where grad is not ok; float32 n/a where no float array is differentiated.)  The 19 BAD
cells before were the tuple-keyed dicts' (a refusal naming no line of the user's: "it is a dict, not a float
or a float array" from jvp, vjp, jacobian and hvp; grad of a loop over its keys).  No WRONG cell, before
or after.  Already right (kept as rows): f-strings over ``range`` of a constant, ``ACTS[name]`` called
at once with a string default or module constant, a dict filled over ``enumerate(LABELS)`` or ``range(3)``.

Found and fixed (each a class, with variants in the programs modules):

1. Keys into a parameter dict computed from module data (frontend/module_constants.py): ``params[f"w{i}"]``
   in a loop over ``range(len(SIZES) - 1)`` of a module list, ``p["c{}".format(k)]``, ``range(Net.DEPTH)``,
   ``p[Net.KEYS[0]]``, a loop over a class attribute's list of names (``for name in Cfg.NAMES``), over a
   module list of lists of names (``for group in GROUPS: for name in group``), over a tuple of pairs
   (``for first, second in PAIRS``) and over a display of lists (``for pair in [["a", "b"], ...]: p[pair[0]]``)
   were refused ("reads it with constant keys only").  Each is known when the gradient is built; the list
   or class attribute read is a dependency (changing it builds the gradient again: a test below).
2. An activation chosen by a string from a module dict of functions in a loop (``for name in names:
   ACTS[name](h)``, names a default tuple, a module tuple or a display) or bound to a name first (``act =
   ACTS[name]; act(z)``): "cannot tell which function".  lower/table_keys.py unrolls such a loop, each name
   a constant, and binds the name to the function (a name bound so in a branch or rebound in a loop is
   still refused at its line; changing the table builds the gradient again: a test below).
3. A nested function with keyword-only parameters (``def penalty(v, *, scale=1.0)``, required ones too):
   refused; now bound as Python binds them (lower/nested.py), a keyword-only one given by position refused.
4. A dict keyed by tuples (``couplings={(0, 1): 0.3, ...}``, an argument or a default): since wave 31a no
   tree, passed whole, so ``for (i, j), w in couplings.items()`` was refused, and differentiating it was
   refused naming no line (BAD).  A tuple of strings and integers is now a tree's key
   (frontend/trees.tree_key): the dict is a tree (its gradient a dict of the same keys, in every
   transformation), its keys bound as tuples of constants (``(i, j), w``; ``key``, then ``i, j = key``),
   read as ``p[i, j]``, ``p[(0, 1)]``, ``p[key]``, sorted by key.  Wave 31a's phys_spring_dict (a default
   of pairs), fn_activation_by_name and fn_nested_helper_closure (2. and 3.) now agree there too.
5. A loop filling a dict built in the function at keys known now (``for lab, v in zip(LABELS, x): d[lab]
   = ...``, a module tuple of names zipped with an array): "writing into d[lab] inside a branch or loop
   the dict was not built in".  The loop is unrolled (frontend/keyed_writes.py); an array shorter than the
   keys is refused when the gradient runs, at the loop's line (Python would leave keys out: a test below).

Still refused at the user's line (REFUSED below; OPEN): dict keys that are data of an argument (labels an
argument or a default, written into a new dict or comprehended over: the gradient would have to be
specialised on the strings); a list of dicts over ``range(n)`` of an argument's length or shape, and
``{k: ... for k in range(1, n + 1)}`` of a length known when the function runs (a list with an offset
would read from its end where the dict raises KeyError); ``tuple(generator)`` loop states holding a list,
and lists of such states ("a list built by append inside another list"); a loop over an instance
attribute's list of names through a method (``self.layers`` of a module-level object: the strings reach
the method as leaves, not constants); a class attribute's list of numbers in a function taking no tree
(``for s in Cfg.SIZES``: lowering reads a class's numbers only); a nested function's keyword-only default
that is a function (``act=np.tanh``).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave32c_class_lists as c
from . import wave32c_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"fstring_range_len", "list_of_lists_params", "act_bound_then_called", "kwonly_nested_required",
        "tuple_keyed_items_of_x"}
#: refused by grad at the user's line, and so by every transformation (the docstring's open items)
#: (labels an argument or a default are keys since wave 33a: frontend/key_parameters.py, test_wave33a.py)
REFUSED = {"dicts_over_half_length", "dicts_over_shape", "dicts_over_rows",
           "dict_comprehension_from_one", "dict_comprehension_from_one_loop", "tuple_state_nested_list",
           "tuple_states_list_of_states", "tuple_state_heun_lists", "method_over_self_layers", "kwonly_nested_tree"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w32c", "wave32c_programs", 32)


def _name(p):
    return p.name.partition(":")[2]


TABLE = table_tests.Table(programs, refused=REFUSED)
test_every_transformation = TABLE.every_transformation(ALL, kept=KEPT)
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(
    (*table_tests.REFUSED_CELLS, "hvp"), kept={"labels_argument"})


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
