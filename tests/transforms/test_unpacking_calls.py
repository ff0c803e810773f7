"""Nested tuple unpacking of a call's result (``v, (gw, gb) = vgt(w, b, x)``) and ``*`` arguments of a tuple
written in the function (``dl(*args)``, ``helper(*args)``): every transformation agrees with central
differences; a ``*`` argument of a length the function does not fix is refused at its line."""

import numpy as np
import pytest
from modules import import_source

import srcdiff

from . import corpus, matrix
from . import unpacking_call_programs as programs

#: the rows the default run keeps (the slow set runs every row)
DEFAULT = ("nested_value_and_grads", "star_of_a_gradient", "star_read_after_a_rebinding")


def table():
    return corpus.from_table(programs.PROGRAMS, "unpacking_calls", "unpacking_call_programs", 5)


def rows():
    return [p if p.name.endswith(DEFAULT) else pytest.param(p, marks=pytest.mark.slow) for p in table()]


@pytest.mark.parametrize("program", rows(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation_of_an_unpacking_or_a_star_call(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize(
    "program",
    [p for p in table() if p.name.endswith(("nested_value_and_grads", "star_of_a_gradient"))],
    ids=lambda p: p.name.partition(":")[2],
)
def test_numba_agrees_on_an_unpacking_or_a_star_call(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


REFUSED = """
import numpy as np

def _pair(a, b):
    return np.sum(a * b)

def star_of_a_parameter(w, rest):
    return _pair(w, *rest)

def star_of_a_loop_list(w):
    parts = []
    for k in range(2):
        parts.append(w * k)
    return _pair(*parts)
"""


@pytest.mark.parametrize("name", ["star_of_a_parameter", "star_of_a_loop_list"])
def test_a_star_argument_of_a_length_not_fixed_is_refused_at_its_line(tmp_path, name):
    f = getattr(import_source(tmp_path, REFUSED, "stars_refused"), name)
    args = (np.array([0.5, 1.5]), (np.array([0.2, 0.3]),)) if name == "star_of_a_parameter" else (np.ones(2),)
    try:
        got = srcdiff.grad(f)(*args)
    except srcdiff.SrcDiffError as err:
        assert err.location is not None and err.location.filename.endswith("stars_refused.py"), str(err)
        return
    eps, w = 1e-6, args[0]
    want = [(f(w + eps * e, *args[1:]) - f(w - eps * e, *args[1:])) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)  # accepted: then right
