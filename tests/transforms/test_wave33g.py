"""Wave 33g: the red team for closure.  92 programs (wave33g_*.py) in domains earlier waves had not
covered, written the way their users write them: image losses (total variation, an SSIM-like score
from box-filtered moments, a Charbonnier pyramid built in a while loop, Sobel edges written in place,
Gram-matrix style, dice, focal, a bilinear shift, a soft histogram), graphs (Laplacian smoothing from
an edge list, diffusion, a GCN, personalised PageRank), attention with causal and padding masks, a
tiny transformer block, heads concatenated, normalising flows (planar, radial, a coupling),
recommenders (factorisation over observed triples, BPR, factorisation machines, implicit feedback,
neural CF), GRU and LSTM cells returning tuples, physics and control (spring chains, n-body energies
and a leapfrog rollout, pendulum, LQR and cart-pole rollouts, SIR by RK4, Arrhenius kinetics, heat
and wave equations written in place, Kepler by Newton in a while loop, a beam by solve, DC power
flow, Lennard-Jones, a Nash cascade, an energy balance model, Snell's law, ABCD lenses), statistics
(Gaussian process marginal likelihoods by Cholesky, Cox's partial likelihood, a log-logistic AFT,
a discrete hazard, mixtures, gammaln priors, negative binomial, Dirichlet-multinomial, zero-inflated
Poisson, Student-t, von Mises by i0e, ordinal probit, Kalman, HMM, ARMA, GARCH, pinball, a Poisson
process) and configuration-driven models (a module list of layer dicts, losses named by strings,
regularisers from a dict, a frozen dataclass of hyperparameters, a namedtuple, ``**opts``, an early
return from a while loop, float32 data).  Each goes through grad, value_and_grad, hessian, hvp,
jvp, vjp, jacobian, a tree of arguments, float32, vmap(grad) and jit="numba", against float64
central differences (matrix.py, closure_cells.py).

Census (103 programs x 11 transformations; cells ok / n/a / refused at the user's line / WRONG / BAD,
BAD being a crash or an internal error; n/a: hvp of another argument than the first, float32 of a
float64-only argument, vmap of a tree, the Hessian where grad refused), before -> after the fixes:

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                     101    0    2     0   0            102    0    1     0   0
    value_and_grad           101    0    2     0   0            102    0    1     0   0
    hessian                   99    2    0     2   0            100    1    0     2   0
    hvp                       96    3    2     2   0             97    3    1     2   0
    jvp                      100    0    3     0   0            102    0    1     0   0
    vjp                      101    0    2     0   0            102    0    1     0   0
    jacobian                 101    0    2     0   0            102    0    1     0   0
    tree                     101    0    2     0   0            102    0    1     0   0
    float32                   97    5    1     0   0             98    5    0     0   0
    vmap(grad)                80   23    0     0   0             81   22    0     0   0
    numba                     98    0    4     0   1            100    0    2     0   1

Measured once over every row (in parallel, on a loaded machine), then again on the rows the fixes
touch; the slow set (``-m slow``) runs every row.  No finite wrong number anywhere: the image losses,
attention, flows, rollouts, RK4 and Euler fits, solves and Cholesky likelihoods, HMM / Kalman
recursions and configuration-driven models agree in every transformation.

Found and fixed (variants in wave33g_findings.py):

1. Refused with a misleading message: a module list (or tuple) of configuration dicts, ``ARCH =
   [{"size": 4, "act": "tanh"}, ...]`` (cfg_arch_network and 11 variants): ``for spec in ARCH``,
   ``ARCH[i]["act"]``, ``ARCH[0]["act"]`` said "index 'act' is not an integer", ``zip(ARCH, weights)``
   "list(...) is not supported" at a loop with no ``list`` in it.  Now a loop over such a list (or its
   enumerate, or a zip with numbers written out) is unrolled with each dict a constant
   (lower/static_loops.py); zipped with a parameter list of tuples, each item is a dict tree of
   constants (frontend/module_constants.record_entries); at constant indices the value is folded, at a
   loop's count read when the function runs (lower/subscripts.py).  A tuple of dicts is compared by
   value like a list (frontend/depends.state_of): changed in place, the gradient is built again (the
   unrolling made it stale first; test_a_record_changed_in_place_builds_again).
2. Refused by jvp only: a function of a parameter tree given a list or tuple of indices besides
   (rec_neural_cf's ``pairs=((0, 1), ...)`` zipped, ``p["user"][idx]``): jvp read every list as a tree to
   differentiate ("pairs is a parameter tree, passed whole to zip"); grad passes it whole.  Now a list
   or tuple given no tangent is data (api/flatcall.Front.bound_call's `constant`).
3. Refused by jit="numba" only: ``np.dot(SIGNAL[i:i + k], kernel)`` of float64 data and a float32
   kernel (seq_conv1d_f32, ``v @ np.dot(M, v)``): numba has no dot of the two dtypes.  Its refusal now
   counts as float32 meeting float64 (numba/float32_constants.MIXED): the compiled gradient computes in
   float64 and gives a float32 gradient back, as for numba's "Cannot unify".
4. Unclear refusals, now saying what to change: a dict built in the function with float keys
   (ode_arrhenius' ``{300.0: 0.2, ...}``) said "needs constant keys" of constant keys; an array of
   another module (``cfg.X_IN``) said "is not a number".

Open:

* Fixed by wave 33i (test_wave33i.py): gp_ard's Hessian and Hessian-vector product were NaN.  The
  squared distances ``sq[:, None] + sq[None, :] - 2 * z @ z.T`` are exactly 0.0 on the diagonal, where
  ``np.maximum(d2, 0.0)`` sits at its tie for every parameter value (ad/zero_diagonals.py).
* BAD, seen once: phys_leapfrog's jit="numba" raised numba's "no compiled object yet for <Library
  'leapfrog_grad'>" while four processes compiled on a loaded machine; alone it agrees (not
  reproduced).
* Refused at the user's line: ode_arrhenius (a dict keyed by floats built in the function, read at a
  loop's float; accepted since wave 34a, test_wave34a.py, but by jit="numba"); jit="numba" of
  hyd_nash_cascade (``stores = [0.0] * n`` written by index: a list on one path and an array on another),
  of ``ARCH[i]["act"]`` at a loop's count and of an array indexed by a list argument; ``mod.X`` of an array
  another module holds (bind it by name).
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave33g_findings as fd
from . import wave33g_programs as w

ALL = ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree", *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33g", "wave33g_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (cheap ones; `-m slow` runs them all)
KEPT = {"cfg_arch_network"}
#: refused by grad at the user's line, and so by every transformation
REFUSED: set = set()  # (ode_arrhenius, a dict keyed by floats built in the function: accepted since wave 34a)
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"hyd_nash_cascade", "ode_arrhenius"}  # (ode_arrhenius: a dict read at a loop's float)


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


# ---- the findings' variants: module lists and tuples of configuration dicts ----

def records():
    return corpus.from_table(fd.RECORDS, "w33g", "wave33g_findings", 33)


#: the default run keeps the zip of the module list with a parameter list of tuples and the loop over it
RECORDS_KEPT = {"records_zip_tuples"}
#: numba cannot read a module list of dicts at an index known only when the function runs (refused at the line)
RECORDS_NUMBA_REFUSED = {"records_index_at_count", "records_numbers_at_count"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in RECORDS_KEPT, p) for p in records()], ids=_name)
def test_module_records_first_order(program):
    matrix.assert_ok_or_na(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", records(), ids=_name)
def test_module_records_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", records(), ids=_name)
def test_module_records_numba(program):
    matrix.assert_numba_unless_refused(program, RECORDS_NUMBA_REFUSED)


def _central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


STALE_ROWS = [("loop_over_dicts", fd.ARCH), ("index_at_constant", fd.ARCH), ("index_at_count", fd.ARCH),
              ("zip_with_numbers", fd.ARCH_T), ("enumerated_dicts", fd.ARCH)]


@pytest.mark.parametrize("transform", [corpus.slow_unless(t == "grad", t) for t in ("grad", "numba", "hessian")])
@pytest.mark.parametrize("name,table", [corpus.slow_unless(n in ("loop_over_dicts", "zip_with_numbers"), n, t)
                                        for n, t in STALE_ROWS], ids=lambda v: v if isinstance(v, str) else "")
def test_a_record_changed_in_place_builds_again(name, table, transform):
    """``ARCH[0]["act"] = "softplus"`` after a first call (a list's dict, a tuple's dict): the new derivative,
    never the one built from the old configuration."""
    f = getattr(fd, name)
    x = np.array([0.3, -0.2, 0.5])
    if transform == "hessian":
        g = srcdiff.hessian(f)
        want = lambda: _central(srcdiff.grad(f), x, 1e-5)  # noqa: E731  (of the checked gradient)
    else:
        g = srcdiff.grad(f, jit="numba") if transform == "numba" else srcdiff.grad(f)
        want = lambda: _central(f, x)  # noqa: E731
    try:
        g(x)
    except srcdiff.SrcDiffError as exc:
        assert transform == "numba" and "test_wave33g" not in str(exc) and "wave33g_findings.py" in str(exc)
        return
    old = table[0]["act"]
    table[0]["act"] = "softplus"
    try:
        np.testing.assert_allclose(g(x), want(), rtol=1e-5, atol=1e-6)
    finally:
        table[0]["act"] = old
    np.testing.assert_allclose(g(x), want(), rtol=1e-5, atol=1e-6)


# ---- messages that now say what is wrong ----

def _computed_keys(x):
    obs = {x: 0.2, 320.0: 0.35}  # (float keys written out are read since wave 34a: test_wave34a.py)
    return x * obs[320.0]


def _another_modules_list(w):  # (another module's arrays, fd.X, are read since wave 35e: test_wave35e.py)
    return np.sum((w * fd.SCALES[0]["a"]) ** 2)


@pytest.mark.parametrize("func,arg,says", [
    (_computed_keys, 1.5, r"needs keys known when the gradient is built .*, not x"),
], ids=["computed_keys"])
def test_the_refusal_names_what_to_change(func, arg, says):
    """Refused at the line, saying what it is (these said "needs constant keys" of constant keys, and "is
    not a number" of an array)."""
    with pytest.raises(srcdiff.SrcDiffError, match=rf"(?s)test_wave33g\.py:\d+: .*{says}") as caught:
        srcdiff.grad(func)(arg)
    assert caught.value.location is not None or "test_wave33g.py" in str(caught.value)


def test_another_modules_list_of_dicts_is_read_by_its_attribute():
    """``fd.SCALES[0]["a"]`` was refused ("fd.SCALES is a list another module holds"); since wave 36g
    (test_wave36g.py) another module's lists and dicts are read by attribute as the module's own are."""
    w = np.array([0.5, -1.5])
    np.testing.assert_allclose(srcdiff.grad(_another_modules_list)(w), central_difference(_another_modules_list,
                               (w,), 0), rtol=1e-7)


# ---- jvp of a function given a list or tuple of indices besides its parameter tree ----

def data_rows():
    return corpus.from_table(fd.DATA_SEQUENCES, "w33g", "wave33g_findings", 33)


#: numba cannot index an array by a Python list passed as an argument (refused at the line)
DATA_NUMBA_REFUSED = {"data_index_list_passed"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "data_pairs_default", p) for p in data_rows()],
                         ids=_name)
def test_jvp_passes_a_list_of_indices_whole(program):
    """jvp, as grad: a list or tuple given no tangent is data (it read it as a tree to differentiate,
    refusing ``zip(pairs, targets)`` and ``p["user"][idx]``)."""
    matrix.assert_ok(program, ("jvp",))


@pytest.mark.slow
@pytest.mark.parametrize("program", data_rows(), ids=_name)
def test_data_rows_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)
    matrix.assert_numba_unless_refused(program, DATA_NUMBA_REFUSED)


# ---- jit="numba": a float32 argument meeting float64 data in np.dot ----

@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "mixed_dot_rows", p)
                                     for p in corpus.from_table(fd.MIXED_DTYPES, "w33g", "wave33g_findings", 33)],
                         ids=_name)
def test_numba_widens_a_float32_argument_numba_has_no_function_for(program):
    """``np.dot(SIGNAL[i:i + k], kernel)`` of float64 data and a float32 kernel: numba has no dot of the two
    dtypes; the compiled gradient computes in float64 and gives a float32 gradient back (it refused)."""
    matrix.assert_ok(program, ("numba", "float32"))
