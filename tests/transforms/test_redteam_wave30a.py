"""The red team's wave 30a: 105 programs (redteam_wave30a_*.py) written the way scientists and ML
engineers write them: Cox partial likelihoods (Breslow by risk-set masks and by cumulative sums,
Efron's ties, strata, ridge), Weibull and log-logistic AFT models with censoring by np.where,
piecewise-exponential hazards, cure, competing-risk, frailty and discrete-time hazard models, life
tables and annuities, 2PL and 3PL items, Bradley-Terry, Hawkes processes; Black-Scholes prices and
vegas from math.erf, parity, CRR trees as lists, Merton, Vasicek, Nelson-Siegel, bonds from dicts,
Markowitz, risk parity, smooth CVaR, Kelly, GARCH, GJR and EWMA recursions, Almgren-Chriss, Asian
paths, drawdowns, Sharpe; FIR filters as loops and by np.convolve, biquads with tuple state, direct
form II, cascades, windowed sincs, np.correlate, LMS and NLMS, Goertzel, envelopes, periodograms,
M/M/1, Erlang C, Kingman, Jackson networks, Lindley's recursion; causal and multi-head attention,
transformer blocks with layer and RMS norms, rotary embeddings, label smoothing, skip-gram, matrix
factorisation and BPR by index arrays, ListNet, mixtures by logsumexp, Huber, Tukey and pinball
losses; PK models, LIF and Hodgkin-Huxley neurons, Wilson-Cowan, Kepler by Newton steps, energy
balance, DC power flow, dispatch, Hardy-Weinberg, graph Laplacians, Heun and RK4 helpers, GPs with
ARD and periodic kernels, unbalanced Sinkhorn.  Each goes through grad, value_and_grad, hessian,
hvp, jvp, vjp, jacobian, a tree of arguments, float32, vmap(grad) and jit="numba", against float64
central differences (matrix.py, tests/numeric.py), never the code under test.

Census (105 programs; ok / n/a / refused at the user's line / WRONG / BAD, BAD being a crash, a
refusal naming no line of the user's, or an error of the generated code reported at the user's
line; n/a: float32 of a float64-only program, hvp of another argument, the Hessian of a refused
gradient), before -> after the fixes:

                     before:  ok  n/a  ref WRONG BAD     after:  ok  n/a  ref WRONG BAD
    grad                      93    0   11     0   1             98    0    7     0   0
    value_and_grad            93    0   11     0   1             98    0    7     0   0
    hessian                   92   12    0     1   0             97    7    0     1   0
    hvp                       92    0   11     1   1             97    0    7     1   0
    jvp                       94    0   11     0   0             98    0    7     0   0
    vjp                       93    0   11     0   1             98    0    7     0   0
    jacobian                  93    0   11     0   1             98    0    7     0   0
    tree                      93    0   11     0   1             98    0    7     0   0
    float32                   73   22    9     0   1             77   22    6     0   0
    numba                     92    0   12     0   1             96    0    8     0   1
    vmap(grad)                93    0   11     0   1             98    0    7     0   0

The WRONG cell both times is mk_crr_binomial's Hessian (NaN at a tie, open below); the BAD cell
before, su_life_table_expectancy (3 below), after, su_cox_ridge under numba (fixed since by 7).

Found and fixed, each class with variants in redteam_wave30a_findings.py:

1. SILENTLY WRONG: a loop over a dict of the module (``for k in WEIGHTS``, a comprehension too)
   was lowered as a loop over a sequence, ``WEIGHTS[0], WEIGHTS[1]...``: a KeyError at the user's
   line, or, for a dict keyed 0, 1, ..., its values taken for its keys (``(k + 1) * x[0] ** 2``:
   gradient 101 off).  ``.items()``, ``.values()`` and ``sorted(D)`` were refused.  Fixed in
   lower/dict_loops.py (called from lower/loops.py): the iterable is the tuple of what the dict
   iterates now (keys, values or pairs of numbers and strings), the gradient built again when the
   dict iterates otherwise; where the body reads the dict at the key (``LAGS[lag]``), a dict of
   numbers is unrolled, each key a constant, which jit="numba" takes.  A dict of arrays' values
   are refused at the line.
2. Refused where users expect an answer: ``if events[i] == 1:`` (an item of an argument compared
   with a number: a point guard) around ``at_risk = times >= times[i]`` and ``nll -= ...``:
   "at_risk shares its memory with nll".  The guard's value was taken to share the compared item's
   memory, which both merged values then shared.  Fixed in lower/writes.py (IDENTITIES: a guard's
   value shares what its first argument shares).  Every Cox model of the wave hit it.
3. A crash of the gradient's code ('numpy.ndarray' object has no attribute 'pop', at the user's
   line): a list started as numbers written in the code (``lx = [1.0]``, a life table, a
   recurrence's seeds) grown while read in a loop; and refused ("works only on a list this
   function builds") where it was appended to with no read.  Fixed in lower/lists.py (_grown: a
   display of numbers the function grows, or rebinds to a list it grows, is a list of its items).
4. Refused ("(D_MODEL, 3 * D_MODEL) must be a constant here"): arithmetic on module constants
   where srcdiff needs a constant (``W.reshape(D_MODEL, 3 * D_MODEL)``, ``(D, -1)``, ``D // 2``,
   ``axis=AXIS - 1``).  Fixed in lower/static_values.py (_arithmetic_of_parameters reads a module's
   numbers, as a bare name already was, the gradient depending on their values).
5. A crash (ValueError of np.ndim) of a loop over a tuple of tuples of different lengths written
   in the code (``for (i, j), w in (((0, 1), 1.0), ...)``).  Fixed in ad/shape_checks.py.
6. Refused ("tuple(...) is not supported"): ``tuple(yi + dt * fi for yi, fi in zip(y, f))`` and
   ``list(...)`` of a generator expression, a Heun step's state.  Fixed in lower/list_copies.py: the
   list comprehension it iterates.  (sc_heun_kinetics stays refused at its line: the new tuple is
   appended to a list of states, a list inside a list.)
7. A crash of jit="numba"'s gradient code (numba has no ``np.shape`` / ``np.size`` of an optional
   array), at the user's line: a helper's value assigned only in a branch of its loop (``if
   events[i] == 1: at_risk = ...``), read by the helper's pullback, a function apart from the
   forward function that presets it to None.  Fixed in backend/numba/optionals.py (a pullback's
   stacked and saved names are read through ``present``, as the forward function's are); variants
   in redteam_wave30a_helpers.py.  su_cox_ridge (a penalised Cox model) was the census's BAD cell.

Open (the rows are in REFUSED, NUMBA_REFUSED, TIED below):

* mk_crr_binomial's Hessian is NaN: an at-the-money tree's middle leaf is ``max(K - S0 * u**6 *
  d**6, 0.0)`` with ``d = 1 / u``: a tie at every sigma, whose second derivative srcdiff makes NaN
  unless it proves the tie persists (ad/ties.py does not see ``u**j * (1/u)**j == 1``).  NaN, not
  a number: the matrix counts it WRONG.
* Refused at the user's line: ``groups.setdefault(s, []).append(i)`` (keys from data), a dict
  comprehension over ``range(n)`` with n read from a dict argument, a list comprehension of dicts,
  a local dict's ``.items()`` zipped with an array (``for (name, lam), mu in zip(d.items(), s)``),
  a dict built in the function read at a key from a default tuple, a loop over a tuple of tuples of
  arrays computed in the function (``for mat, b in ((A, 0.1), (B, -0.1))``), a list of states
  each a new tuple (sc_heun_kinetics: a list inside a list).  jit="numba" also refuses a
  loop over a tuple of tuples of different lengths (su_frailty_nll, numba's getitem of a
  heterogeneous tuple) and a loop over a dict of arrays of the module (numba takes no Python dict).
  The second order of a list appended to after it was read outside a loop (grown_no_loop, as of a
  list started empty) is refused at the user's line.  (Wave 31 accepts grown_no_loop's second order,
  sg_littles_law_staffing and nn_residual_mlp; su_cox_stratified's setdefault is refused with what to
  write: its keys are data.)
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import redteam_wave30a_findings as fd
from . import redteam_wave30a_helpers as hp
from . import redteam_wave30a_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")
SECOND_ORDER = ("hessian", "hvp")


def programs():
    return corpus.from_table(w.PROGRAMS, "w30a", "redteam_wave30a_programs", 30)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (one of each module; the findings' own tests are below)
KEPT = {"su_cure_model", "mk_bs_call", "sg_biquad", "nn_causal_attention", "sc_two_compartment_euler"}
#: refused by grad at the user's line, and so by every transformation
REFUSED = {"su_cox_stratified", "su_competing_risks", "mk_bond_from_cashflows", "sg_cascade_sections",
           "sc_heun_kinetics"}  # (sg_littles_law_staffing, nn_residual_mlp: accepted since wave 31)
#: a tie at every point (NaN second derivative: open)
TIED = {"mk_crr_binomial"}
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"su_frailty_nll"}


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order(or_na=False)
test_every_transformation = TABLE.every_transformation(
    lambda p: ALL if _name(p) not in TIED else tuple(t for t in ALL if t not in SECOND_ORDER))
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(kept=REFUSED)


# ---- the findings' variants ----

def _findings(table):
    return corpus.from_table(table, "w30a", "redteam_wave30a_findings", 30)


FINDINGS = {"dict_loops": fd.DICT_LOOPS, "guarded": fd.GUARDED, "grown": fd.GROWN, "shapes": fd.SHAPES,
            "ragged": fd.RAGGED, "generated": fd.GENERATED}
ROWS = [(kind, p) for kind, table in FINDINGS.items() for p in _findings(table)]
#: the default run keeps every dict loop (the silently wrong class) and the first variant of each other class
FIRST = {kind: _findings(table)[0].name for kind, table in FINDINGS.items()}


@pytest.mark.parametrize("kind,program", [corpus.slow_unless(k == "dict_loops" or p.name == FIRST[k], k, p)
                                          for k, p in ROWS], ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_first_order(kind, program):
    """Every class's variants agree (dict loops: silently wrong or refused before; the others
    refused or crashed before)."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


#: a list appended to after it was read, outside a loop: its second order is refused at the user's line (the
#: gradient's code appends after reading, which srcdiff does not differentiate again; as of ``lx = []``)
FINDINGS_SECOND_ORDER_REFUSED: set = set()  # (grown_no_loop's, refused before wave 31: frontend/read_appends.py)


@pytest.mark.slow
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_every_transformation(kind, program):
    refused = _name(program) in FINDINGS_SECOND_ORDER_REFUSED
    matrix.assert_ok_or_na(program, tuple(t for t in ALL if not (refused and t in SECOND_ORDER)))
    if refused:
        matrix.assert_refused_at_the_line(program, SECOND_ORDER)


#: jit="numba" refuses at the line: a ragged tuple indexed by a counter, a state a tuple before the loop and a
#: list in it (a loop over enumerate(D) reading D[name] and over a dict of arrays compile since wave31j)
FINDINGS_NUMBA_REFUSED = {"ragged_rows", "generated_state_update"}


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_numba(kind, program):
    matrix.assert_numba_unless_refused(program, FINDINGS_NUMBA_REFUSED)


def test_a_dict_of_the_module_iterated_again_after_it_changed():
    """The gradient holds the keys the dict had; a key added builds it again (as a rebound name does)."""
    x = np.array([0.3, -0.2, 0.5, 0.1])
    gradient = srcdiff.grad(fd.dict_keys_as_numbers)
    before = gradient(x)
    fd.WEIGHTS[3] = 1.0
    try:
        after = gradient(x)
        np.testing.assert_allclose(after[0], 2 * x[0] * (1 + 2 + 3 + 4))
    finally:
        del fd.WEIGHTS[3]
    np.testing.assert_allclose(before[0], 2 * x[0] * (1 + 2 + 3))


def test_a_dict_of_arrays_values_refused_at_the_line():
    def values_of_arrays(x):
        return sum(np.sum(v * x) for v in fd.LAYERS.values())

    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(values_of_arrays)(np.ones(3))
    assert "test_redteam_wave30a.py" in str(caught.value) and "LAYERS" in str(caught.value)


# ---- 7. a helper's value set only in a branch of its loop, under jit="numba" ----


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in
                                     enumerate(corpus.from_table(hp.HELPERS, "w30a", "redteam_wave30a_helpers", 30))],
                         ids=_name)
def test_numba_a_helpers_value_set_in_a_branch(program):
    """The pullback reads it through ``present`` as the forward function does (numba crashed on
    ``np.shape`` of an optional array, reported at the user's line)."""
    matrix.assert_ok(program, ("grad", "numba"))
