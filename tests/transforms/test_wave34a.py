"""Wave 34a: the reach of dicts and objects.  34 programs (wave34a_programs.py) written the way users
write them: helpers returning a dict of computed values (module-level and nested, a literal, built key by
key, a comprehension, a dict of arrays read in a loop or by ``.items()``, a ``(dict, float)`` tuple, ``**``
into another helper, ``.get`` with a default, a method of a module-level object), configuration dicts of
dicts (module-level read by keys, a sub-dict bound to a name, ``.get``, passed to a helper; an argument
differentiated or not), parameter trees two and three levels deep, a list of dicts of dicts, objects read
through ``__slots__`` (module-level, an argument, built in the function) or ``__getattr__``, dicts keyed by
floats (ode_arrhenius' kind) and by Enum members.  Each through grad, value_and_grad, hessian, hvp, jvp,
vjp, jacobian, a tree of arguments, float32, vmap(grad) and jit="numba", against float64 central
differences (matrix.py, closure_cells.py).

Census (34 programs; cells ok / n/a / refused at the user's line / WRONG / BAD; the Hessian is n/a where
grad refuses), before -> after:

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                      14    0   20     0   0             34    0    0     0   0
    value_and_grad            14    0   20     0   0             34    0    0     0   0
    hessian                    6   13    0     0   0             34    0    0     0   0
    hvp                       13    2   19     0   0             32    2    0     0   0
    jvp                       14    0   20     0   0             34    0    0     0   0
    vjp                       14    0   20     0   0             34    0    0     0   0
    jacobian                  14    0   20     0   0             34    0    0     0   0
    tree                      14    0   20     0   0             34    0    0     0   0
    float32                   13    1   20     0   0             33    1    0     0   0
    vmap(grad)                 7    7   20     0   0             27    7    0     0   0
    numba                     14    0   20     0   0             33    0    1     0   0

Nine more written after the fixes, the way other users would (HELD_OUT, not tuned on): before 1 ok and 8
refused in every transformation; after 6 ok in every transformation (numba too), 3 refused at the line.
No cell was WRONG before (every gap a refusal), but the refusals said the wrong thing: "index 'scale' is
not an integer", "the differentiated function returns a tree" at a helper's ``return``, "cannot tell which
function CFG.get is", "the method .get() ... has no adjoint rule", "the attribute .w is not supported".

Found and fixed (each a class, with variants here):

1. A helper returning a dict of computed values: a nested ``def`` returning one was written out only when
   given a tree (frontend/local_defs.returns_dict); a module-level helper or a method returning ``d`` built
   key by key, ``dict(m=..., s=...)``, a comprehension, or a tuple holding such a dict was not read as a
   returned tree (frontend/returned_objects.py: nested returned trees, methods of objects read as trees);
   ``**helper(x)`` and ``helper(x).items()`` did not ask for the returned tree (tree_reads.spread,
   flatten_exprs.call_entry).  The slow row redteam_wave27a helper_returning_dict passes again.
2. A module configuration dict of dicts used whole (``layer = CFG["layer"]``, ``CFG.get("layer", {})``,
   ``helper(x, CFG["loss"])``): lowering read it only at keys.  Now such a dict is a tree of constants
   (frontend/config_dicts.py), compared by value at each call (a value changed, a key added: built again).
   A literal ``{}`` default of a ``.get`` is passed as written.
3. ``__slots__`` objects (trees.slot_names / attribute_names; each slot a dependency, global_objects.
   SlotValues); a module-level object's ``__getattr__`` values (global_objects.dynamic_attribute, asked again
   at each call; of an argument refused at the line, saying so).
4. Float and Enum keys: a module dict read at ``300.0`` or ``Term.FIT`` (or ``.get`` with a constant
   default) is a constant the gradient depends on by value, so numba compiles it (lower/subscripts.py); a
   dict of numbers built in the function with such keys is data held whole, of computed values a tree with
   those keys (frontend/module_constants.other_keyed_dict).  ode_arrhenius (test_wave33g.py) is accepted.
5. Found on the way, a silent WRONG in code that has nothing to do with dicts:
   ``np.sum(x * 0.7) + np.sum(x * 2.0)`` had the gradient 2.7, a number, not an array of x's shape.  The
   optimiser's scalar_fills made both ``np.full`` fills numbers in one pass, each judged by the other staying
   an array (backend/optimize/sameshape.py: a fill meeting what another made a number waits for the next
   round, its classes read again).

Open (refused at the user's line): jit="numba" of float_keyed_dict (a dict read at a loop's float: numba
takes no Python dict); iterating a module dict keyed by Enum members (``W.items()``: loop over a tuple of
the members); ``__getattr__`` of an argument's class; a dict comprehension over (name, function) pairs;
``m, s = helper(x).values()``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave34a_programs as w

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34a", "wave34a_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (one of each class; `-m slow` runs them all)
KEPT = {"nested_helper_dict", "helper_dict_and_float", "slots_argument_x", "enum_keyed_local_dict", "float_keyed_dict"}
#: refused by grad at the user's line (every row was before, but nine; none is now)
REFUSED: set = set()
#: jit="numba" refuses these at the user's line (a dict read at a key known only when the function runs)
NUMBA_REFUSED = {"float_keyed_dict"}


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order(lambda p: ("grad", "vjp") if _name(p) in KEPT else matrix.FIRST_ORDER)
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


# ---- written after the fixes, the way other users would (held out) ----

def held_out():
    return corpus.from_table(w.HELD_OUT, "w34a", "wave34a_programs", 34)


#: refused at the user's line, saying what to do (the open items)
HELD_OUT_REFUSED = {"enum_module_items", "getattr_argument", "dict_of_functions_comprehension"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "helper_dict_call", p) for p in held_out()
                                     if _name(p) not in HELD_OUT_REFUSED], ids=_name)
def test_held_out(program):
    """Every transformation and jit="numba" (grad and vjp in the default run)."""
    quick = _name(program) == "helper_dict_call"
    matrix.assert_ok_or_na(program, ("grad", "vjp") if quick else ALL)
    if not quick:
        matrix.assert_ok(program, ("numba",))


@pytest.mark.parametrize("program", [p for p in held_out() if _name(p) in HELD_OUT_REFUSED], ids=_name)
def test_held_out_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "jacobian"))


# ---- changed after a first call: the new derivative, never the old one ----

def _set_item(d, key, value):
    def change():
        old = d[key]
        d[key] = value
        return lambda: d.__setitem__(key, old)
    return change


def _set_attr(obj, name, value):
    def change():
        old = getattr(obj, name)
        setattr(obj, name, value)
        return lambda: setattr(obj, name, old)
    return change


def _add_key(d, key, value):
    def change():
        d[key] = value
        return lambda: d.pop(key)
    return change


CHANGES = [
    (w.module_cfg_nested_get, _set_item(w.CFG["layer"], "scale", 1.9)),
    (w.module_cfg_nested_get, _set_item(w.CFG, "layer", {"scale": 0.3, "shift": 0.5})),
    (w.module_cfg_to_helper, _add_key(w.CFG["layer"], "extra", 1.0)),  # (a key added: compared by value)
    (w.module_cfg_sub_dict, _set_item(w.CFG["loss"], "weight", 0.5)),
    (w.slots_module_object, _set_attr(w.SLOTS, "b", 3.0)),
    (w.slots_module_object, _set_attr(w.SLOTS, "w", np.array([2.0, 0.5, -1.0]))),
    (w.getattr_module_object, _set_item(w.OPTS, "scale", -0.75)),
    (w.getattr_namespace, _set_item(w.NS._values, "alpha", 1.25)),
    (w.enum_keyed_module_dict, _set_item(w.WEIGHTS, w.Term.REG, 2.0)),
    (w.enum_keyed_module_loop, _set_item(w.WEIGHTS, w.Term.FIT, -1.0)),
    (w.method_returning_dict, _set_attr(w.MODEL, "scale", 0.25)),
    (w.enum_module_get, _add_key(w.WEIGHTS, "other", 1.0)),  # (compared by value: built again, same result)
]


@pytest.mark.parametrize("func,change", CHANGES, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(CHANGES)])
def test_changed_after_a_first_call(func, change):
    """A dict, slot, __getattr__ value or object attribute the gradient read when built, changed in place after
    a first call: the gradient of the function as it is now (central differences), then, put back, the first."""
    x = np.array([0.3, -0.4, 0.8])
    for transform in (srcdiff.grad,) if func is not w.module_cfg_nested_get else (srcdiff.grad, srcdiff.value_and_grad):
        g = transform(func)
        first = g(x)
        undo = change()
        try:
            got = g(x)
            got = got[1] if isinstance(got, tuple) else got
            np.testing.assert_allclose(got, central_difference(func, (x,), 0), rtol=1e-6, atol=1e-8)
        finally:
            undo()
        again = g(x)
        np.testing.assert_array_equal(again[1] if isinstance(again, tuple) else again,
                                      first[1] if isinstance(first, tuple) else first)


# ---- found on the way: two fills made numbers in one optimiser pass ----

SCALE = 0.7


def two_sums(x):
    return np.sum(x * 0.7) + np.sum(x * 2.0)


def three_sums(x):
    return np.sum(x * SCALE) + np.sum(2.0 * x) - np.sum(x / 4.0)


def sums_of_a_matrix(m):
    return np.sum(m * 0.5) + np.sum(m * SCALE)


@pytest.mark.parametrize("func,arg", [(two_sums, np.array([0.5, 1.0, 2.0])), (three_sums, np.array([1.0, -2.0])),
                                      (sums_of_a_matrix, np.ones((2, 3)))], ids=lambda v: getattr(v, "__name__", ""))
def test_sums_of_scaled_arrays_give_an_array(func, arg):
    """``np.sum(x * 0.7) + np.sum(x * 2.0)``: the gradient was the number 2.7, not an array of x's shape
    (each of the two fills was made a number, judged by the other staying an array)."""
    for got in (srcdiff.grad(func)(arg), srcdiff.value_and_grad(func)(arg)[1], srcdiff.vjp(func, arg)[1](1.0)):
        assert np.shape(got) == arg.shape
        np.testing.assert_allclose(got, central_difference(func, (arg,), 0), rtol=1e-6, atol=1e-8)
