"""Wave 34b: the red team for closure.  83 programs (wave34b_*.py) in domains earlier waves had not
covered, written the way their users write them: chemistry (a reaction network from (reactant, product,
rate name) tuples over a dict of rates, acid equilibria by fixed Newton steps, a buffer by log10, Gibbs
mixing, Arrhenius from a tuple, Michaelis-Menten in a while loop), geodesy and astronomy (haversine
trilateration, geodetic to ECEF, orbital elements through Kepler's equation in a while loop, Kepler in
place), structures (a truss by np.add.at and by index loops, a 1D bar by slices), fluids (np.roll
diffusion, upwind advection by np.where, a D1Q3 lattice, shallow water with np.maximum), a particle in a
box by eigvalsh, a heat exchanger, a damped oscillator from a dict, thin films; econometrics (GARCH from a
dict with a list of variances, GJR by np.where, ARMA residuals in place, a Kalman filter with its RTS
smoother, Holt-Winters with a seasonal list, Hodrick-Prescott by solve, a probit by math.erf),
epidemiology (SEIR with interventions by day from a dict, an age-structured SIR, a Poisson likelihood),
signals (a biquad, a one-pole filter in place, windowed FFT magnitudes, a spectral centroid, a FIR
response, np.correlate, a comb filter by slices, np.convolve envelopes, a chirp, float32); learning
losses (triplet, InfoNCE, label smoothing by np.eye(k)[labels], focal, batch and layer norm by hand,
dropout masks as arguments, word2vec with negative sampling, soft and hard k-means, a center loss by
np.add.at, distillation, a multi-class hinge, GLU), operations research (entropic OT in a while loop, a
soft shortest path over a dict graph, a newsvendor, a softmax portfolio, a log barrier), rankings
(Bradley-Terry, Elo in place, Plackett-Luce) and graphics (ray-sphere by np.where, soft discs and
triangles, barycentric colours, Phong, a pinhole camera with Rodrigues, de Casteljau, Catmull-Rom, SDF
unions, alpha compositing, sRGB, bilinear sampling, Laplacian smoothing by np.add.at, quaternions, linear
blend skinning).  Each goes through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree,
float32, vmap(grad) and jit="numba" against float64 central differences (matrix.py, closure_cells.py).

Census (83 programs x 11 transformations; cells ok / n/a / refused at the user's line / WRONG / BAD, BAD
being a crash or an internal error; n/a: hvp of another argument than the first, float32 of a
float64-only argument, vmap of a tree), before -> after the fixes:

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                      79    0    4     0   0             81    0    2     0   0
    value_and_grad            79    0    4     0   0             81    0    2     0   0
    hessian                   78    0    4     0   1             80    0    2     0   1
    hvp                       76    2    4     0   1             78    2    2     0   1
    jvp                       79    0    4     0   0             81    0    2     0   0
    vjp                       79    0    4     0   0             81    0    2     0   0
    jacobian                  79    0    4     0   0             81    0    2     0   0
    tree                      79    0    4     0   0             81    0    2     0   0
    float32                   69   10    4     0   0             71   10    2     0   0
    vmap(grad)                72    7    4     0   0             74    7    2     0   0
    numba                     74    0    9     0   0             76    0    7     0   0

Measured once over every row on a loaded machine (two processes), then again on the rows the fixes
touch; the slow set (``-m slow``) runs every row.  No finite wrong number anywhere.

Found and fixed (variants in wave34b_findings.py, each checked in every transformation and numba):

1. Refused, a common idiom: an item read from a Python list of numbers the function made, after which
   the list's slot is written again (Holt-Winters' ``s = season[t % period]; season[t % period] = ...``,
   a Kalman filter's ``mp = m[t]`` carried to the next iteration, a display ``a = [0.0, 0.0, 0.0]``, a
   slice ``head = buf[:2]``): "s shares its memory with season" / "this loop writes into an array by
   index that mp also refers to in the next iteration".  A list's item is the item, never a view of the
   list: the write rebinds a slot.  Now a list ``[...] * n`` is a container whose items share nothing
   with it (lower/writes.Sharing.containers, lower/emit.py).  An array's row read before a write, and an
   array a list holds updated in place through another name, are still refused (STILL_SHARED).  Two
   follow-ons: a display of int counters (``count = [0, 0]; count[g] += 1``) is written by index as
   ``[0] * 2`` was (frontend/call_forms.py: "count is not known to be a new array"); the adjoint of such a
   list read at an index of unknown shape (``mean[g]``, g from a tuple) is made an array before
   np.add.at writes into it (ad/regions.py: it raised "first operand must be array").
2. Refused, a common idiom: a number read at an int of a module's table of ints (``for u, v, e in
   EDGES: old = flow[v]; flow[v] = old + ...``, ``for k in VISIT``, ``EDGES[b][1]``), the vector written
   there after: "old shares its memory with flow".  The table's items are ints, so ``flow[v]`` of a
   vector is one element, not a view (lower/integer_tables.py); a matrix's row so read is still a view.

Open when wave 34b ended (closed by wave 34j, test_wave34j.py, except or_soft_shortest_path, closed by wave
36g, test_wave36g.py, which unrolls the loops over the graph's nodes and edges):

* BAD: gfx_skinning's Hessian and Hessian-vector product raise NumPy's "non-broadcastable output operand
  with shape (4,1) doesn't match the broadcast shape (4,2)" inside the second-order code (reported at the
  user's line of ``w = w / w.sum(axis=1, keepdims=True)``).  Reduced: ``out += w[:, k:k + 1] * (REST @
  rot.T + tr)`` over ``enumerate(bones)``, a local list of (matrix, vector) tuples; the gradient's vjp
  calls ``index_add(w, (:, 1:2), t14)`` with t14 the (4, 2) factor, not the (4, 1) unbroadcast product.
  The same over a module list, over range(2), or without the normalisation agrees; main does the same
  (test_skinning_hessian, a strict xfail).
* Refused at the user's line by grad (so by every transformation; strict xfails): or_soft_shortest_path,
  a dict keyed by a module graph's node names read and written at keys its loops give (``dist[nxt]``,
  ``nxt in dist``), srcdiff reading such a dict at constant keys only (the same written with an array and
  an edge list of ints agrees since fix 2); rank_plackett_luce, ``rest.remove(item)`` on a list of
  indices, though it holds no gradient (``rest = [r for r in rest if r != item]`` agrees).
* Refused by jit="numba" at the user's line: a dict read at a day's key (epi_seir_interventions),
  np.fft.rfftfreq (sig_spectral_centroid), index_read of a matrix at an index array in the gradient of
  ``centers[labels]`` and ``verts[EDGES[:, 1]]`` (ml_center_loss, gfx_laplacian_smooth), and the adjoint
  of ``mean[g]`` that is a list or an array by a branch (items_two_lists).
"""
from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave34b_findings as fd
from . import wave34b_programs as w

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34b", "wave34b_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (`-m slow` runs them all; the findings' variants below keep the fixes' rows)
KEPT: set = set()
#: refused by grad at the user's line, and so by every transformation (open: see the docstring)
REFUSED: set = set()  # (or_soft_shortest_path: a dict keyed by a graph's node names, fixed in wave 36g)
#: jit="numba" refuses these at the user's line (none since wave 34j: a dict tested at a day's key,
#: np.fft.rfftfreq, index_read of a matrix at an index array in the gradient of ``centers[labels]``)
NUMBA_REFUSED: set = set()
#: the Hessian failed inside srcdiff (closed by wave 34j: see test_skinning_hessian)
SECOND_ORDER_CLOSED = {"gfx_skinning"}


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in SECOND_ORDER_CLOSED], ids=_name)
def test_skinning_hessian(program):
    """``out += w[:, b:b + 1] * (rest @ rot.T + tr)`` over ``enumerate(bones)``, w normalised: the use mask
    of the (n, ?) slice took the (n, ?) factor for its shape (wave 34j, ir/shapes.alike)."""
    matrix.assert_ok(program, ("hessian", "hvp"))


test_numba = TABLE.numba()


# ---- an item read from a list of numbers the function made, its slot then written again ----

def list_items():
    return corpus.from_table(fd.LIST_ITEMS, "w34b", "wave34b_findings", 34)


LIST_ITEMS_KEPT = {"items_seasonal_slots"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in LIST_ITEMS_KEPT, p) for p in list_items()],
                         ids=_name)
def test_an_item_of_a_list_is_no_view_of_it(program):
    """``s = season[k]`` then ``season[k] = ...`` (or ``mp = m[t]`` carried to the next iteration), the
    list ``[0.0] * n`` or a display of numbers: the item is the item, the write rebinds the slot (these
    were refused: "s shares its memory with season")."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", list_items(), ids=_name)
def test_list_items_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)
    matrix.assert_numba_unless_refused(program, set())


# ---- a number read at an int of a module's table of ints, the vector written there after ----

def table_items():
    return corpus.from_table(fd.TABLE_ITEMS, "w34b", "wave34b_findings", 34)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "table_visit_order", p) for p in table_items()],
                         ids=_name)
def test_an_int_of_a_module_table_reads_one_element(program):
    """``for u, v, e in EDGES: old = flow[v]; flow[v] = old + ...`` with ``EDGES = [(0, 1, 0), ...]`` (and
    ``for k in VISIT``, ``EDGES[b][1]``): v is an int, flow[v] one element of a vector (refused: "old shares
    its memory with flow")."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", table_items(), ids=_name)
def test_table_items_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)
    matrix.assert_numba_unless_refused(program, set())


@pytest.mark.parametrize("program", corpus.from_table(fd.STILL_SHARED, "w34b", "wave34b_findings", 34), ids=_name)
def test_a_view_or_an_array_a_list_holds_is_still_shared(program):
    """A row of an array (a view) read before a write into the array, and an array a list holds updated
    in place through another name: refused at the line, never a gradient of the unchanged value."""
    matrix.assert_refused_at_the_line(program, ("grad", "jvp"))


def _counters(x, groups=(0, 1, 0, 1, 1)):
    count = [0, 0]
    total = [0.0, 0.0]
    for i in range(len(groups)):
        g = groups[i]
        count[g] += 1
        total[g] = total[g] + x[i] ** 2
    return total[0] / count[0] + total[1] / count[1]


def test_a_display_of_integer_counters_is_written_by_index():
    """``count = [0, 0]`` with ``count[g] += 1`` (it said "count is not known to be a new array", while
    ``[0] * 2`` and ``[0.0, 0.0]`` were written)."""
    x = np.array([0.3, -0.7, 1.2, 0.4, -0.1])
    got = srcdiff.grad(_counters)(x)
    want = np.array([(_counters(x + 1e-6 * e) - _counters(x - 1e-6 * e)) / 2e-6 for e in np.eye(5)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
