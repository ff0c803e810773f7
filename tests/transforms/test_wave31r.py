"""Wave 31r: dicts, lists and tuples written as users write them (wave31r_programs.py): dict
comprehensions over a module dict, over ``zip`` of names and computed arrays, over ``range`` of a
length known only when the function runs; lists of dicts; ``d.setdefault(k, []).append(v)``; a
local dict's ``.items()`` zipped with an array; ``NAMED["lo"]`` in a loop over that dict; functions
appended to a list in a loop, then called; appends after a read outside loops; loops over a tuple of
tuples of computed arrays; lists of new ``(t, y)`` states (Heun, predictor-corrector, leapfrog);
second order of a slice of a list a helper returns, and of ``zip(xs, ks)`` with ``p[k]``.  Each
goes through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32, check and
jit="numba", against float64 central differences.

Census (42 programs; ok / n/a / refused at the user's line / WRONG / BAD), before -> after:

                        before                      after
                     ok  n/a  ref WRONG BAD      ok  n/a  ref WRONG BAD
    grad             17    0   25    0    0      37    0    5    0    0
    value_and_grad   17    0   25    0    0      37    0    5    0    0
    hessian          13   25    4    0    0      37    5    0    0    0
    hvp              13    0   29    0    0      37    0    5    0    0
    jvp              17    0   25    0    0      37    0    5    0    0
    vjp              17    0   25    0    0      37    0    5    0    0
    jacobian         17    0   25    0    0      37    0    5    0    0
    tree             17    0   25    0    0      37    0    5    0    0
    float32          17    0   25    0    0      37    0    5    0    0
    check            17    0   25    0    0      37    0    5    0    0
    numba            16    0   26    0    0      36    0    6    0    0

(hessian is n/a where grad is not ok.)  Every refusal, before and after, names the user's line.

No WRONG and no BAD cell, before or after.

Found and fixed (each a class, with variants in the programs module):

1. Dict comprehensions over items the rewrite could know were refused ("dict comprehensions over
   items known only when the function runs"): over a module dict (``WEIGHTS.items()``, ``.keys()``,
   the dict itself, enumerated), over ``zip`` of names and a display of computed values, over a
   local dict's ``.items()`` zipped with an array, and loops over a tuple of tuples of computed
   arrays ("reading an item of a list of lists").  frontend/display_items.py: a module dict's items
   (a dependency: changing the dict builds the gradient again) and a display's items (computed
   before the statement) are items the tree rewrite unrolls; ``list(x[:2])`` of a slice is a copy
   (lower/list_copies.py).
2. ``{i: e for i in range(n)}`` with n known only when the function runs (an argument,
   ``len(x) // 2``): refused.  frontend/range_dicts.py: read only as a list would be, it is that list.
3. ``NAMED["lo"]`` inside a loop over NAMED ("index 'lo' is not an integer", wave 30h's open 4):
   lower/subscripts.py reads a module dict at a string key as data of the module, in the loop too.
4. ``groups.setdefault(lab, []).append(v)``: refused ("srcdiff reads its keys [], not .setdefault").
   frontend/setdefault_calls.py writes the test and the write of a missing key; over keys known when
   the gradient is built they are decided per key (a decided ``if`` no longer counts as a branch for a
   dict's new key: frontend/operator_objects.py).  Keys from data are refused at the line, saying
   to loop over a module tuple of labels or to group with a mask.
5. Functions appended to a list in a loop (a lambda or a nested def), then called: refused ("Lambda
   expressions are not supported", "the local function can only be called").
   frontend/appended_functions.py: the list comprehension of those lambdas, which the rewrite calls.
6. Appending to a list after it was read, outside loops: refused ("appending to xs after it was
   read").  frontend/read_appends.py: the new list ``xs + [v]`` bound to xs, built item by item.
   (Wave 30a's grown_no_loop, whose second order was refused, now agrees too.)
7. The Hessian of a slice of a list a helper returns (``m = moments(x); m[1:3]``): refused (the
   gradient's code added a slice's adjoint into a list).  The helper's own lowering tells the length
   of the display it returns (lower/callee_facts.py), and the slice is the display of its items
   (lower/list_item_slices.py).

Already right (kept as rows): lists of dicts from a comprehension, a local dict read at a loop
variable, Heun / predictor-corrector / leapfrog states as new tuples, second order of ``zip(x, ks)``
with ``x[k]`` or ``PRIORS[k]`` (forward or reversed), a module dict's items in a for loop.

Open (refused at the user's line, REFUSED below): a dict read at keys that are data (``labels`` an
argument, ``zip(LABELS, x)`` of an array whose length decides which keys exist, ``p[k]`` of a local
dict with k from a default tuple argument); a list of dicts over ``range(n)`` of an argument n (the
refusal now says to keep one list per key; since wave 33a it agrees, n a constant of the
rewrite).  jit="numba": a module dict read at a loop's key
(zip_keys_priors, before and after).  Also open, from wave 30a: a list of states each a tuple made
by ``tuple(generator)`` (sc_heun_kinetics: a list inside a list).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave31r_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"comp_zip_names", "comp_range_runtime", "appended_lambdas_indexed", "append_after_read",
        "helper_list_slice", "named_in_dict_loop"}
#: refused by grad at the user's line, and so by every transformation
#: (list_of_dicts_runtime_count, a list of dicts over range(layers) of an int argument, and zip_keys_dict, keys
#: zipped from a default tuple, agree since wave 33a)
REFUSED = {"setdefault_per_group_likelihood"}  # (setdefault_groups, setdefault_groups_zip: accepted since wave 36g)
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"zip_keys_priors"}  # (numba takes no Python dict: PRIORS[k] at a key of a loop)


def programs():
    return corpus.from_table(w.PROGRAMS, "w31r", "wave31r_programs", 31)


def _name(p):
    return p.name.partition(":")[2]


TABLE = table_tests.Table(programs, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_every_transformation = TABLE.every_transformation(ALL, kept=KEPT)
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(
    (*table_tests.REFUSED_CELLS, "hvp"), kept=REFUSED)


def test_grouping_by_labels_given_as_data_zipped_with_a_shorter_array_is_refused_when_run():
    """``groups.setdefault(lab, []).append(v)`` over ``zip(labels, x)`` (refused until wave 36g: a list
    built from ``[]`` is written item by item since then): an x shorter than the labels is refused when the
    gradient runs, at the loop's line (zip would end early)."""
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(w.setdefault_groups)(np.ones(4))
    assert "wave31r_programs.py:" in str(caught.value) and "shorter sequence" in str(caught.value)


def test_dicts_made_over_a_count_computed_when_run_say_what_to_write():
    def computed(x):
        n = len(x) // 2
        net = [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(n)]
        return net[0]["w"] * net[-1]["b"]

    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(computed)(np.ones(6))
    text = str(caught.value)
    assert "test_wave31r.py:" in text and "one list per key" in text and "int argument" in text


def test_a_module_dict_comprehended_again_after_it_changed():
    """The gradient holds the dict's items; changing a value builds it again (a dependency)."""
    x = np.array([0.3, -0.2, 0.5])
    gradient = srcdiff.grad(w.comp_module_dict)
    before = gradient(x)
    w.WEIGHTS["scale"] = 2.5
    try:
        after = gradient(x)
    finally:
        w.WEIGHTS["scale"] = 1.5
    np.testing.assert_allclose(after - before, 2 * x * 1.0)  # (the weights' sum grew by 1.0)


def test_a_range_dict_written_into_at_a_new_key_agrees():
    """``{i: ... for i in range(n)}`` of an int argument is a dict of constant keys since wave 33a (a list
    would raise IndexError at d[n]); a new key written into it is a new entry, as in Python."""
    def written(x, n=3):
        d = {i: x[i] ** 2 for i in range(n)}
        d[n] = 1.0
        return d[0] + d[n] * d[2]

    x = np.array([0.3, -0.2, 0.5, 0.7])
    np.testing.assert_allclose(srcdiff.grad(written)(x), [0.6, 0.0, 1.0, 0.0])


def test_an_appended_def_read_after_the_loop_is_left_as_written():
    def last_read(x):
        fs = []
        for c in (1.0, 2.0):
            def f(t, c=c):
                return c * t ** 2
            fs.append(f)
        return np.sum(fs[0](x)) + np.sum(f(x))  # (f is the last function: not rewritten)

    with pytest.raises(srcdiff.SrcDiffError, match=r"test_wave31r\.py:\d+"):
        srcdiff.grad(last_read)(np.ones(3))
