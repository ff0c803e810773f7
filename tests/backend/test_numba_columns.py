"""numba/columns.py: the loop over a Hessian's (or forward Jacobian's) columns.  A full group
of directions writes its products row by row (each row's memory touched once per group, not
once per column); the last, short group writes them one column at a time.  The loop's text
is run here as plain Python with a linear sweep whose products are known, for every kind of
leaf and output and group widths that do and do not divide the number of directions; then
one compiled Hessian against central differences of its gradient."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.backend.numba.columns import loop_text


def _run_loop(width: int, leaves: list, parts: list, several: bool, seed: int):
    """(the loop's outputs, the expected ones): `leaves` the differentiated parameters (arrays
    or floats), `parts` the shapes of the sweep's product parts (() for a number); the sweep
    multiplies the stacked directions by one fixed matrix per part."""
    rng = np.random.default_rng(seed)
    total = sum(np.size(leaf) for leaf in leaves)
    maps = [rng.normal(size=(int(np.prod(shape)), total)) for shape in parts]

    def sweep(*values):
        tangents = values[len(leaves):]
        products = []
        for j in range(width):
            direction = np.concatenate([np.ravel(t) for t in tangents[j * len(leaves):(j + 1) * len(leaves)]])
            made = [(m @ direction).reshape(shape) if shape else float((m @ direction)[0])
                    for m, shape in zip(maps, parts)]
            products.append(tuple(made) if several else made[0])
        return None, tuple(products) if width > 1 else products[0]

    kinds = tuple((p, bool(np.ndim(leaf))) for p, leaf in enumerate(leaves))
    text = loop_text("columns", "sweep", [], len(leaves), kinds, tuple(bool(s) for s in parts), several, width)
    space = {"np": np, "sweep": sweep}
    exec(compile(text, "<columns>", "exec"), space)
    got = space["columns"](*leaves, *[int(np.prod(s)) for s in parts])
    return text, got, maps


@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("case", ["array", "array+float", "several parts"])
def test_every_column_is_the_product_along_its_direction(width, case):
    leaves = {"array": [np.zeros((2, 3))], "array+float": [np.zeros(5), 0.0],
              "several parts": [np.zeros(3), 0.0, np.zeros((2, 2))]}[case]
    parts = [(7,)] if case != "several parts" else [(4, 2), (), (3,)]
    text, got, maps = _run_loop(width, leaves, parts, case == "several parts", seed=width)
    assert len(got) == len(maps)
    for out, m in zip(got, maps):
        np.testing.assert_array_equal(out, m)  # copies of the products, bit for bit
    assert ("for e in range(" in text) == (width > 1 and any(parts))


def test_a_full_group_is_written_row_by_row():
    text = loop_text("f_columns", "f", [], 1, ((0, True),), (True,), False, 2)
    assert text.splitlines()[13:29] == [
        "        r = f(p0, d0_0, d1_0)[1]",
        "        if c0 + 2 <= s1:",
        "            f0_0 = np.ascontiguousarray(r[0]).reshape(-1)",
        "            f1_0 = np.ascontiguousarray(r[1]).reshape(-1)",
        "            if f0_0.size != o0.shape[0] or f1_0.size != o0.shape[0]:",
        "                raise ValueError('a product has not the size of its column')",
        "            for e in range(o0.shape[0]):",
        "                o0[e, c0 + 0] = f0_0[e]",
        "                o0[e, c0 + 1] = f1_0[e]",
        "            if s0 <= c0 + 0 < s1:",
        "                g0_0[c0 + 0 - s0] = 0.0",
        "            if s0 <= c0 + 1 < s1:",
        "                g1_0[c0 + 1 - s0] = 0.0",
        "        else:",
        "            if c0 + 0 < s1:",
        "                o0[:, c0 + 0] = np.ascontiguousarray(r[0]).reshape(-1)",
    ]


def test_a_product_of_another_size_is_refused_not_read_past():
    def sweep(p0, d0, d1):
        return None, (np.ones(3), np.ones(2))

    text = loop_text("columns", "sweep", [], 1, ((0, True),), (True,), False, 2)
    space = {"np": np, "sweep": sweep}
    exec(compile(text, "<columns>", "exec"), space)
    with pytest.raises(ValueError, match="size of its column"):
        space["columns"](np.zeros(2), 3)


def chain(x, a):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2) + a * np.sum(np.sin(x))


def _block(g, args, i, j):
    """d gradient part i / d args[j] by central differences, shaped part_i.shape + arg_j.shape."""
    size = np.size(g(*args)[i])
    rows = [central_difference(lambda *a, k=k: np.ravel(g(*a)[i])[k], args, j) for k in range(size)]
    return np.reshape(rows, np.shape(g(*args)[i]) + np.shape(args[j]))


@pytest.mark.slow  # a compiled Hessian of a large sweep: seconds of numba compiling
def test_compiled_hessian_with_a_short_last_group_agrees_with_differences():
    pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    args = (rng.normal(size=6), 0.7)  # 7 directions: a group of 4, then one of 3
    H = srcdiff.hessian(chain, wrt=(0, 1), jit="numba")
    got = H(*args)
    assert "for e in range(" in H.source
    g, plain = srcdiff.grad(chain, wrt=(0, 1)), srcdiff.hessian(chain, wrt=(0, 1))(*args)
    for i in range(2):
        for j in range(2):
            assert_close(np.asarray(got[i][j]), _block(g, args, i, j), rtol=1e-5, atol=1e-6)
            assert_close(np.asarray(got[i][j]), np.asarray(plain[i][j]), rtol=1e-12, atol=1e-12)
