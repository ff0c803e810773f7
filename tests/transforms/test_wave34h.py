"""Wave 34h: the red team over NumPy's API breadth.  89 programs (wave34h_contract.py,
wave34h_arrays.py, wave34h_elementwise.py) written the way users write NumPy: np.einsum (bilinear forms,
batched products, traces, ``...``, ``ii->i``, implicit outputs), np.tensordot (axes pairs and ints),
np.outer / np.kron / np.inner; np.linalg's det, slogdet, inv, solve (a matrix right-hand side), eigh,
eigvalsh, svd (values only and the factors), norm (ord, axis, "fro", 2 of a matrix), matrix_power,
cholesky, qr, pinv; cumsum / cumprod (axes), diff (n=2), np.gradient, np.trapezoid, np.convolve (full,
same, valid; of the signal and of the kernel), np.correlate, np.interp (of the table and of the
queries), np.polyval (of the coefficients and of the points), Horner loops, np.poly1d; sort / argsort /
take_along_axis / partition losses, median / percentile / quantile; fancy and boolean reads and writes,
np.put and np.add.at, np.bincount with weights, triu / tril / diag / diagonal / trace, roll / flip /
rot90 / fliplr / swapaxes / moveaxis / transpose, reshape and ravel with order="F", np.pad (edge,
constant, reflect), tile / repeat / broadcast_to, meshgrid, np.ix_ reads and ``+=`` writes; hypot,
arctan2, logaddexp, expm1, log1p, sinc, scipy.special (erf, erfc, expit, log_ndtr, gammaln, xlogy,
digamma, logsumexp, softmax), np.maximum.accumulate drawdowns, nan* reductions, keepdims and axis
tuples, ``out=`` and ``where=`` arguments, ``dtype=`` arguments and astype, complex intermediates with
real results (``np.abs(np.fft.fft(x)) ** 2``, rfft bands, cross spectra, phases), clip / sign /
copysign, inverse trigonometric functions, prod / ptp / average, var and cov with ddof, corrcoef.
Each through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree of arguments, float32,
vmap(grad) and jit="numba", against float64 central differences (matrix.py, closure_cells.py).

Census (89 programs; cells ok / n/a / refused at the user's line / WRONG / BAD, BAD a crash or a
refusal naming no line of the user's; n/a: hvp of another argument than the first), before -> after:

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                      84    0    5     0   0             86    0    3     0   0
    value_and_grad            84    0    5     0   0             86    0    3     0   0
    hessian                   84    5    0     0   0             86    3    0     0   0
    hvp                       79    5    5     0   0             81    5    3     0   0
    jvp                       84    0    5     0   0             86    0    3     0   0
    vjp                       84    0    5     0   0             86    0    3     0   0
    jacobian                  84    0    5     0   0             86    0    3     0   0
    tree                      84    0    5     0   0             86    0    3     0   0
    float32                   84    0    5     0   0             86    0    3     0   0
    vmap(grad)                84    0    5     0   0             86    0    3     0   0
    numba                     78    0   11     0   0             82    0    7     0   0

No cell WRONG, no BAD error: every gap was a refusal at the user's line.  The Hessians of det / slogdet
/ inv / eigh / svd / qr / pinv / cholesky losses, sorting and quantile losses, fancy writes, np.ix_
assemblies, FFT power spectra and the float32 rows all agree.

Found and fixed (each a class, variants in wave34h_findings.py, all refused by grad before):

1. Complex values unpacked from a tuple: ``X, Y = np.fft.fft(x), np.fft.fft(y)`` (or ``z, w =
   np.exp(1j * t), np.exp(2j * t)``, a complex and a real value together) was refused ("no adjoint rule
   for numpy.fft.fft") where ``X = ...`` on its own line was split into real and imaginary parts.  Now
   frontend/complex_split.py writes such a pair (no value on the right reading a name on the left) as
   one assignment a name, at the same line, before finding the complex names.
2. ``np.nanmax`` / ``np.nanmin`` / ``np.nanvar`` / ``np.nanstd`` had no rule (nansum and nanmean had).
   Now rules/numpy_nan_reductions.py has them, with ``axis``, ``keepdims`` and ``ddof``: NaN elements have
   gradient 0, tied extrema share it equally as np.max's (a group of NaN only divides by one, never 0 / 0),
   the spreads are var's / std's over the elements that are not NaN (std's subgradient 0 where it is 0);
   forward tangents and sympy forms (rules/sympy_forms.py) to match.
3. jit="numba" refused (at the line) a tensordot contracting every axis to a number
   (``np.tensordot(A, A, axes=2)``, ``axes=3`` of 3-D arrays, ``axes=([0], [0])`` of vectors): its adjoint
   is a tensordot of the number g with no axis contracted, which backend/numba/linalg_more.py's overloads
   did not take.  Now a number and an array with nothing contracted is their product.
4. jit="numba" refused (at the line) ``np.flip(X)`` of a matrix (roll_flip_rot), ``np.flip(T, axis=None)``,
   and the adjoint of a flip, ``np.flip(g, None)``: numba's np.flip takes 1-D arrays only.  Now
   backend/numba/spelling.py spells a flip of every axis as missing.py's flip_axis(a, None).

Open when wave 34h ended (accepted since wave 35a): ``np.partition(x, x.size - 3)`` (a kth read from a length:
gradients are compiled per number of axes, not per length; write the constant), ``np.put`` (a change in
place: the message says to build the new array), ``np.poly1d(c)(t)`` ("cannot tell which function p is":
np.polyval(c, t) is the supported spelling).  jit="numba" also refuses at the line (NUMBA_REFUSED):
``np.convolve(x, k, mode="same")`` (convolve_modes, of the signal and of the kernel), ``np.median(X,
axis=1)`` and ``np.diagonal(M, 1)`` (numba has no implementation).
"""

from __future__ import annotations

import pytest

from . import closure_cells, corpus, matrix, table_tests
from . import wave34h_findings as fd
from . import wave34h_programs as w

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34h", "wave34h_programs", 34)


def findings():
    return corpus.from_table(fd.PROGRAMS, "w34h-fd", "wave34h_findings", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (cheap ones; `-m slow` runs them all)
KEPT = {"einsum_ellipsis", "slogdet_gauss_nll", "nan_reductions", "fft_conj_product", "ix_write"}
#: the findings' rows the default run keeps (one of each class)
KEPT_FINDINGS = {"cross_spectrum_pair", "nanmin_axis", "nanstd_rows"}
#: refused by grad at the user's line, and so by every transformation (open, see the docstring)
#: (partition_topk, put_and_add_at and poly1d_eval are accepted since wave 35a: test_wave35a.py)
REFUSED: set = set()
#: jit="numba" refuses these at the user's line (tensordot_int_axes compiles since this wave: finding 3)
NUMBA_REFUSED = {"convolve_modes", "convolve_modes_kernel", "median_loss", "triangles_trace", "poly1d_eval"}


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order(lambda p: ("grad", "vjp") if _name(p) in KEPT else matrix.FIRST_ORDER)
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT_FINDINGS, p) for p in findings()],
                         ids=_name)
def test_findings_first_order(program):
    matrix.assert_ok_or_na(program, ("grad", "jvp"))


@pytest.mark.slow  # (numba compiles for seconds a program; the default run samples numba tests anyway)
@pytest.mark.parametrize("program", findings(), ids=_name)
def test_findings_numba(program):
    matrix.assert_ok(program, ("numba",))


@pytest.mark.slow
@pytest.mark.parametrize("program", findings(), ids=_name)
def test_findings_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)
