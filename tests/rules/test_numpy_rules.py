"""Every rule in the table, checked against float64 central differences on random inputs.

The rows are tests/rules/specs.py's `SPECS` (``Spec(rule name, expression, **inputs)``): each is
written as ``def case_<i>(<inputs>, w): return np.sum((<expression>) * w)`` into a module
(srcdiff reads source from files), with `w` a random weight shaped like the expression's value
(computed by NumPy itself), and srcdiff's gradient with respect to every input is compared
with central differences.  An input is ``name: (shape, domain)``; shape None means a Python float.
"""

import numpy as np
import pytest
from numeric import assert_close

import srcdiff
from rules.specs import SPECS, draw_inputs, spec_module
from srcdiff.api.gradients import GradFunction
from srcdiff.rules import default_table


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    """The specs written as functions in a module file (srcdiff reads their source)."""
    return spec_module(tmp_path_factory.mktemp("specs"))


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.rule}:{s.expr}" for s in SPECS])
def test_rule_against_central_differences(cases, index, check_gradient):
    spec = SPECS[index]
    f = getattr(cases, f"case_{index}")
    args, weight = draw_inputs(spec, index)
    check_gradient(f, (*args, weight), tuple(range(len(args))), rtol=spec.tol, atol=spec.tol)


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.rule}:{s.expr}" for s in SPECS])
def test_spec_exercises_its_rule(cases, index):
    spec = SPECS[index]
    ir = GradFunction(getattr(cases, f"case_{index}")).lowered.ir
    assert spec.rule in {node.rule.name for node in ir.body.nodes}


def test_every_rule_has_a_spec():
    specified = {spec.rule for spec in SPECS}
    table = default_table()
    table.load_lazy()  # SciPy's rules too
    missing = sorted(r.name for r in table if r.name not in specified)
    assert not missing, f"rules without a row in tests/rules/specs.py: {missing}"


def arange_from_a_value(x):
    return np.sum(np.arange(x, x + 3.0))


def linspace_to_a_value(x):  # array endpoints (number endpoints have a rule)
    return np.sum(np.linspace(np.zeros(2), x * np.ones(2), 5))


@pytest.mark.parametrize("func, hint", [(arange_from_a_value, r"start \+ step \* np.arange\(n\)"),
                                        (linspace_to_a_value, r"np.linspace\(0.0, 1.0, n\)")])
def test_constructors_from_differentiated_values_are_refused(func, hint):
    # their values depend on start/stop, but they have no gradient rule: never a silent zero
    with pytest.raises(srcdiff.SrcDiffError, match=hint) as info:
        srcdiff.grad(func)(0.5)
    assert info.value.location.filename.endswith("test_numpy_rules.py")


def test_full_like_of_an_integer_array_truncates_so_has_no_gradient():
    def f(x):
        return np.sum(np.full_like(np.arange(3), x) * x)
    assert srcdiff.grad(f)(0.7) == 0.0  # np.full_like(int array, 0.7) is all zeros


# ---- conventions at non-differentiable points (documented in each rule's note) ----

def abs_sum(x):
    return np.sum(np.abs(x))


def maximum_sum(x, y):
    return np.sum(np.maximum(x, y))


def minimum_sum(x, y):
    return np.sum(np.minimum(x, y))


def max_all(x):
    return np.max(x)


ROW_WEIGHTS = np.array([1.0, 2.0])


def max_rows(x):
    return np.sum(x.max(axis=1) * ROW_WEIGHTS)


def clip_sum(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def sign_product(x):
    return np.sum(np.sign(x) * 3.0)


def test_abs_at_zero_has_gradient_zero():
    assert_close(srcdiff.grad(abs_sum)(np.array([0.0, -2.0, 3.0])), np.array([0.0, -1.0, 1.0]))


@pytest.mark.parametrize("func", [maximum_sum, minimum_sum])
def test_elementwise_ties_share_the_gradient_equally(func):
    # was: ties went to the second argument (dx[0] == 0, dy[0] == 1); now half each, as JAX does
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    dx, dy = srcdiff.grad(func, wrt=(0, 1))(x, y)
    assert dx[0] == 0.5 and dy[0] == 0.5
    assert_close(dx + dy, np.ones(3))


def test_reduction_ties_share_the_gradient_equally():
    assert_close(srcdiff.grad(max_all)(np.array([3.0, 1.0, 3.0, 3.0])), np.array([1, 0, 1, 1]) / 3.0)
    x = np.array([[2.0, 2.0, 0.0], [1.0, 5.0, 5.0]])
    assert_close(srcdiff.grad(max_rows)(x), np.array([[0.5, 0.5, 0.0], [0.0, 1.0, 1.0]]))
    x = np.array([[2.0, 2.0, 2.0], [1.0, 5.0, 0.0]])  # three-way: 1/3 each (central differences say 1/2)
    assert_close(srcdiff.grad(max_rows)(x), np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, 2.0, 0.0]]))


def test_clip_at_a_bound_shares_the_gradient_with_the_bound():
    # clip is minimum(maximum(x, a_min), a_max): x on a bound gets half (was: all of it)
    assert_close(srcdiff.grad(clip_sum)(np.array([-1.0, 1.0, 2.0, -3.0, 0.5])), np.array([0.5, 0.5, 0.0, 0.0, 1.0]))


def test_sign_carries_no_gradient_even_at_zero():
    assert_close(srcdiff.grad(sign_product)(np.array([0.0, -1.0, 2.0])), np.zeros(3))


# ---- the generated table of supported functions ----

def test_docs_table_matches_the_rule_table():
    from pathlib import Path

    from srcdiff.tools.docs_table import generate

    committed = Path(__file__).resolve().parents[2] / "docs" / "supported-numpy.md"
    assert committed.read_text() == generate(), \
        "regenerate: python -m srcdiff.tools.docs_table > docs/supported-numpy.md"


def test_docs_table_lists_every_rule():
    from srcdiff.tools.docs_table import generate

    text = generate()
    assert all(f"| `{r.name}` |" in text for r in default_table())


def fill_with_dtype(x):
    return np.sum(np.full(3, x, dtype=float) * x) + np.sum(np.full(2, 2.0, dtype=np.float64) * x)


def test_fill_with_a_floating_dtype(check_gradient):
    check_gradient(fill_with_dtype, (0.7,))
