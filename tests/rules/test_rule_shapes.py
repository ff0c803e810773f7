"""Each rule's shape function agrees with the shape NumPy's own call gives.

A shape function says, before the gradient runs, what the generated code may rely on:
how many axes a value has and which have length one.  A wrong fact sums an adjoint over the
wrong axes; a lost one only makes the code fall back to run-time helpers.  Shape inference
turns a shape function that raises into "unknown", so a broken one is silent: these tests
call each one directly, on the shapes of real arguments, and compare with NumPy's result.
"""

import numpy as np
import pytest

from srcdiff.ir import shapes
from srcdiff.rules import default_table, structural

TABLE = {r.func: r for r in default_table()}

V2, V3 = np.arange(1.0, 3.0), np.arange(1.0, 4.0)
M23, M34 = np.ones((2, 3)), np.ones((3, 4))
ROW, COL = np.ones((1, 3)), np.ones((3, 1))
A234, A345, A134 = np.ones((2, 3, 4)), np.ones((3, 4, 5)), np.ones((1, 3, 4))

#: (function, operands, static arguments, exact): with `exact` the rule must know every
#: axis (ONE or MANY as NumPy's result has them); otherwise what it knows must hold.
CASES = [
    (np.dot, (2.0, V3), {}, True),
    (np.dot, (V3, 2.0), {}, True),
    (np.dot, (V3, V3), {}, True),
    (np.dot, (M23, V3), {}, True),
    (np.dot, (V2, M23), {}, True),
    (np.dot, (M23, M34), {}, True),
    (np.dot, (ROW, COL), {}, True),
    (np.dot, (COL, ROW), {}, True),
    (np.dot, (A234, M34.T), {}, False),
    (np.dot, (A234, A345), {}, False),  # not matmul: the result has four axes
    (np.outer, (V3, V2), {}, True),
    (np.outer, (np.ones(1), V2), {}, True),
    (np.outer, (M23, V2), {}, False),  # NumPy flattens: (6, 2)
    (np.reshape, (M23,), {"shape": (3, 2)}, True),
    (np.reshape, (M23,), {"shape": (6,)}, True),
    (np.reshape, (M23,), {"shape": (1, 6)}, True),
    (np.reshape, (M23,), {"shape": (-1, 1)}, False),
    (np.swapaxes, (A134,), {"axis1": 0, "axis2": 2}, True),
    (np.swapaxes, (A134,), {"axis1": -1, "axis2": 0}, True),
    (np.swapaxes, (A134,), {"axis1": 1, "axis2": 1}, True),
    (np.transpose, (A134,), {"axes": None}, True),
    (np.transpose, (A134,), {"axes": (1, 0, 2)}, True),
    (np.transpose, (A134,), {"axes": (0, 2, 1)}, True),
    (np.flip, (A134,), {"axis": 0}, True),
    (np.cumsum, (A134,), {"axis": 0}, True),
    (np.cumsum, (A134,), {"axis": None}, False),
    (np.cumsum, (M23,), {"axis": 1}, True),
    (np.linalg.inv, (np.eye(3),), {}, True),
]


def _consistent(predicted: shapes.Shape, value) -> bool:
    """What `predicted` knows holds for `value`: its ndim, and each axis of length one or not."""
    if not predicted.known:
        return True
    if predicted.scalar and isinstance(value, np.ndarray):
        return False
    actual = np.shape(value)
    if len(predicted.dims) != len(actual):
        return False
    return all(d == shapes.UNKNOWN_DIM or (d == shapes.ONE) == (n == 1) and d in (shapes.ONE, shapes.MANY)
               for d, n in zip(predicted.dims, actual))


def _exact(value) -> tuple:
    return tuple(shapes.ONE if n == 1 else shapes.MANY for n in np.shape(value))


@pytest.mark.parametrize("func, operands, static, exact", CASES,
                         ids=[f"{f.__name__}-{i}" for i, (f, *_) in enumerate(CASES)])
def test_a_rule_shape_holds_for_numpy_result(func, operands, static, exact):
    rule = TABLE[func]
    value = func(*operands, **static)
    predicted = rule.result_shape({**rule.static, **static}, [shapes.of_constant(o) for o in operands])
    assert _consistent(predicted, value), (predicted, np.shape(value))
    if exact:
        assert predicted.known and predicted.dims == _exact(value), (predicted, np.shape(value))


def test_reshape_to_a_shape_known_only_when_run_has_an_unknown_shape():
    rule = TABLE[np.reshape]
    assert rule.result_shape({"shape": None}, [shapes.of_constant(M23)]) == shapes.UNKNOWN


#: Subscripts as lowering describes them: (kind, operands it reads) per component.
SUBSCRIPTS = [
    ("x[0]", lambda x: x[0], [("int", 0)]),
    ("x[1:]", lambda x: x[1:], [("slice", 0)]),
    ("x[:, 1:]", lambda x: x[:, 1:], [("slice", 0), ("slice", 0)]),
    ("x[0, 1:]", lambda x: x[0, 1:], [("int", 0), ("slice", 0)]),
    ("x[1:, 0]", lambda x: x[1:, 0], [("slice", 0), ("int", 0)]),
    ("x[None]", lambda x: x[None], [("newaxis", 0)]),
    ("x[:, None]", lambda x: x[:, None], [("slice", 0), ("newaxis", 0)]),
    ("x[0, None, 1:]", lambda x: x[0, None, 1:], [("int", 0), ("newaxis", 0), ("slice", 0)]),
    ("x[0, 0, 0]", lambda x: x[0, 0, 0], [("int", 0), ("int", 0), ("int", 0)]),
]


@pytest.mark.parametrize("text, index, kinds", SUBSCRIPTS, ids=[s[0] for s in SUBSCRIPTS])
def test_a_basic_subscript_shape_holds_for_numpy_result(text, index, kinds):
    x = np.ones((2, 1, 4))
    value = index(x)
    predicted = structural.GETITEM.result_shape({"index": kinds}, [shapes.of_constant(x)])
    assert predicted.known, text  # every component is basic: the ndim is known
    assert _consistent(predicted, value), (text, predicted, np.shape(value))
    # a slice's length is left unknown, every other axis is exact
    assert [d for d in predicted.dims if d != shapes.UNKNOWN_DIM] == \
        [d for d, k in zip(_exact(value), _axis_kinds(kinds, x.ndim)) if k != "slice"], text


def _axis_kinds(kinds, ndim):
    """The kind of component each axis of the result comes from (``"rest"`` past the index)."""
    out = [k for k, _ in kinds if k != "int"]
    return out + ["rest"] * (ndim - sum(k in ("int", "slice") for k, _ in kinds))


#: Joins and padding, whose operands are one list (or the array and its static widths).
JOINS = [
    (np.concatenate, (V3, V2), {"axis": 0}),
    (np.concatenate, (np.ones(1), np.ones(1)), {"axis": 0}),  # two of length one: longer than one
    (np.concatenate, (np.ones(1), np.ones(0)), {"axis": 0}),  # may be one long
    (np.concatenate, (ROW, M23), {"axis": 0}),
    (np.concatenate, (COL, np.ones((3, 2))), {"axis": 1}),
    (np.concatenate, (COL, COL), {"axis": -1}),
    (np.hstack, (V3, 2.0, V2), {}),
    (np.hstack, (np.float64(1.0), 2.0), {}),
    (np.hstack, (np.ones(0), 2.0), {}),
    (np.hstack, (COL, np.ones((3, 2))), {}),
    (np.hstack, (V3,), {}),
]


@pytest.mark.parametrize("func, operands, static", JOINS, ids=[f"{f.__name__}-{i}" for i, (f, *_) in enumerate(JOINS)])
def test_a_join_shape_holds_for_numpy_result(func, operands, static):
    value = func(list(operands), **static)
    predicted = TABLE[func].result_shape({**TABLE[func].static, **static}, [shapes.of_constant(o) for o in operands])
    assert predicted.known and _consistent(predicted, value), (predicted, np.shape(value))


PADS = [(V3, 1), (np.ones(1), 1), (np.ones(0), 1), (np.ones(0), 2), (M23, ((1, 1), (0, 0))), (ROW, (0, 1)),
        (np.ones((1, 1)), 0)]


@pytest.mark.parametrize("x, width", PADS)
def test_a_pad_shape_holds_for_numpy_result(x, width):
    rule = TABLE[np.pad]
    predicted = rule.result_shape({**rule.static, "pad_width": width}, [shapes.of_constant(x)])
    assert predicted.known and _consistent(predicted, np.pad(x, width)), (predicted, np.pad(x, width).shape)


def test_two_shapes_of_one_ndim_join_to_that_ndim():
    # a loop-carried vector whose length each iteration may change is still a vector
    joined = shapes.join(shapes.Shape((shapes.MANY, shapes.ONE)), shapes.Shape((shapes.UNKNOWN_DIM, shapes.ONE)))
    assert joined == shapes.Shape((shapes.UNKNOWN_DIM, shapes.ONE))
    assert shapes.join(shapes.Shape((shapes.MANY,)), shapes.Shape((shapes.MANY, shapes.MANY))) == shapes.UNKNOWN
    assert shapes.join(shapes.SCALAR, shapes.Shape((shapes.MANY,))) == shapes.UNKNOWN
