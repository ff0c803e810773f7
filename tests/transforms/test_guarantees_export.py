"""Never a silent wrong answer (#24, item 5): an exported module checks what it was built on.

`srcdiff.export` builds the example's static arguments (an axis, a flag, None for an optional
array) and the globals the code reads (``ACT = np.tanh``) into the module.  Called with other
values, the module raises instead of returning another function's gradient; with the same
values its gradient matches float64 central differences."""

import importlib
import sys

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

MODEL = '''
import numpy as np
ACT = np.tanh
SCALE = 2.0

def f(x, axis, flag, b=None):
    y = ACT(x) * SCALE
    if flag:
        y = y * 2.0
    if b is not None:
        y = y + b
    return np.sum(np.sum(y, axis=axis) ** 2)
'''


@pytest.fixture
def exported(tmp_path, monkeypatch):
    (tmp_path / "gmodel.py").write_text(MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("gmodel", "gmodel_grad"):
        sys.modules.pop(name, None)
    model = importlib.import_module("gmodel")
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    srcdiff.export(model.f, x, 0, True, None, path=tmp_path / "gmodel_grad.py")
    yield tmp_path, model, x
    for name in ("gmodel", "gmodel_grad"):
        sys.modules.pop(name, None)


def test_same_static_values_give_the_gradient(exported):
    _, model, x = exported
    grad = importlib.import_module("gmodel_grad").f_grad(x, 0, True, None)
    assert_close(grad, central_difference(lambda x: model.f(x, 0, True, None), (x,), 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(1, True, None), (0, False, None), (0, True, np.ones(3)), (None, True, None),
                                  (0, 1, None)], ids=["axis", "flag", "array-for-None", "axis-None", "int-for-bool"])
def test_other_static_values_raise(exported, args):
    _, _, x = exported
    module = importlib.import_module("gmodel_grad")
    with pytest.raises(ValueError, match="the module was generated for"):
        module.f_grad(x, *args)


@pytest.mark.parametrize("line, new", [("ACT = np.tanh", "ACT = np.sin")])
def test_a_changed_global_raises(exported, line, new):
    path, _, x = exported
    (path / "gmodel.py").write_text(MODEL.replace(line, new))
    sys.modules.pop("gmodel", None)
    module = importlib.import_module("gmodel_grad")
    with pytest.raises(ValueError, match=f"{new.split()[0]} is"):
        module.f_grad(x, 0, True, None)


def test_globals_rebound_at_run_time_are_read_or_refused(exported):
    """``from gmodel import SCALE`` would keep the value of import time: after ``gmodel.SCALE = 5.0``
    the function uses 5.0, so must its gradient; ``gmodel.ACT = np.sin`` (built in) raises."""
    _, model, x = exported
    module = importlib.import_module("gmodel_grad")
    try:
        model.SCALE = 5.0
        got = module.f_grad(x, 0, True, None)
        assert_close(got, central_difference(lambda x: model.f(x, 0, True, None), (x,), 0), rtol=1e-6, atol=1e-6)
        model.ACT = np.sin
        with pytest.raises(ValueError, match="ACT is"):
            module.f_grad(x, 0, True, None)
    finally:
        model.SCALE, model.ACT = 2.0, np.tanh
