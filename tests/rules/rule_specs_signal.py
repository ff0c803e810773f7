"""Spec rows of the convolution rules (rules/convolution.py, rules/scipy_signal.py) and of
einsum's and N-D dot's forms, in the form of tests/rules/test_numpy_rules.py's `SPECS`; that file
checks each against central differences.  Expressions may use ``signal`` (scipy.signal)."""

from rules.spec_kinds import Sym


def signal_specs(S, REAL):
    rows = []
    for mode in ("full", "same", "valid"):
        for n, m in ((5, 3), (3, 5), (4, 2)):
            first = not rows  # the symbolic check is the first row's
            rows += [S("numpy.convolve", f"np.convolve(x, y, '{mode}')", x=((n,), REAL), y=((m,), REAL),
                       sym=Sym("np.sum(np.sin(np.convolve(x, y[:2], 'same')))", "V, W") if first else None),
                     S("numpy.correlate", f"np.correlate(x, y, mode='{mode}')", x=((n,), REAL), y=((m,), REAL),
                       sym=Sym("np.sum(np.sin(np.correlate(x, y[:2], 'valid')))", "V, W") if first else None)]
        for a, b in (((4, 3), (2, 2)), ((2, 3), (3, 4)), ((5,), (2,))):
            rows += [S("scipy.signal.convolve", f"signal.convolve(x, y, '{mode}')", x=(a, REAL), y=(b, REAL)),
                     S("scipy.signal.correlate", f"signal.correlate(x, y, '{mode}')", x=(a, REAL), y=(b, REAL))]
        rows += [
            S("scipy.signal.fftconvolve", f"signal.fftconvolve(x, y, '{mode}')", x=((4, 3), REAL), y=((2, 3), REAL)),
            S("scipy.signal.oaconvolve", f"signal.oaconvolve(x, y, '{mode}')", x=((5,), REAL), y=((2,), REAL)),
            S("scipy.signal.convolve2d", f"signal.convolve2d(x, y, '{mode}')", x=((4, 3), REAL), y=((3, 2), REAL)),
            S("scipy.signal.correlate2d", f"signal.correlate2d(x, y, mode='{mode}')", x=((4, 3), REAL),
              y=((2, 2), REAL)),
        ]
    rows += [
        S("scipy.signal.convolve", "signal.convolve(x, y, 'same', method='direct')", x=((3, 2, 4), REAL),
          y=((2, 2, 3), REAL)),
        S("scipy.signal.correlate", "signal.correlate(x, y, 'valid', method='fft')", x=((2, 2, 2), REAL),
          y=((3, 4, 2), REAL)),
        # einsum: '...' (broadcast too), repeated indices, implicit output, the sublist form
        S("numpy.einsum", "np.einsum('...ij,...jk->...ik', x, y)", x=((2, 3), REAL), y=((2, 3, 4), REAL)),
        S("numpy.einsum", "np.einsum('...ij,...jk->...ik', x, y)", x=((1, 2, 3), REAL), y=((4, 3, 2), REAL)),
        S("numpy.einsum", "np.einsum('j...k,lj...->lk...', x, y)", x=((2, 3, 2), REAL), y=((2, 2, 3), REAL)),
        S("numpy.einsum", "np.einsum('...k,...nk->...', x, y)", x=((3, 5), REAL), y=((3, 4, 5), REAL)),
        S("numpy.einsum", "np.einsum('ijk,lji,lli->lki', x, y, z)", x=((3, 4, 4), REAL), y=((4, 4, 3), REAL),
          z=((4, 4, 3), REAL)),
        S("numpy.einsum", "np.einsum('ii', x)", x=((3, 3), REAL)),
        S("numpy.einsum", "np.einsum('iij,j->i', x, y)", x=((3, 3, 2), REAL), y=((2,), REAL)),
        S("numpy.einsum", "np.einsum('ij,ij->ij', x, y)", x=((1, 3), REAL), y=((4, 3), REAL)),
        S("numpy.einsum", "np.einsum('abcd->bd', x)", x=((3, 2, 3, 2), REAL)),
        S("numpy.einsum", "np.einsum('bA', x)", x=((2, 3), REAL)),
        S("numpy.einsum", "np.einsum(x, [0, 1], y, [1, 2], [0, 2])", x=((2, 3), REAL), y=((3, 4), REAL)),
        S("numpy.einsum", "np.einsum(x, [..., 0, 1], y, [..., 1, 2])", x=((2, 2, 3), REAL), y=((3, 4), REAL)),
        S("numpy.einsum", "np.einsum(x, [0, 1, 2], y, [3, 3, 0], [3, 2, 0])", x=((3, 4, 4), REAL),
          y=((4, 4, 3), REAL)),
        # dot of N-D operands: the last axis of x with the second-to-last of y
        S("numpy.dot", "np.dot(x, y)", x=((2, 2, 3), REAL), y=((2, 3, 4), REAL)),
        S("numpy.dot", "np.dot(x, y)", x=((3,), REAL), y=((2, 3, 4), REAL)),
        S("numpy.dot", "np.dot(x, y)", x=((2, 2, 3), REAL), y=((3,), REAL)),
        S("numpy.tensordot", "np.tensordot(x, y, axes=[(1, 0), (2, 1)])", x=((2, 3), REAL), y=((2, 2, 3, 4), REAL)),
    ]
    return rows
