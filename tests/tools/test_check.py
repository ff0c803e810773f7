"""srcdiff.check (sympy cross-check) and srcdiff.gradcheck (central differences).

The hand-derived derivatives below are written out by hand, never computed by srcdiff; the
broken-rule fixtures prove that both checks can fail, and say which input is wrong.
"""

import ast
import math
import operator
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from modules import import_source
from rules import spec_kinds
from rules.spec_kinds import EITHER, EXACT, SAMPLES, NoSym, Sym
from rules.specs import SPECS

import srcdiff
from srcdiff.ad import regions as reverse_regions
from srcdiff.ad import sweep as sweep_module
from srcdiff.ir.nodes import UserCall
from srcdiff.ir.program import Scatter
from srcdiff.rules import TABLE, Rule, structural, unary
from srcdiff.rules.builtin import SECTIONS
from srcdiff.rules.python_math import scalar
from srcdiff.tools import symbolic, symbolic_status, sympy_counterparts
from srcdiff.tools.check import MISMATCH, NOT_SYMBOLIC, NUMERIC, PROVED, TIMEOUT, GradientMismatch, check, lowered_nodes
from srcdiff.tools.gradcheck import gradcheck

# ---- functions under test (module level: srcdiff reads their source) ----


def seed(x, y, b):
    z = x * y
    return z + b


def product_of_sums(a, b, c):
    return (a + b) * (a + c)


def polynomial(a, b, c):
    return a * a * b + b * c / a + np.exp(c) * a


def with_flag(x, y, flag):
    if flag:
        z = x * y
    else:
        z = x + y
    return z * x


def relu_like(x, y):
    return np.sum(np.maximum(x, y) * x)


def uses_np_sin(x, y):
    return np.sum(np.sin(x) * y)


def uses_math_sin(x, y):
    return math.sin(x) * y


def uses_tanh(x):
    return np.sum(np.tanh(x))


def one_element_sin(x, y):
    return np.sum(np.sin(x * y))


def mean_square(w, X, y):
    r = X @ w - y
    return (r * r).mean()


def with_default(x, y=2.0):
    return x * y


def products_of_elements(x):
    return x[0] * x[1] + x[2] ** 2


def neighbours(x):  # the coupling term of Rosenbrock's function
    return np.sum(x[1:] * x[:-1])


def weighted(x):
    return np.sum(np.array([1.0, 2.0, 3.0]) * x)


def mean_of_squares(x):
    return np.sum(x * x) / len(x)


def by_count(x, y, n):
    if n > 2:
        z = x * y
    else:
        z = x + y
    return z * x


def squares_in_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s


def branch_on_inputs(x, y):
    if x > y:
        return x * y
    return x + y


def branch_on_truth(x, y):
    if x:
        return x * y
    return y


def asks_float_type(x):
    if isinstance(x, np.floating):
        return x * x
    return x


def asks_for_a_float(x):
    if isinstance(x, float):  # True for a Python float and for np.float64: a symbol answers the same
        return np.sum(np.zeros(2, dtype=float) + x * x)
    return x


def float_of_input(x):
    return float(x) * x


def square(a):
    return a * a


def calls_a_helper(x):
    return square(x) + x


R = {n: sp.Symbol(n, real=True) for n in "abcxyz"}
X = [sp.Symbol(f"x[{i}]", real=True) for i in range(4)]


def _same(expr, expected: str) -> bool:
    return sp.simplify(symbolic.exact(sp.sympify(expr) - sp.sympify(expected, locals=R))) == 0


# ---- proofs ----

PROOFS = [  # function, args, wrt, sympy's derivative per input written by hand
    (seed, (1.5, -2.0, 0.5), (0, 1, 2), ["y", "x", "1"]),
    (product_of_sums, (0.5, 1.5, -1.0), (0, 1, 2), ["2*a + b + c", "a + c", "a + b"]),
    (polynomial, (0.7, 1.3, -0.4), (0, 1, 2),
     ["2*a*b - b*c/a**2 + exp(c)", "a**2 + c/a", "b/a + a*exp(c)"]),
    (calls_a_helper, (1.5,), (0,), ["2*x + 1"]),  # square's own code and adjoint run on the symbols
]


@pytest.mark.parametrize("func, args, wrt, expected", PROOFS, ids=[p[0].__name__ for p in PROOFS])
def test_check_proves_symbolically(func, args, wrt, expected):
    report = check(func, *args, wrt=wrt)
    assert report.status == PROVED, str(report)
    assert report and not report.mismatches
    for item, derivative in zip(report.inputs, expected):
        assert item.verdict == PROVED
        assert _same(item.sympy, derivative), (item.name, item.sympy)
        assert _same(item.srcdiff, derivative), (item.name, item.srcdiff)


@pytest.mark.parametrize("flag, expected", [(True, ["2*x*y", "x**2"]), (False, ["2*x + y", "x"])])
def test_check_proves_a_branch_on_a_flag(flag, expected):
    report = check(with_flag, 1.5, -0.5, flag, wrt=(0, 1))
    assert report.status == PROVED, str(report)
    for item, derivative in zip(report.inputs, expected):
        assert _same(item.sympy, derivative) and _same(item.srcdiff, derivative)


#: Subscripts, literals, len and loops.  function, args, sympy's derivative by hand (x as X).
ELEMENT_PROOFS = [
    (products_of_elements, (np.array([0.3, -0.7, 1.1]),), [X[1], X[0], 2 * X[2]]),
    (neighbours, (np.array([0.3, -0.7, 1.1, 0.4]),), [X[1], X[0] + X[2], X[1] + X[3], X[2]]),
    (weighted, (np.array([0.3, -0.7, 1.1]),), [1, 2, 3]),
    # 4 elements: 1.0 / len(x) is 0.25, exact in binary, so this is a proof, not a rounding
    (mean_of_squares, (np.array([0.3, -0.7, 1.1, 0.4]),), [X[i] / 2 for i in range(4)]),
    (squares_in_a_loop, (np.array([0.3, -0.7, 1.1]),), [2 * X[i] for i in range(3)]),
]


@pytest.mark.parametrize("func, args, expected", ELEMENT_PROOFS, ids=[p[0].__name__ for p in ELEMENT_PROOFS])
def test_check_proves_subscripts_literals_len_and_loops(func, args, expected):
    report = check(func, *args)
    assert report.status == PROVED, str(report)
    item = report.inputs[0]
    assert item.verdict == PROVED and len(item.sympy) == len(expected)
    for theirs, mine, derivative in zip(item.sympy, item.srcdiff, expected):
        assert sp.simplify(symbolic.exact(sp.sympify(theirs) - derivative)) == 0, (theirs, derivative)
        assert sp.simplify(symbolic.exact(sp.sympify(mine) - derivative)) == 0, (mine, derivative)


@pytest.mark.parametrize("n, expected", [(3, ["2*x*y", "x**2"]), (2, ["2*x + y", "x"])])
def test_check_proves_a_branch_on_a_comparison_of_a_flag(n, expected):
    report = check(by_count, 1.5, -0.5, n, wrt=(0, 1))
    assert report.status == PROVED, str(report)
    for item, derivative in zip(report.inputs, expected):
        assert _same(item.sympy, derivative) and _same(item.srcdiff, derivative)


@pytest.mark.parametrize("func, args, reason", [
    (branch_on_inputs, (1.5, -0.5), "depends on a comparison of the differentiated inputs"),
    (branch_on_truth, (1.5, -0.5), "a branch depends on the truth of the symbolic value x"),
    (asks_float_type, (np.float64(1.5),), "depends on which float type the symbol stands for"),
    (float_of_input, (1.5,), "Cannot convert expression to float"),
], ids=["comparison", "truth", "isinstance", "float"])
def test_what_symbols_cannot_decide_is_not_symbolic(func, args, reason):
    report = check(func, *args, wrt=0)
    assert report.status == NOT_SYMBOLIC and not report, str(report)
    assert reason in str(report)


def test_isinstance_float_of_a_symbol_answers_for_the_float():
    report = check(asks_for_a_float, 1.5)
    assert report.status == PROVED, str(report)
    assert _same(report.inputs[0].srcdiff, "4*x")


def test_check_proves_arrays_against_data():
    X = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    y = np.array([0.5, -2.0])
    report = check(mean_square, np.zeros(3), X, y)
    assert report.status == PROVED, str(report)
    w = sp.Matrix([sp.Symbol(f"w[{i}]", real=True) for i in range(3)])
    by_hand = (2 / sp.Integer(2)) * sp.Matrix(X.T.tolist()) * (sp.Matrix(X.tolist()) * w - sp.Matrix(y))
    for i in range(3):
        assert sp.simplify(symbolic.exact(report.inputs[0].sympy[i] - by_hand[i])) == 0


def test_check_falls_back_to_numbers_where_sympy_cannot_simplify():
    # d/dx max(x, y) is Heaviside(x - y) to sympy and a comparison to srcdiff: they differ
    # only on the tie x == y, so no simplification proves them equal, but they agree elsewhere.
    report = check(relu_like, np.array([0.3, -0.2]), np.array([0.1, 0.4]), wrt=(0, 1))
    assert report.status == NUMERIC, str(report)
    assert report
    assert {i.verdict for i in report.inputs} == {NUMERIC}
    assert "numerically" in str(report) and "not proved" in str(report)


def test_report_text_names_each_input_with_both_derivatives():
    text = str(check(seed, 1.5, -2.0, 0.5, wrt=(0, "y")))
    assert "proved equal" in text
    lines = [line.strip() for line in text.splitlines()]
    assert lines[1:] == ["x", "sympy:   y", "srcdiff: y", "proved: sympy simplifies the difference to 0",
                         "y", "sympy:   x", "srcdiff: x", "proved: sympy simplifies the difference to 0"]


def test_shapes_stand_for_missing_arguments():
    report = check(uses_np_sin, shapes={"x": (2,), "y": (2,)}, wrt=(0, 1))
    assert report.status == PROVED
    assert report.inputs[0].sympy.shape == (2,)


def test_defaults_fill_missing_arguments_and_missing_values_are_refused():
    assert check(with_default, 3.0).status == PROVED
    with pytest.raises(srcdiff.SrcDiffError, match="no value for 'y'"):
        check(seed, 1.0, wrt=0)


def test_a_rule_without_counterpart_is_not_symbolic(monkeypatch):
    monkeypatch.delitem(sympy_counterparts.COUNTERPARTS, "numpy.tanh")
    report = check(uses_tanh, np.array([0.1, 0.2]))
    assert report.status == NOT_SYMBOLIC
    assert not report
    assert report.inputs == []
    assert "numpy.tanh has no sympy counterpart" in str(report)
    report.raise_on_mismatch()  # not a mismatch: nothing was compared


def test_user_arguments_are_untouched():
    x, y = np.array([0.3, 0.6]), np.array([1.0, 2.0])
    check(uses_np_sin, x, y, wrt=(0, 1))
    gradcheck(uses_np_sin, x, y, wrt=(0, 1))
    assert x.tolist() == [0.3, 0.6] and y.tolist() == [1.0, 2.0]


# ---- a wrong adjoint and a wrong accumulation are caught ----

WRONG_SIN = [
    (uses_np_sin, (np.array([0.3, 1.1]), np.array([1.5, -0.5])), unary(np.sin, x="-g * np.cos(x)")),
    (uses_math_sin, (0.7, 1.3), scalar(math.sin, x="-g * math.cos(x)")),
]


@pytest.fixture
def wrong_rule():
    """Replace a rule for the test's duration; the original comes back afterwards."""
    replaced = []

    def register(rule):
        replaced.append(TABLE.register(rule, replace=True))

    yield register
    for old in reversed(replaced):
        TABLE.register(old, replace=True)


@pytest.mark.parametrize("func, args, rule", WRONG_SIN, ids=["np.sin", "math.sin"])
def test_wrong_adjoint_is_reported_by_both_checks(func, args, rule, wrong_rule):
    assert check(func, *args, wrt=(0, 1)).status == PROVED
    assert gradcheck(func, *args, wrt=(0, 1))
    wrong_rule(rule)
    report = check(func, *args, wrt=(0, 1))
    assert report.status == MISMATCH and not report
    assert report.mismatches == ["x"]
    assert "MISMATCH with sympy's derivative in x" in str(report)
    numeric = gradcheck(func, *args, wrt=(0, 1))
    assert not numeric and numeric.mismatches == ["x"]
    assert "MISMATCH in x" in str(numeric)
    with pytest.raises(GradientMismatch, match="MISMATCH"):
        check(func, *args, wrt=(0, 1), raise_on_mismatch=True)
    with pytest.raises(GradientMismatch):
        gradcheck(func, *args, wrt=(0, 1), raise_on_mismatch=True)


def test_gradcheck_points_at_the_worst_element(wrong_rule):
    wrong_rule(unary(np.sin, x="-g * np.cos(x)"))
    report = gradcheck(one_element_sin, np.array([0.3, 0.4, 0.5]), np.array([0.0, 1.0, 0.0]))
    item = report.inputs[0]
    assert item.worst_index == (1,) and item.failing == 1
    assert "worst element x[1]" in str(report)
    assert item.rel_error == pytest.approx(2.0)  # -cos against cos


@pytest.fixture
def assign_instead_of_add(monkeypatch):
    """The backward sweep assigns a second contribution instead of adding it."""
    sweep = sweep_module.Sweep
    original = sweep.contribute

    def contribute(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if self.stmts and getattr(self.stmts[-1], "accumulate", False):
            self.stmts[-1].accumulate = False

    srcdiff.clear_cache()  # cached transforms were built by the right sweep
    monkeypatch.setattr(sweep, "contribute", contribute)
    yield
    monkeypatch.undo()
    srcdiff.clear_cache()


def test_wrong_accumulation_is_reported_by_both_checks(assign_instead_of_add):
    args = (0.5, 1.5, -1.0)
    report = check(product_of_sums, *args, wrt=(0, 1, 2))
    assert report.mismatches == ["a"], str(report)
    assert gradcheck(product_of_sums, *args, wrt=(0, 1, 2)).mismatches == ["a"]


@pytest.fixture
def doubled_getitem_adjoint(monkeypatch):
    """The adjoint of ``x[index]`` scatters twice the right value into x's adjoint."""
    original = reverse_regions.reverse_getitem

    def reverse_getitem(node, sweep):
        original(node, sweep)
        last = sweep.stmts[-1] if sweep.stmts else None
        if isinstance(last, Scatter):
            last.expr = ast.BinOp(ast.Constant(2.0), ast.Mult(), last.expr)

    srcdiff.clear_cache()
    monkeypatch.setattr(reverse_regions, "reverse_getitem", reverse_getitem)
    yield
    monkeypatch.undo()
    srcdiff.clear_cache()


def test_wrong_getitem_adjoint_is_a_mismatch(doubled_getitem_adjoint):
    x = np.array([0.3, -0.7, 1.1])
    report = check(products_of_elements, x)
    assert report.status == MISMATCH and report.mismatches == ["x"], str(report)
    assert gradcheck(products_of_elements, x).mismatches == ["x"]


def test_right_accumulation_passes():
    args = (0.5, 1.5, -1.0)
    assert check(product_of_sums, *args, wrt=(0, 1, 2)).status == PROVED
    assert gradcheck(product_of_sums, *args, wrt=(0, 1, 2))


# ---- gradcheck ----

def test_gradcheck_report_per_input():
    report = gradcheck(polynomial, 0.7, 1.3, -0.4, wrt=(0, 1, 2))
    assert report and [i.name for i in report.inputs] == ["a", "b", "c"]
    a = report.inputs[0]
    assert a.worst_index is None and a.rel_error < 1e-8
    assert a.srcdiff == pytest.approx(2 * 0.7 * 1.3 - 1.3 * -0.4 / 0.7 ** 2 + math.exp(-0.4), rel=1e-12)
    assert "srcdiff.gradcheck polynomial: agrees with float64 central differences" in str(report)


# ---- every rule of the table with a sympy counterpart: its row of tests/rules/specs.py ----

V, W, A, B = (SAMPLES[n] for n in "VWAB")

#: The built-in rules that have a sympy counterpart (SciPy's: tests/transforms/test_scipy_rules.py).
SYMBOLIC_RULES = sorted(r.name for rules in SECTIONS.values() for r in rules
                        if symbolic_status.rule_status(r.name) == "symbolic")
#: The rows that carry a symbolic check (`spec_kinds.Sym`), one per rule.
SYMBOLIC_ROWS = [spec for spec in SPECS if isinstance(spec.sym, Sym)]
#: Attribute reads that have a counterpart but no rule (`sympy_counterparts.WITHOUT_RULES`).
ATTRIBUTE_SPECS = {
    "ndarray.shape": Sym("np.sum(x * np.full(x.shape, 2.0) * y)", "A, B"),
    "ndarray.ndim": Sym("np.sum(x * y) * x.ndim", "V, W"),
    "ndarray.size": Sym("np.sum(x * y) * x.size", "V, W"),
}


@pytest.fixture(scope="module")
def spec_functions(tmp_path_factory):
    """Each row's symbolic check as a function in a real module file (srcdiff reads source)."""
    checks = {spec.rule: spec.sym for spec in SYMBOLIC_ROWS} | ATTRIBUTE_SPECS
    names = {name: f"f{i}" for i, name in enumerate(checks)}
    helpers = "copy_array, index_add, index_read, real_part, select, select_whole, unbroadcast, zeros_like"
    lines = ["import math", "import numpy as np", f"from srcdiff.rules.runtime import {helpers}", ""]
    for name, sym in checks.items():
        lines += [f"def {names[name]}({sym.params}):  # {name}", f"    return {sym.body}", ""]
    module = import_source(tmp_path_factory.mktemp("specs"), "\n".join(lines), "rule_specs")
    return {name: getattr(module, fn) for name, fn in names.items()}


@pytest.mark.parametrize("name, sym", [(s.rule, s.sym) for s in SYMBOLIC_ROWS] + list(ATTRIBUTE_SPECS.items()),
                         ids=[s.rule for s in SYMBOLIC_ROWS] + list(ATTRIBUTE_SPECS))
def test_rule_agrees_with_sympy(name, sym, spec_functions):
    # a proof may take sympy longer than check's default time on a slow machine: wait for it
    report = check(spec_functions[name], *sym.args, wrt=(0, 1), timeout=60 if sym.verdict == EXACT else TIMEOUT)
    assert report.status in sym.verdict, str(report)


def test_the_rows_verdicts_are_checks_statuses():
    assert (spec_kinds.PROVED, spec_kinds.NUMERIC, spec_kinds.NOT_SYMBOLIC) == (PROVED, NUMERIC, NOT_SYMBOLIC)


def test_every_rule_is_symbolic_or_says_why_not():
    unknown = [r.name for r in TABLE if symbolic_status.rule_status(r.name) == "unknown"]
    assert not unknown, f"add these to sympy_counterparts.COUNTERPARTS or sympy_counterparts.NOT_SYMBOLIC: {unknown}"


def test_every_symbolic_rule_has_one_symbolic_row():
    rows = {}
    for spec in SPECS:
        if spec.sym is not None:
            rows.setdefault(spec.rule, []).append(spec.sym)
    missing = [n for n in SYMBOLIC_RULES if n not in rows]
    assert not missing, f"give one row of each in tests/rules/specs.py sym=Sym(...) (or NoSym(why)): {missing}"
    twice = sorted(n for n, found in rows.items() if len(found) > 1)
    assert not twice, f"rules with more than one symbolic row: {twice}"
    stale = sorted(n for n in rows if symbolic_status.rule_status(n) != "symbolic")
    assert not stale, f"symbolic rows of rules without a sympy counterpart: {stale}"
    assert all(len(sym.why) > 10 for found in rows.values() for sym in found if isinstance(sym, NoSym))


# ---- every structural primitive (srcdiff.structural) ----

#: Structural name -> (parameters, body lines, example arguments, accepted verdicts). wrt: x.
STRUCTURAL_SPECS = {
    "copy": ("x, y", ["z = x * y", "if len(x) > 2:", "    z = x", "return np.sum(z * y)"], (V, W), EXACT),
    "nograd": ("x, y", ["if len(x) > 2 and x.shape[0] == 3:", "    return np.sum(x * y) / x.size",
                        "return np.sum(x)"], (V, W), EXACT),
    "compare": ("x, y", ["n = len(x)", "z = np.where(n > 2, x * y, x)", "return np.sum(z * y)"], (V, W), EXACT),
    "getitem": ("x, y", ["return x[0] * y[1:] @ x[:2] + x[np.array([1, 1])] @ y[:2]"], (V, W), EXACT),
    "setitem": ("x, y", ["z = np.zeros(3)", "z[0] = x[1] * y[2]", "z[1:] = x[:2] * y[0]",
                         "return np.sum(z * x)"], (V, W), EXACT),
    "list": ("x, y", ["xs = [x[0] * y[0], x[1]]", "return xs[0] * xs[1]"], (V, W), EXACT),
    "list.append": ("x, y", ["xs = []", "for i in range(3):", "    xs.append(x[i] * y[i])",
                             "return xs[0] * xs[2]"], (V, W), EXACT),
    "sum(list)": ("x, y", ["xs = [x[0] * y[0], x[1] * x[2]]", "return sum(xs)"], (V, W), EXACT),
    "sum": ("x, y", ["return np.sum(sum(x * y) * x)"], (A, B), EXACT),
    "stack(list)": ("x, y", ["xs = []", "for i in range(3):", "    xs.append(x[i] * y)",
                             "return np.sum(np.stack(xs) * y)"], (V, W), EXACT),
    "float": ("x, y", ["return float(len(x)) * np.sum(x * y)"], (V, W), EXACT),
    "str": ("x, y", ["label = str(x[0])", "return np.sum(x * y) + 0.0 * len(label)"], (V, W), EXACT),
    "abs": ("x, y", ["return abs(x[0] - y[0]) * x[1]"], (V, W), EITHER),
    "max": ("x, y", ["return max(x[0], y[0]) * x[1]"], (V, W), {NUMERIC}),
    "min": ("x, y", ["return min(x[0], y[0]) * x[1]"], (V, W), {NUMERIC}),
    "user function": ("x, y", ["return helper_square(x[0]) * y[1] + np.sum(helper_square(x) * np.sin(y))"],
                      (V, W), EXACT),
}


def _structural_rules() -> list:
    """Every rule lowering makes itself: the module's rules, and one of each family."""
    found = [value for value in vars(structural).values() if isinstance(value, Rule)]
    return found + [structural.list_of(2), structural.setitem_rule(1)]


def _node(rule):
    if rule is structural.user_rule(square, ("a",)):
        return UserCall(0, rule, (), {}, None, None, 0, callee=square)
    return type("FakeNode", (), {"rule": rule})()


def test_every_structural_rule_is_symbolic_or_says_why_not():
    rules = _structural_rules() + [structural.user_rule(square, ("a",))]
    for rule in rules:
        name = symbolic_status.structural_name(_node(rule))
        assert name in symbolic_status.STRUCTURAL or name in symbolic_status.STRUCTURAL_NOT_SYMBOLIC, rule.name
    reasons = {**symbolic_status.STRUCTURAL, **symbolic_status.STRUCTURAL_NOT_SYMBOLIC}
    assert all(isinstance(why, str) and len(why) > 10 for why in reasons.values())
    assert not set(symbolic_status.STRUCTURAL) & set(symbolic_status.STRUCTURAL_NOT_SYMBOLIC)


def test_structural_names_are_recognised_by_identity():
    # a table rule or a user function that happens to be called "copy" is not the structural copy
    assert symbolic_status.structural_name(_node(Rule(None, "copy", (), {}))) is None
    assert symbolic_status.structural_name(_node(structural.COPY)) == "copy"


def test_every_symbolic_structural_rule_has_a_spec():
    assert sorted(STRUCTURAL_SPECS) == sorted(symbolic_status.STRUCTURAL)


@pytest.fixture(scope="module")
def structural_functions(tmp_path_factory):
    names = {name: f"s{i}" for i, name in enumerate(sorted(STRUCTURAL_SPECS))}
    lines = ["import numpy as np", "", "def helper_square(a):", "    return a * a", ""]
    for name, (params, body, _, _) in STRUCTURAL_SPECS.items():
        lines += [f"def {names[name]}({params}):  # {name}"] + [f"    {line}" for line in body] + [""]
    module = import_source(tmp_path_factory.mktemp("structural"), "\n".join(lines), "structural_specs")
    return {name: getattr(module, fn) for name, fn in names.items()}


@pytest.mark.parametrize("name", sorted(STRUCTURAL_SPECS))
def test_structural_rule_agrees_with_sympy(name, structural_functions):
    _, _, args, accepted = STRUCTURAL_SPECS[name]
    func = structural_functions[name]
    lowered = srcdiff.grad(func, wrt=(0, 1))
    lowered.source_for(*args)
    used = {symbolic_status.structural_name(n) for n in lowered_nodes(lowered.lowered.ir)}
    assert name in used, f"the spec for {name} does not use it: {sorted(filter(None, used))}"
    report = check(func, *args, wrt=(0, 1))
    assert report.status in accepted, str(report)


def test_counterparts_are_real_functions():
    for name, func in sympy_counterparts.COUNTERPARTS.items():
        assert callable(func), name
    assert sympy_counterparts.COUNTERPARTS["operator.mul"] is operator.mul


def test_counterparts_compute_what_the_rules_compute():
    # each one-argument counterpart, at a number, gives what the primitive gives
    rules = {rule.name: rule for rule in TABLE}
    compared = 0
    for name, func in sympy_counterparts.COUNTERPARTS.items():
        rule = rules.get(name)
        if rule is None or rule.func is None:
            continue
        for point in (0.37, 1.62):  # arccosh needs x > 1
            try:
                with np.errstate(all="ignore"):
                    want = rule.func(point)
                got = func(sp.Float(point, 30))
            except Exception:  # noqa: BLE001 not a one-argument function of a number
                continue
            if not isinstance(want, (float, np.floating)) or not np.isfinite(want) or not getattr(got, "is_number", 0):
                continue
            assert float(got) == pytest.approx(float(want), rel=1e-12, abs=1e-14), (name, point)
            compared += 1
    assert compared >= 80, compared  # the elementwise functions and reductions of one number


def test_tools_are_listed_and_load_on_first_use():
    code = ("import sys, srcdiff\n"
            "assert {'check', 'gradcheck', 'graph', 'trace', 'explain'} <= set(dir(srcdiff)) & set(srcdiff.__all__)\n"
            "from srcdiff import gradcheck, graph, trace\n"
            "print('sympy' in sys.modules)\n"
            "from srcdiff import check\n"
            "print('sympy' in sys.modules, check is srcdiff.check)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]  # only the sympy check needs sympy
