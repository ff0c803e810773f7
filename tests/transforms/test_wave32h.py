"""The red team's wave 32h: 108 programs (wave32h_*.py) in domains earlier waves left alone, written the
way practitioners write them: reinforcement learning (REINFORCE with a log-softmax by hand, GAE by
``reversed(range(T))``, PPO's clipped ratio with an entropy bonus, soft Q targets, SAC's tanh-squashed
Gaussian on a dict, TD(lambda) traces, soft value iteration, DPO, V-trace, actor-critic tuples, advantage
normalisation, float32 bandits, rollouts with an early return); graphics and optics (nearest hits of rays on
spheres with ``continue``, barycentric areas by a nested helper, Blinn-Phong with a normalise helper of a
default epsilon, GGX + Schlick, soft rasterisation, smooth-min SDFs, Rodrigues reprojection, de Casteljau by
``while``, sRGB by np.where, NeRF compositing by cumprod, Snell, Fresnel, ABCD ray matrices by zip, Gaussian
beams, mesh energies over edge tuples); geostatistics (ordinary kriging by an augmented solve, spherical
variograms, GP likelihoods by Cholesky, inverse distance weights); epidemiology (SIR on a dict of rates, SEIR
with lists of states, renewal equations with gammaln, age-structured contacts); chemistry (Lennard-Jones and
Morse over pair loops, bond angles by arccos, torsions by arctan2, switched Coulomb by np.select, Newton's pH);
ecology (Lotka-Volterra midpoint steps by a tuple-returning helper, Leslie power iteration, harvest with
``break``, competitive equilibria, Beverton-Holt); audio (RBJ biquads from math.cos, envelope followers
choosing attack or release per sample, one-pole smoothers, soft-knee compressors by np.select, ADSR by
np.piecewise, FM synthesis, float32 wavefolders, frame RMS in dB, comb filters with ring buffers); control
(PID with a clipped integral on a dict, LQR rollouts, Kalman likelihoods, shooting MPC); queueing (M/M/1 with
``raise ValueError``, Erlang C by math.factorial, Lindley recursions by max, Jackson networks,
Pollaczek-Khinchine); econometrics (GMM with a weighting matrix, probit by log_ndtr, Tobit by
scipy.stats.norm, inverse Mills ratios, Poisson with exposure, GARCH by a list, exact AR(1), conditional logit
on a dict, ordered probit by cumsum(exp), CES); NLP (masked causal attention, label smoothing by np.eye, a CTC
forward recursion in log space, a CRF's partition function, layer norm with GELU, negative sampling, InfoNCE);
idioms (``first, *rest = w``, zip of adjacent items and ``zip(*pairs)``, dict comprehensions, np.add.at
assembly, reversed cumsums by ``[::-1]``, logsumexp with weights, np.triu_indices, math.hypot / math.atan2 on
items, module lists of lambdas, fixed points with a tolerance ``break``, np.interp, ``np.clip(x, lo, None)``,
keyword-only helpers, ``any()`` validation, slices updated with ``+=`` / ``-=`` / ``*=``, in loops too).

Each goes through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree of arguments, float32,
vmap(grad) and jit="numba" against float64 central differences (matrix.py).  Census (108 programs; ok /
n/a / refused at the user's line / WRONG / BAD, BAD being a crash or an error of srcdiff's own generated
code; n/a: float32 of a float argument, vmap of a tree, the Hessian where the gradient is refused):

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                     102    0    4     1   1            104    0    3     1   0
    value_and_grad           102    0    4     1   1            104    0    3     1   0
    hessian                  102    6    0     0   0            104    4    0     0   0
    hvp                      102    0    4     1   1            104    0    3     1   0
    jvp                      103    0    4     1   0            104    0    3     1   0
    vjp                      103    0    4     1   0            104    0    3     1   0
    jacobian                 103    0    4     1   0            104    0    3     1   0
    tree                     103    0    4     1   0            104    0    3     1   0
    float32                   88   15    4     1   0             89   15    3     1   0
    vmap(grad)                89   14    4     1   0             90   14    3     1   0
    numba                     99    0    7     1   1            101    0    6     1   0

The WRONG row both times is nlp_ctc_log_zero: NaN, every transformation (open, below).  After: measured
again on the rows the fixes touch (rl_sac_actor_dict, idi_lambda_basis) and the rows rewritten while the
census ran; the slow set (``-m slow``) runs every row.

Found and fixed (variants in wave32h_findings.py):

1. BAD (grad, value_and_grad, hvp and numba of rl_sac_actor_dict): "ValueError while computing the gradient
   of this line: non-broadcastable output operand with shape (6,1)" for a perfectly valid function.  A
   reduction over an axis (``logp = np.sum(-0.5 * noise ** 2 - log_std, axis=1)``) gives its operand the fill
   ``np.full(x.shape, np.expand_dims(g, 1))``; where that is the first contribution to an adjoint another line
   adds to later (``std = np.exp(log_std)`` read before it), the optimizer's scalar_fills kept the fill narrow
   (the ``np.expand_dims`` alone, through a name rebound later, a case meant for numbers), and the in-place
   sum ``x_bar += e`` could not widen it.  Now only a number's fill is read through a rebound name
   (backend/optimize/sameshape.py); 3 of the 6 variants crashed before (sum over an axis, keepdims, SAC's
   log-probability).
2. Refused where users expect an answer: a module list of functions (lambdas or defs) looped over with
   ``zip(c, BASIS)`` or ``enumerate(BASIS)``, in a ``for`` or a generator: "cannot tell which function phi
   is", where ``for phi in BASIS`` was taken.  Now such a loop is unrolled over the functions
   (lower/static_loops.py), the zipped name's items read by position; a guard raises ValueError where it
   holds fewer items than the functions (Python's zip would stop early), and rebinding the zipped name in the
   loop is refused at the line.

Open:

* (fixed in wave 32i, test_wave32i.py: each operand's share is 0.5 where x == y)
  WRONG (NaN): nlp_ctc_log_zero, a CTC forward recursion in log space whose
  unreachable states hold -inf (log 0): ``np.logaddexp(a, alpha[s - 1])`` of two -inf has the adjoint
  ``g * (0.5 + 0.5 * np.tanh(0.5 * (x - y)))`` with ``x - y`` NaN, 0 * NaN where g is 0, and the NaN reaches
  the logits through ``new[s] = a + logp[t, ext[s]]``; the tangent likewise.  The gradient is finite (the
  states that cannot be reached contribute nothing).  (nlp_ctc_logspace, the same recursion with its first
  items written by a tuple assignment, is refused at that line; unrefused it gives this NaN.)

Refused at the user's line (the rows are in REFUSED and NUMBA_REFUSED below):

* nlp_ctc_logspace: ``alpha[0], alpha[1] = logp[0, ext[0]], logp[0, ext[1]]``, a tuple assignment of items
  whose right-hand sides srcdiff cannot tell to be numbers (``ext`` a list built in the function);
* aud_adsr_piecewise: a lambda in ``np.piecewise``'s list of functions;
* idi_lambda_basis_by_index: ``BASIS[i](ts)`` with ``i`` a ``range`` loop's index (zip and enumerate are
  taken, finding 2);
* jit="numba" only: ``np.diag([1.0, 0.1])`` of a list (numba has no diag of a list), ``np.add.at`` with a
  tuple of index arrays, an ABCD product whose list of matrices is carried through a loop (all three compile since
  wave 33c: test_wave33c.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave32h_findings as fd
from . import wave32h_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w32h", "wave32h_programs", 32)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (cheap ones; the findings' rows hold the fixed classes; `-m slow` runs them all)
KEPT = {"que_mm1_raise"}
#: refused by grad at the user's line, and so by every transformation
REFUSED = {"nlp_ctc_logspace", "aud_adsr_piecewise", "idi_lambda_basis_by_index"}
#: jit="numba" refuses these at the user's line (none: np.diag of a list, np.add.at of a tuple of index arrays and
#: the ABCD product over a default tuple of gaps compile since wave 33c: test_wave33c.py)
NUMBA_REFUSED: set = set()


#: np.logaddexp meets two -inf (log 0: a state a log-space recursion cannot reach yet): NaN before wave 32i
#: (its adjoint was 0 * NaN there), now each share is 0.5 (test_wave32i.py holds the class)
LOG_ZERO = {"nlp_ctc_log_zero"}


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in LOG_ZERO], ids=_name)
def test_log_zero_in_a_log_space_recursion(program):
    matrix.assert_ok(program, ("grad",))


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, apart=LOG_ZERO, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(
    (*table_tests.REFUSED_CELLS, "hvp"))


# ---- the findings' variants ----

FINDINGS = {"narrow": fd.NARROW_FILLS, "zips": fd.STATIC_ZIPS}
ROWS = [(kind, p) for kind, table in FINDINGS.items()
        for p in corpus.from_table(table, "w32h", "wave32h_findings", 32)]
#: the default run keeps the first of each class
FIRST = {next(p.name for k, p in ROWS if k == kind) for kind in FINDINGS}


@pytest.mark.parametrize("kind,program", [corpus.slow_unless(p.name in FIRST, k, p) for k, p in ROWS],
                         ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_first_order(kind, program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_every_transformation(kind, program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_numba(kind, program):
    matrix.assert_ok(program, ("numba",))


def test_a_zip_of_fewer_items_than_the_functions_raises():
    """Python's zip stops at the shorter; srcdiff unrolls over the functions: a ValueError, not a wrong value."""
    short = np.array([0.3, -0.2])
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        with pytest.raises(ValueError, match="zip: srcdiff unrolls this loop over 4 items; c holds fewer"):
            transform(fd.zip_defs_loop)(short)


def test_rebinding_a_zipped_name_in_the_loop_is_refused_at_the_line():
    with pytest.raises(srcdiff.SrcDiffError, match="rebinding c in it is not supported") as caught:
        srcdiff.grad(fd.zip_rebinds_its_sequence)(np.array([0.1, 0.2]))
    assert "wave32h_findings.py" in str(caught.value)
