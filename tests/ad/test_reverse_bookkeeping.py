"""The reverse pass's bookkeeping, where a slip gives a wrong gradient only on some programs:
which adjoint arrays a branch leaves private (so a scatter may add into them in place),
loops that swap their carried values, subscripts the backward loop recomputes, loops that
carry nothing active.  Each program is one a mutation of that bookkeeping got wrong while
every earlier test passed; all are checked against central differences.
"""

import numpy as np
import pytest

import srcdiff


def _shared_on_one_side(x, z, flag):
    t = x[0] ** 2  # its adjoint is scattered into x's last
    w = np.ones(3)
    if flag:  # only this side gives x's adjoint an array of its own
        w = np.sin(x)
    u = x + z  # x's and z's adjoints start as u's, one shared array
    return np.sum(u * u) + np.sum(w) + t


def _shared_on_the_other_side(x, z, flag):
    t = x[0] ** 2
    w = np.ones(3)
    if flag:
        pass
    else:
        w = np.sin(x)
    u = x + z
    return np.sum(u * u) + np.sum(w) + t


@pytest.mark.parametrize("f", [_shared_on_one_side, _shared_on_the_other_side])
def test_an_adjoint_shared_on_one_side_of_a_branch_is_copied_before_a_scatter(check_gradient, rng, f):
    x, z = rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 3)
    for flag in (True, False):  # one compiled gradient runs both sides
        gx, gz = check_gradient(f, (x, z, flag), wrt=(0, 1))
        sine = flag == (f is _shared_on_one_side)  # w = sin(x), not ones
        u = x + z
        want_x = 2 * u + (np.cos(x) if sine else 0.0)
        want_x[0] += 2 * x[0]
        np.testing.assert_allclose(gx, want_x, rtol=1e-12)
        np.testing.assert_allclose(gz, 2 * u, rtol=1e-12)


def _swapped(x, n):
    a, b = x, 2.0 * x
    for _ in range(n):
        a, b = b, a  # nothing but a swap: both final values are the other's carried value
    return a * a * 3.0 + b


def test_a_loop_that_only_swaps_its_values_swaps_them_forward_too(check_gradient):
    for n in range(4):  # one compiled gradient, run for each count
        (g,) = check_gradient(_swapped, (1.5, n), wrt=0)
        # after an odd number of swaps a = 2x, b = x: f = 12 x^2 + x; after an even one 3x^2 + 2x
        assert g == pytest.approx(24 * 1.5 + 1 if n % 2 else 6 * 1.5 + 2, rel=1e-12)


def _inner_subscript(x, n):
    s = 0.0
    for i in range(n):
        v = x * (i + 1.0)  # an array made inside the loop ...
        s = s + np.sin(v[0]) * v[1]  # ... read by subscripts the backward loop needs
    return s


def test_a_subscript_of_an_array_made_in_the_loop_reads_that_iteration(check_gradient, rng):
    x = rng.uniform(0.2, 0.9, 3)
    (g,) = check_gradient(_inner_subscript, (x, 4), wrt=0)
    k = np.arange(1.0, 5.0)
    want = np.zeros(3)
    want[0] = np.sum(k * np.cos(k * x[0]) * k * x[1])
    want[1] = np.sum(np.sin(k * x[0]) * k)
    np.testing.assert_allclose(g, want, rtol=1e-12)


def _outer_subscript(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i]) * x[i + 1]  # subscripts of an argument at the loop's index
    return s


def test_a_subscript_of_an_argument_at_the_loop_index_is_recomputed_not_saved(rng):
    x = rng.uniform(0.2, 0.9, 5)
    source = srcdiff.grad(_outer_subscript).source_for(x, 4)
    backward = source.partition("# backward")[2]
    assert "= x[i]\n" in backward, source  # read again in the backward loop, not pushed
    g = srcdiff.grad(_outer_subscript)(x, 4)
    want = np.zeros(5)
    want[:4] += np.cos(x[:4]) * x[1:]
    want[1:] += np.sin(x[:4])
    np.testing.assert_allclose(g, want, rtol=1e-12)


def _inactive_loop(x, n):
    count = 0
    for _ in range(n):
        count = count + 1  # nothing here depends on x
    return x * x * count


def test_a_loop_with_nothing_active_is_left_out_of_the_backward_sweep(check_gradient):
    (g,) = check_gradient(_inactive_loop, (1.25, 3), wrt=0)
    assert g == pytest.approx(2 * 1.25 * 3, rel=1e-12)
    assert "reversed" not in srcdiff.grad(_inactive_loop).source_for(1.25, 3)
