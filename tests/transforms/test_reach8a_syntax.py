"""Python spellings grad used to refuse (reach8a_programs.py): every transformation agrees
with central differences, numba agrees or refuses at the user's line, float32 stays float32,
and the spellings srcdiff still does not cover are refused at their line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .reach8a_programs import (
    PROGRAMS,
    config_default_loss,
    range_rows_cross_entropy,
    reduce_in_conditional,
    reduce_lambda_product,
    star_rest_concatenated,
    star_too_short,
    zip_strict_in_comprehension,
    zip_strict_mismatch,
)

#: Cells refused for a reason older than these spellings (the same with np.array written out).
REFUSED_BEFORE = {
    ("padded_hstack", "hessian"): "np.array of a list of computed numbers, differentiated twice",
    ("padded_hstack_c", "hessian"): "np.array of a list of computed numbers, differentiated twice",
}


def programs():
    return corpus.from_table(PROGRAMS, "reach8a", "reach8a_programs", 11)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    row = matrix.run(program, matrix.EVERY)
    assert not row.excluded
    bad = matrix.not_ok(row)
    for (name, transform), _why in REFUSED_BEFORE.items():
        if name == _name(program) and transform in bad:
            cell = row.cells[transform]
            assert cell.outcome == matrix.REFUSED and cell.located, cell.message
            del bad[transform]
    assert not bad


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


def test_a_range_index_is_an_arange_in_the_generated_code():
    W, X, labels = np.ones((3, 4)) * 0.1, np.ones((5, 3)), np.array([0, 1, 2, 3, 0])
    source = srcdiff.grad(range_rows_cross_entropy).source_for(W, X, labels)
    code = "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))
    assert "np.arange(len(labels))" in code and "range(" not in code.replace("np.arange(", "")


def test_a_reduction_is_a_loop_of_the_users_operation():
    source = srcdiff.grad(reduce_lambda_product).source_for(np.array([0.1, 0.2, 0.3]))
    assert "reduced = t1[0]" in source and "for k in range(1, " in source  # the first item, then the others


@pytest.mark.parametrize("func, args, words", [
    (reduce_in_conditional, (np.array([0.5, 2.0]),), "reduce"),
    (star_rest_concatenated, (np.array([0.5, 2.0, 3.0]),), "starred assignment"),
    (zip_strict_in_comprehension, (np.ones(3), np.ones(3)), "zip"),
])
def test_what_is_not_covered_is_refused_at_its_line(func, args, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(func)(*args)
    assert "reach8a_programs.py" in str(info.value)


def test_zip_strict_raises_as_python_does():
    with pytest.raises(ValueError, match=r"zip\(\) argument"):
        zip_strict_mismatch(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"zip\(\) argument"):
        srcdiff.grad(zip_strict_mismatch)(np.ones(3), np.ones(4))
    np.testing.assert_allclose(srcdiff.grad(zip_strict_mismatch)(np.ones(3), np.arange(3.0)), np.arange(3.0))


def test_starred_unpacking_too_short_raises_as_python_does():
    with pytest.raises(ValueError, match="not enough values"):
        star_too_short(np.ones(1))
    with pytest.raises(ValueError, match="not enough values"):
        srcdiff.grad(star_too_short)(np.ones(1))
    np.testing.assert_allclose(srcdiff.grad(star_too_short)(np.array([2.0, 5.0, 3.0])), [3.0, 0.0, 2.0])


def test_a_helpers_default_object_is_read_as_constants_through_a_tree():
    w, X, y = np.array([0.3, -0.2, 0.1]), np.linspace(-1.0, 1.0, 18).reshape(6, 3), np.linspace(0.0, 1.0, 6)

    def through_dict(params, X, y):
        return config_default_loss(params["w"], X, y)

    direct = srcdiff.grad(config_default_loss)(w, X, y)
    got = srcdiff.grad(through_dict)({"w": w}, X, y)["w"]
    np.testing.assert_allclose(got, direct)
    r = X @ w - y  # by hand: the Huber loss (|r| < delta = 1 here) and the l2 term of the default Penalty()
    assert np.all(np.abs(r) < 1.0)
    np.testing.assert_allclose(direct, X.T @ r / len(r) + 2 * 0.01 * w)
