"""The facts each rule declares (`Rule.fresh`, `pure`, `float_result`, `array_result`,
`tuple_result`, `sympy`) hold for the real function: the table is data, so it is checked against NumPy.

Every test is parametrised by rule name from the table; a rule whose function needs more
than one sample array per parameter has its call in `CALLS`.
"""

import math
import subprocess
import sys

import numpy as np
import pytest

import srcdiff
from rules.rule_specs_calc import calc_calls
from srcdiff.rules import (
    default_table,
    join_helpers,
    list_edits,
    list_helpers,
    rule,
    runtime,
    sort_ties,
    structural,
    unary,
)
from srcdiff.rules.calculus_helpers import nan_order_weights, order_weights
from srcdiff.rules.numpy_convert import astype
from srcdiff.tools import sympy_counterparts

X = np.array([[0.6, 0.2], [0.3, 0.7]])
Y = np.array([[0.4, 0.9], [0.8, 0.5]])

#: Rules of the built-in table, and the structural rules lowering makes itself.
RULES = {r.name: r for r in [*default_table(), structural.COPY, structural.GETITEM, structural.APPEND,
                             structural.SUM_ROWS, structural.FLOAT, structural.ABS, structural.MAX,
                             structural.MIN, structural.setitem_rule(1)]}

#: How to call a rule's function on the sample arrays `x` and `y`, where one array per
#: parameter is not the way (constructors, static arguments, lists of operands).
CALLS = {
    "operator.matmul": lambda x, y: x @ y,
    "numpy.where": lambda x, y: np.where(x > 0.5, x, y),
    "numpy.convolve": lambda x, y: np.convolve(x[0], y[0], "same"),  # 1-D operands
    "numpy.correlate": lambda x, y: np.correlate(x[0], y[0], "full"),
    "numpy.clip": lambda x, y: np.clip(x, 0.3, 0.65),
    "numpy.linalg.cholesky": lambda x, y: np.linalg.cholesky(x @ x.T + np.eye(2)),
    "numpy.tile": lambda x, y: np.tile(x, 2),
    "numpy.repeat": lambda x, y: np.repeat(x, 2),
    "numpy.add.reduceat": lambda x, y: np.add.reduceat(x, [0, 1]),
    "numpy.bincount": lambda x, y: np.bincount(np.array([1, 0, 1, 3]), weights=x.ravel()),
    "numpy.concatenate": lambda x, y: np.concatenate([x, y]),
    "numpy.stack": lambda x, y: np.stack([x, y]),
    "numpy.hstack": lambda x, y: np.hstack([x, y]),
    "numpy.vstack": lambda x, y: np.vstack([x, y]),
    "numpy.split": lambda x, y: np.split(x, 2),
    # a derivable gradient's list adjoints (rules/list_helpers.py)
    "srcdiff.rules.list_edits.list_removed": lambda x, y: list_edits.list_removed([1, x, y], 1),
    "srcdiff.rules.list_edits.list_popped": lambda x, y: list_edits.list_popped([x, y, x], 0),
    "srcdiff.rules.list_edits.list_inserted": lambda x, y: list_edits.list_inserted([x, y], 0, x),
    "srcdiff.rules.list_helpers.zeros_list": lambda x, y: list_helpers.zeros_list([x, y]),
    "srcdiff.rules.list_helpers.list_add": lambda x, y: list_helpers.list_add([x, y], 0, y),
    "srcdiff.rules.list_helpers.lists_add": lambda x, y: list_helpers.lists_add([x, y], [y, x]),
    "srcdiff.rules.list_helpers.rows_adjoint": lambda x, y: list_helpers.rows_adjoint([y[0], 0.0], x),
    "srcdiff.rules.list_helpers.list_repeat": lambda x, y: list_helpers.list_repeat(x, [x, y]),
    "srcdiff.rules.list_helpers.list_total": lambda x, y: list_helpers.list_total([x, y], x),
    "srcdiff.rules.list_helpers.list_drop": lambda x, y: list_helpers.list_drop([x, y, x]),
    "srcdiff.rules.list_helpers.items_array": lambda x, y: list_helpers.items_array([x, y]),
    "srcdiff.rules.list_helpers.add_adjoints": lambda x, y: list_helpers.add_adjoints([x, y], [y, x]),
    "srcdiff.rules.list_helpers.list_grow": lambda x, y: list_helpers.list_grow([x, y]),
    "srcdiff.rules.list_helpers.split_like": lambda x, y: list_helpers.split_like(y, [x[:1], x[1:]], 0),
    "srcdiff.rules.runtime.split_adjoint": lambda x, y: runtime.split_adjoint([x[:1], y[1:]], [x[:1], x[1:]], 0),
    "numpy.einsum": lambda x, y: np.einsum("ij->ji", x),
    "ndarray.astype": lambda x, y: astype(x, np.float64),
    "numpy.astype": lambda x, y: np.astype(x, np.float64),
    "numpy.zeros": lambda x, y: np.zeros(3),
    "numpy.ones": lambda x, y: np.ones(3),
    "numpy.empty": lambda x, y: np.empty(3),
    "numpy.full": lambda x, y: np.full(3, 0.5),
    "numpy.eye": lambda x, y: np.eye(3),
    "numpy.identity": lambda x, y: np.identity(3),
    "numpy.arange": lambda x, y: np.arange(3.0),
    "numpy.linspace": lambda x, y: np.linspace(0.0, 1.0, 3),
    "numpy.full_like": lambda x, y: np.full_like(x, 0.5),
    "numpy.issubdtype": lambda x, y: np.issubdtype(x.dtype, np.floating),
    "numpy.reshape": lambda x, y: np.reshape(x, (4,)),
    "numpy.expand_dims": lambda x, y: np.expand_dims(x, 0),
    "numpy.swapaxes": lambda x, y: np.swapaxes(x, 0, 1),
    "numpy.moveaxis": lambda x, y: np.moveaxis(x, 0, 1),
    "numpy.rollaxis": lambda x, y: np.rollaxis(x, 1),
    "numpy.broadcast_to": lambda x, y: np.broadcast_to(x, (3, 2, 2)),
    "getitem": lambda x, y: x[0],
    "numpy.linalg.matrix_power": lambda x, y: np.linalg.matrix_power(x, 2),
    "list.append": lambda x, y: [x].append(y),
    "setitem": lambda x, y: structural.set_item(x, 0, y[0]),
    "srcdiff.rules.runtime.matmul_adjoint_x": lambda x, y: runtime.matmul_adjoint_x(x, x, y),
    "srcdiff.rules.runtime.matmul_adjoint_y": lambda x, y: runtime.matmul_adjoint_y(x, x, y),
    "srcdiff.rules.runtime.dot_adjoint_x": lambda x, y: runtime.dot_adjoint_x(x, x, y),
    "srcdiff.rules.runtime.dot_adjoint_y": lambda x, y: runtime.dot_adjoint_y(x, x, y),
    "srcdiff.rules.runtime.solve_adjoint_y": lambda x, y: runtime.solve_adjoint_y(x, y, x),
    "srcdiff.rules.runtime.solve_adjoint_x": lambda x, y: runtime.solve_adjoint_x(x, y, x, x),
    "srcdiff.rules.runtime.prod_adjoint": lambda x, y: runtime.prod_adjoint(x[0], y, 0, False),
    "srcdiff.rules.kinks.kink": lambda x, y: runtime.kink(x > 0.0, y, x),
    "srcdiff.rules.kinks.kink_nan": lambda x, y: runtime.kink_nan(x > 0.0, y),
    "srcdiff.rules.kinks.tie": lambda x, y: runtime.tie(x > 0.0, y, x),
    "srcdiff.rules.kinks.tie_nan": lambda x, y: runtime.tie_nan(x > 0.0, False, y),
    "srcdiff.rules.kinks.tie_still_nan": lambda x, y: runtime.tie_still_nan(x > 0.0, False, y, x),
    "srcdiff.rules.kinks.held_still": lambda x, y: runtime.held_still(y, x),
    "srcdiff.rules.kinks.tied": lambda x, y: runtime.tied(np.maximum(x, y), x == y, x, y),
    "srcdiff.rules.sort_ties.sorted_tied": lambda x, y: sort_ties.sorted_tied(np.sort(x), x, own=True),
    "srcdiff.rules.sort_ties.sort_tie_nan": lambda x, y: sort_ties.sort_tie_nan(x, y, np.sort(x)),
    "srcdiff.rules.sort_ties.sort_tie_back": lambda x, y: sort_ties.sort_tie_back(x, y, np.sort(x)),
    "srcdiff.rules.runtime.index_add": lambda x, y: runtime.index_add(x, (np.array([0, 0]),), y),
    "srcdiff.rules.runtime.index_read": lambda x, y: runtime.index_read(x, (np.array([1, 0]), slice(None))),
    "max": lambda x, y: max(x[0, 0], y[0, 0]),
    "min": lambda x, y: min(x[0, 0], y[0, 0]),
    "math.acosh": lambda x, y: math.acosh(1.0 + abs(x[0, 0])),
    "math.atan2": lambda x, y: math.atan2(x[0, 0], y[0, 0]),
    "math.hypot": lambda x, y: math.hypot(x[0, 0], y[0, 0]),
    "math.copysign": lambda x, y: math.copysign(x[0, 0], y[0, 0]),
    **calc_calls(),  # rules/numpy_calculus.py and kin (tests/rules/rule_specs_calc.py)
}

CALLS.update({  # order statistics take one number q (rules/order_statistics.py)
    "numpy.percentile": lambda x, y: np.percentile(x, 30.0),
    "numpy.quantile": lambda x, y: np.quantile(x, 0.3),
    "srcdiff.rules.calculus_helpers.order_weights": lambda x, y: order_weights(x, 30.0, 0),
    "srcdiff.rules.calculus_helpers.nan_order_weights": lambda x, y: nan_order_weights(x, 30.0, 0),
    "numpy.nanpercentile": lambda x, y: np.nanpercentile(x, 30.0),
    "numpy.nanquantile": lambda x, y: np.nanquantile(x, 0.3),
    "numpy.nanmedian": lambda x, y: np.nanmedian(x),
})
CALLS["numpy.ix_"] = lambda x, y: np.ix_(x[0].astype(int) % 2, y[0].astype(int) % 2)  # index vectors
CALLS.update({  # splits, rolls, padding and joins of lists (rules/numpy_pad.py, numpy_joins.py)
    "numpy.roll": lambda x, y: np.roll(x, 1),
    "numpy.rot90": lambda x, y: np.rot90(x),
    "numpy.pad": lambda x, y: np.pad(x, 1),
    "numpy.insert": lambda x, y: np.insert(x, 1, y[0]), "numpy.delete": lambda x, y: np.delete(x, 1, axis=0),
    "numpy.column_stack": lambda x, y: np.column_stack([x, y]),
    "numpy.dstack": lambda x, y: np.dstack([x, y]),
    "numpy.row_stack": lambda x, y: np.vstack([x, y]),
    "srcdiff.rules.join_helpers.column_join": lambda x, y: join_helpers.column_join([x, y]),
    "srcdiff.rules.join_helpers.join_like": lambda x, y: join_helpers.join_like([x, y], [x, y], "vstack", None),
    "numpy.array_split": lambda x, y: np.array_split(x, 2),
    "numpy.hsplit": lambda x, y: np.hsplit(x, 2),
    "numpy.vsplit": lambda x, y: np.vsplit(x, 2),
    "numpy.dsplit": lambda x, y: np.dsplit(x[:, :, None] * y[:, None, :], 2),
    "srcdiff.rules.join_helpers.join_adjoint": lambda x, y: join_helpers.join_adjoint(
        np.vstack([x, y]), [x, y], "vstack", None),
    "srcdiff.rules.join_helpers.tiles_summed": lambda x, y: join_helpers.tiles_summed(np.tile(x, (2, 1)), y, (2, 1)),
    "srcdiff.rules.join_helpers.repeats_summed": lambda x, y: join_helpers.repeats_summed(np.repeat(x, 2), y, 2),
    "srcdiff.rules.guard_helpers.point_guard": lambda x, y: RULES["srcdiff.rules.guard_helpers.point_guard"].func(
        x, y, 0.0),
    "srcdiff.rules.guard_helpers.guard_nan": lambda x, y: RULES["srcdiff.rules.guard_helpers.guard_nan"].func(
        x > 0, y),
    "srcdiff.rules.guard_helpers.measure_guard": lambda x, y: RULES[
        "srcdiff.rules.guard_helpers.measure_guard"].func(x, y > 0, y, True),
    "srcdiff.rules.guard_helpers.measure_nan": lambda x, y: RULES["srcdiff.rules.guard_helpers.measure_nan"].func(
        x > 0, y, False),
    "srcdiff.rules.guard_helpers.measure_nan_dot": lambda x, y: RULES[
        "srcdiff.rules.guard_helpers.measure_nan_dot"].func(x > 0, y, x, True),
})

CALLS.update({  # whole parts of one number and the running extrema's helpers (rules/numpy_piecewise.py)
    "math.floor": lambda x, y: math.floor(x[0, 0]), "math.ceil": lambda x, y: math.ceil(x[0, 0]),
    "math.trunc": lambda x, y: math.trunc(x[0, 0]),
    "math.fmod": lambda x, y: math.fmod(x[0, 0], y[0, 0]),
    "srcdiff.rules.scan_helpers.extremum_scan_adjoint": lambda x, y: RULES[
        "srcdiff.rules.scan_helpers.extremum_scan_adjoint"].func(y, x, 0, "max"),
    "srcdiff.rules.fft_helpers.rfft_part_adjoint": lambda x, y: RULES[
        "srcdiff.rules.fft_helpers.rfft_part_adjoint"].func(x, 2 * np.shape(x)[-1] - 1),
    "srcdiff.rules.write_helpers.diagonal_range": lambda x, y: RULES[
        "srcdiff.rules.write_helpers.diagonal_range"].func(np.atleast_2d(x)),
    "srcdiff.rules.scan_helpers.extremum_scan_tangent": lambda x, y: RULES[
        "srcdiff.rules.scan_helpers.extremum_scan_tangent"].func(y, x, 0, "min"),
})

CALLS.update({  # weights by bin, the distinct values and a real inverse transform's adjoint (rules15)
    "numpy.histogram": lambda x, y: np.histogram(x, bins=3, weights=y),
    "numpy.fft.irfft": lambda x, y: np.fft.irfft(x), "srcdiff.rules.fft_helpers.irfft_imag": lambda x, y: RULES[
        "srcdiff.rules.fft_helpers.irfft_imag"].func(x), "numpy.fft.hfft": lambda x, y: np.fft.hfft(x, 6),
    "srcdiff.rules.bin_helpers.histogram_weights_adjoint": lambda x, y: RULES[
        "srcdiff.rules.bin_helpers.histogram_weights_adjoint"].func(np.ones(3), x, 3),
    "srcdiff.rules.bin_helpers.unique_adjoint": lambda x, y: RULES[
        "srcdiff.rules.bin_helpers.unique_adjoint"].func(np.ones(np.size(np.unique(x))), x),
    "srcdiff.rules.fft_helpers.irfft_adjoint": lambda x, y: RULES["srcdiff.rules.fft_helpers.irfft_adjoint"].func(x, 3),
})

CALLS.update({  # positions of the sample among sorted values (rules of wave 31a)
    "numpy.searchsorted": lambda x, y: np.searchsorted(np.sort(np.ravel(y)), x),
    "numpy.digitize": lambda x, y: np.digitize(x, np.sort(np.ravel(y))),
})

#: The arguments of a `math` function for one number n (within its domain).
NUMBER_ARGS = {"math.acosh": lambda n: (n + 1,), "math.atanh": lambda n: (n / 2,), "math.pow": lambda n: (n, n),
               "math.atan2": lambda n: (n, n), "math.hypot": lambda n: (n, n),
               "math.copysign": lambda n: (n, -0.5), "math.fmod": lambda n: (n, 0.3)}


def call(name, x=None, y=None):
    """The rule's function applied to (copies of, by default) the sample arrays."""
    x = X.copy() if x is None else x
    y = Y.copy() if y is None else y
    r = RULES[name]
    with np.errstate(all="ignore"):  # arccosh of 0.6 is NaN: the value does not matter here
        if name in CALLS:
            return CALLS[name](x, y)
        if r.float_result:  # functions of one number
            return r.func(x[0, 0])
        return r.func(*[x, y][: len(r.params)])


def parts(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def names(fact):
    return sorted(name for name, r in RULES.items() if fact(r))


@pytest.mark.parametrize("name", names(lambda r: r.fresh))
def test_a_fresh_value_shares_no_memory_with_the_operands(name):
    x, y = X.copy(), Y.copy()
    value = call(name, x, y)
    for part in parts(value):
        assert part is not x and part is not y
        if isinstance(part, np.ndarray):
            assert not np.shares_memory(part, x) and not np.shares_memory(part, y), name
        else:  # a number, a tuple of ints, a bool: immutable
            assert isinstance(part, (int, float, bool, np.generic, tuple)), (name, type(part))


@pytest.mark.parametrize("name", ["numpy.reshape", "numpy.ravel", "numpy.transpose", "numpy.asarray",
                                  "numpy.broadcast_to", "numpy.diag", "numpy.einsum", "numpy.split",
                                  "ndarray.T", "getitem", "copy"])
def test_a_view_or_an_operand_is_not_marked_fresh(name):
    x = X.copy()
    value = call(name, x) if name not in ("ndarray.T", "copy") else RULES[name].func(x)
    assert any(part is x or np.shares_memory(part, x) for part in parts(value))
    assert not RULES[name].fresh


@pytest.mark.parametrize("name", names(lambda r: r.pure))
def test_a_pure_function_leaves_its_operands_alone(name):
    x, y = X.copy(), Y.copy()
    call(name, x, y)
    assert np.array_equal(x, X) and np.array_equal(y, Y)


def test_append_is_not_pure_and_changes_its_list():
    xs = [X]
    RULES["list.append"].func(xs, Y)
    assert len(xs) == 2
    assert not RULES["list.append"].pure


@pytest.mark.parametrize("name", names(lambda r: r.float_result))
@pytest.mark.parametrize("number", [0.5, 1, np.float64(0.5), True])
def test_a_float_result_is_a_python_float(name, number):
    args = NUMBER_ARGS.get(name, lambda n: (n,))(number)
    assert type(RULES[name].func(*args)) is float


def test_float_results_are_the_math_functions_and_float():
    assert names(lambda r: r.float_result) == sorted(
        ["float"] + [n for n in RULES if n.startswith("math.") and n not in WHOLE_PARTS])


#: `math` functions whose value is an int (no gradient)
WHOLE_PARTS = ("math.floor", "math.ceil", "math.trunc")


@pytest.mark.parametrize("name", names(lambda r: r.array_result))
def test_an_array_result_is_an_array_even_for_numbers(name):
    assert isinstance(call(name), np.ndarray)
    try:
        value = call(name, np.float64(0.6), np.float64(0.4))
    except (TypeError, ValueError, IndexError, np.linalg.LinAlgError):
        return  # a function of arrays only (inv, concatenate of 0-d operands...)
    assert isinstance(value, np.ndarray), (name, type(value))


@pytest.mark.parametrize("name", ["numpy.exp", "numpy.sum", "numpy.clip", "numpy.dot", "ndarray.astype"])
def test_a_function_giving_a_number_for_numbers_is_not_an_array_result(name):
    assert not isinstance(call(name, np.float64(0.6), np.float64(0.4)), np.ndarray)
    assert not RULES[name].array_result


@pytest.mark.parametrize("name", names(lambda r: r.tuple_result))
def test_a_tuple_result_is_a_tuple_or_list(name):
    value = call(name, X.copy())
    assert isinstance(value, (tuple, list)) and len(value) >= 2


def test_constructors_and_copies_make_new_arrays_a_program_may_write_into():
    table = default_table()
    writable = table.functions_where(lambda r: r.fresh and r.array_result)
    assert {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like,
            np.full_like, np.copy, np.array, np.eye, np.concatenate} <= writable
    assert not {np.exp, np.sum, np.asarray, np.reshape, np.broadcast_to, np.split} & writable


def test_tuple_results():
    splits = ["numpy.array_split", "numpy.dsplit", "numpy.frexp", "numpy.histogram", "numpy.hsplit"]
    assert names(lambda r: r.tuple_result) == splits + ["numpy.linalg.eig", "numpy.linalg.eigh", "numpy.linalg.lstsq",
                                                        "numpy.linalg.qr", "numpy.linalg.slogdet", "numpy.linalg.svd",
                                                        "numpy.modf", "numpy.split", "numpy.vsplit",
                                                        "srcdiff.rules.join_helpers.join_adjoint",
                                                        "srcdiff.rules.list_edits.list_inserted",
                                                        "srcdiff.rules.list_edits.list_popped",
                                                        "srcdiff.rules.list_edits.list_removed"] + [
        f"srcdiff.rules.list_helpers.{n}" for n in sorted(["zeros_list", "list_add", "lists_add", "list_rows",
                                                           "list_repeat", "list_drop", "list_grow", "split_like"])]


#: A point where each counterpart and its function are both defined (0.4 and 0.7 elsewhere).
POINTS = {"numpy.arccosh": (1.4,), "numpy.clip": (0.4, 0.2, 0.3), "math.acosh": (1.4,)}


@pytest.mark.parametrize("name", names(lambda r: r.sympy and (r.sympy_elementwise or r.float_result) and not r.nograd
                                             and r.func is not r.sympy_function()) + ["operator.matmul"])
def test_the_sympy_counterpart_is_a_sympy_function_with_the_same_values(name):
    import sympy as sp

    r = RULES[name]
    counterpart = r.sympy_function()
    assert callable(counterpart)
    symbols = sp.symbols(f"a0:{len(r.params)}", positive=True)
    if name == "operator.matmul":  # on object arrays of symbols, as check runs it
        a, b = (np.array([[s, 1], [2, s]], dtype=object) for s in symbols)
        assert all(isinstance(v, sp.Basic) for v in counterpart(a, b).ravel())
        return
    assert isinstance(counterpart(*symbols), sp.Basic)
    point = POINTS.get(name, (0.4, 0.7, 0.9)[: len(r.params)])
    expected = r.func(*point)
    assert float(counterpart(*[sp.Float(p) for p in point])) == pytest.approx(float(expected), rel=1e-12)


def test_every_rule_records_its_sympy_counterpart_or_why_it_has_none():
    rules = [*default_table(), *sympy_counterparts.optional_rules()]
    missing = [r.name for r in rules if (r.sympy is None) == (not r.not_symbolic)]
    assert missing == [], "give each rule sympy=... or not_symbolic='why not'"
    assert set(sympy_counterparts.NOT_SYMBOLIC) == {r.name for r in rules if r.not_symbolic}


def test_import_srcdiff_resolves_no_counterpart():
    code = "import sys, srcdiff; print('srcdiff.rules.sympy_forms' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# ---- facts are validated when a rule is made ----

def test_a_fact_must_be_a_bool():
    with pytest.raises(srcdiff.SrcDiffError, match="fresh must be True or False"):
        rule(np.sin, ("x",), {"x": "g * np.cos(x)"}, fresh="yes")


def test_a_sympy_counterpart_is_a_dotted_name():
    with pytest.raises(srcdiff.SrcDiffError, match="sympy must be a dotted name"):
        unary(np.sin, x="g * np.cos(x)", sympy="sin")
    assert unary(np.sin, x="g * np.cos(x)", sympy="sympy.sin").sympy == "sympy.sin"


def test_a_float_result_is_one_number():
    with pytest.raises(srcdiff.SrcDiffError, match="a float result is one number"):
        unary(np.sin, x="g * np.cos(x)", float_result=True)
    with pytest.raises(srcdiff.SrcDiffError, match="must have a scalar shape"):
        rule(math.sin, ("x",), {"x": "g * math.cos(x)"}, float_result=True, shape=lambda static, x: x)


def test_expanded_variadic_rules_keep_their_facts():
    concatenate = RULES["numpy.concatenate"].expand(3)
    assert concatenate.params == ("x0", "x1", "x2") and concatenate.fresh and concatenate.variadic is None
