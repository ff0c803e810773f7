"""Checks of the held-out variants (variants.py; fast, small instances): every hand-written
gradient agrees with float64 central differences, and srcdiff's gradient and value_and_grad
agree with the hand-written one."""

import numpy as np
import pytest
import variants
import variants_programs as vp

import srcdiff

NAMES = [v.name for v in variants.VARIANTS]


def _variant(name):
    return next(v for v in variants.VARIANTS if v.name == name)


@pytest.mark.parametrize("name", NAMES)
def test_hand_gradient_matches_central_differences(name):
    v = _variant(name)
    args = v.args(small=True)
    f, hand = getattr(vp, v.func), getattr(vp, v.func + "_grad")
    fd = variants.central_differences(f, args, v.wrt)
    assert variants.rel_err(hand(*args), fd) < 1e-6


@pytest.mark.parametrize("name", NAMES)
def test_srcdiff_matches_hand(name):
    v = _variant(name)
    args = v.args(small=True)
    f, hand = getattr(vp, v.func), getattr(vp, v.func + "_grad")
    wrt = variants.single(v.wrt)
    want = hand(*args)
    assert variants.rel_err(srcdiff.grad(f, wrt=wrt)(*args), want) < 1e-12
    value, got = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    assert np.isclose(value, f(*args), rtol=1e-13)
    assert variants.rel_err(got, want) < 1e-12


@pytest.mark.parametrize("name", [n for n in NAMES if hasattr(vp, _variant(n).func + "_value_and_grad")])
def test_hand_value_and_gradient_matches(name):
    v = _variant(name)
    args = v.args(small=True)
    f, hand = getattr(vp, v.func), getattr(vp, v.func + "_grad")
    value, grad = getattr(vp, v.func + "_value_and_grad")(*args)
    assert np.isclose(value, f(*args), rtol=1e-13)
    assert variants.rel_err(grad, hand(*args)) < 1e-12


def test_no_program_name_is_imported_twice():
    """variants_programs.py gathers the programs by name from many modules: a name two modules define
    (wave 36's first draft had its own ``tukey_where``) would silently time the later one under both rows."""
    import ast
    from pathlib import Path
    tree = ast.parse(Path(vp.__file__).read_text())
    names = [a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names]
    names += [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert not {n for n in names if names.count(n) > 1}
