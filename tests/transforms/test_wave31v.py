"""Wave 31v: srcdiff.vmap's WRONG-structure rows of the wave 30 census, as classes; rows that ran one
example at a time batched; the census's check made stricter (vmap_checks: the batched result's dtypes
must be the loop's, float32 in, float32 out; vmap(f) rows checked as vmap(grad(f)) rows are,
`values_outcome`; a float32 gradient compared with the float64 function's central differences, where it
was n/a; a function writing into its argument given copies for the loop); the per-call speed of vmap.

Census (the wave 30 census's programs, every table of red-team and reach programs, 4717 now; a sixteenth
chosen by a hash of the name, crc32 % 16 == 1, each as ``vmap(grad(f))`` and ``vmap(f)`` with the stricter
check; batched / one example at a time / WRONG / bad error / n/a; nothing refused at the user's line): 610
rows, before 342 / 105 / 2 / 0 / 161, after 343 / 106 / 0 / 0 / 161 (the list gradient now one example at a
time and a list, the adjoint list's zero item batched and right; the sample's np.interp rows have each
example's own table, still one example at a time; two rows that timed out on a loaded machine re-run:
batched and right).  The
wave 30 count (every row, without the dtype check): 5172 / 1973 / 5 / 0 / 1821; its 5 WRONG rows are
batched or one example at a time now, and right (test_the_wave30_census_rows_are_right), and
test_vmap30.py's wide census asserts no WRONG (its OPEN set is gone) for vmap(f) rows too.

Found and fixed:

1. WRONG (silently, batched): a loop carrying a Python number into float32 values (``nll = 0.0`` then
   ``nll = nll + np.log(S)``, a Kalman filter's likelihood, a running sum or product, an int counter, a
   number becoming a row) gave float64 rows where one example gives float32 (NumPy converts a Python
   number to the array's dtype; the rows of the number broadcast before the loop were float64, so every
   row was computed in float64; a gradient too, and value_and_grad's value): the rows start in the dtype
   one example's run shows the carried value has (driver/batched.py's probe, ad/batching_dtypes.py).
2. WRONG (silently, batched, a wrong shape): an item of a gradient's adjoint list that no contribution
   reaches holds zero rows shaped like the primal item, where the unbatched code holds the number 0.0
   (``[_step(x0, a), (x0, a * a)]`` read back in part): an elementwise result of it was given the number's
   axes (``t23[:, None]``), so NumPy paired the batch axis with a row's axis ((3, 3, 3) for (3, 3)).  The
   axes of such results are asked when run (ad/batching_rules.py `elementwise`, `Batching.unsure`).
3. WRONG structure (the path one example at a time): a gradient that is a list or tuple of numbers (of a
   list argument, zipped pairs, stencil weights) came back as one array stacking the examples' lists;
   it is a list (tuple) of per-example-stacked arrays, as the unbatched gradient's structure and the
   batched path give it; vmap(f) of a function returning a list, run one example at a time, too
   (api/vmap_examples.py `stack_examples`).
4. One example at a time before, now batched: value_and_grad of a function of a tree (a dict of
   parameters: vmap29's mlp_dict, vmap30's mixture, dict_weights here), the value beside the rebuilt
   gradients (FlatCall.rebuilt_valued); np.interp (and its slope) of each example's points in a table the
   same for every example (batching kind "pointwise"); np.tensordot with either operand or both batched
   (ad/batching_moves.py `tensordot`), in vmap(f), grad and value_and_grad, at batches as long as an axis.

Speed (issue 26): a call like the last batched one runs its plan directly (api/vmap_fast.py): the full
path's binding, tree checks and kinds took about 25 us a call, now about 6.  vmap(grad) over one gradient of
the summed batch loss, the full path against the short one interleaved in one process (CPU clock, 9 rounds,
a loaded machine): benchmarks/batching.py's MLP 32-64-10 at 256: 2.37 -> 2.19; held out, not tuned on: a
ReLU MLP 20-50-3 at 512 w.r.t. W2 3.63 -> 3.28 and W1 4.56 -> 4.05, a softplus/tanh MLP 16-24-8 at 128
3.34 -> 2.65, a logistic regression d=100 at 1024 3.14 -> 3.18 (noise: large arrays).  benchmarks/batching.py
(--clock cpu --rounds 5, before and after run side by side on the loaded machine): its row 2.47 -> 2.20
(2.16 recorded before on a quieter one), over JAX-jit's vmap 2.13 -> 1.53.  What remains is the
per-example outer product itself: 256 x 32 x 64 numbers written (np.einsum 'bi,bj->bij', about 230 us,
the fastest NumPy spelling measured: a broadcast multiply 340-390, a stack of k=1 matmuls 640, chunks 265),
against one gradient of the whole batch at about 200 us.

Still one example at a time (correct, warned): vmap(grad(f)) of a function of a list or tuple of numbers
(the gradient of a function taking a tree of numbers: FlatCall.batchable), and value_and_grad of one;
has_aux; np.interp with each example's own table of values (and interp's adjoint in the values, a sum over
each row's points); loops whose count differs between examples; np.linalg.lstsq, np.convolve, np.pad,
np.kron, np.all; masked values read otherwise than elementwise.
"""

from __future__ import annotations

import importlib
import warnings
import zlib

import numpy as np
import pytest

import srcdiff

from . import corpus
from . import wave31v_programs as programs
from .vmap_checks import BATCHED, PER_EXAMPLE, census_outcome, example, stacked_examples, values_outcome

N = programs.N
#: (program, value_and_grad) run one example at a time: the gradient of a function of a tree of numbers
#: (zipped pairs; a list or tuple of numbers is batched since wave 32e, as the function of its leaves)
PER = {("zipped_pairs", valued) for valued in (False, True)}
#: (program, maker, how, wrt) run one example at a time: none since wave 32e (interp's adjoint in its values and
#: a table each example has its own run row by row inside the batched code, test_wave32e.py)
PER_INTERP: set = set()

ROWS = [(f, make, wrt, size, how) for f, make, wrts in programs.PROGRAMS for size in (1, 3)
        for wrt, how in [(None, "values")] + [(w, h) for w in wrts for h in ("grad", "value_and_grad")]]
KEPT = {("kalman_nll", "values"), ("interp_curve", "grad"), ("contract_pairs", "grad"),
        ("stencil_list", "grad"), ("list_of_calls", "grad"), ("vector_carry", "grad")}


def _id(row):
    f, _, wrt, size, how = row
    return f"{f.__name__}-{how}" + ("" if wrt is None else f"-wrt{wrt}") + f"-B{size}"


@pytest.mark.parametrize("row", [corpus.slow_unless((r[0].__name__, r[4]) in KEPT and r[3] == 3, r) for r in ROWS],
                         ids=_id)
def test_batched_or_per_example_like_the_loop(row):
    f, make, wrt, size, how = row
    args, axes = make(np.random.default_rng(size + len(f.__name__)), size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        outcome, why = values_outcome(f, args, axes, size) if how == "values" else \
            census_outcome(f, wrt, args, axes, size, valued=how == "value_and_grad")
    per = (how != "values" and (f.__name__, how == "value_and_grad") in PER) or \
        (f.__name__, make.__name__, how, wrt) in PER_INTERP
    assert outcome == (PER_EXAMPLE if per else BATCHED), why


@pytest.mark.parametrize("f", [corpus.slow_unless(f is programs.kalman_nll, f) for f, _, _ in programs.FLOAT32],
                         ids=lambda f: f.__name__)
def test_float32_in_float32_out(f):
    make = next(m for g, m, _ in programs.FLOAT32 if g is f)
    args, axes = make(np.random.default_rng(7), 5)
    for g in (f, srcdiff.grad(f, wrt=1), srcdiff.value_and_grad(f, wrt=1)):
        got = srcdiff.vmap(g, in_axes=axes, per_example="refuse")(*args)
        want = [g(*example(args, axes, i)) for i in range(5)]
        for k, part in enumerate(got if isinstance(got, tuple) else (got,)):
            one = [w[k] if isinstance(got, tuple) else w for w in want]
            assert part.dtype == np.float32 and all(np.asarray(w).dtype == np.float32 for w in one)
            np.testing.assert_allclose(part, np.stack(one), rtol=1e-5, atol=1e-6)


def test_a_float64_loop_keeps_float64_and_a_numpy_start_keeps_its_dtype():
    """The rows start in the carried value's dtype only where it starts as a Python number."""
    def started_float64(w, x):
        acc = np.float64(0.0)
        for k in range(3):
            acc = acc + np.sum(x * w) * k
        return acc

    w, X = np.ones(4, np.float32), np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    for f in (started_float64, programs.running_sum):
        got = srcdiff.vmap(f, in_axes=(None, 0), per_example="refuse")(w, X)
        assert got.dtype == np.asarray(f(w, X[0])).dtype
    assert srcdiff.vmap(programs.running_sum, in_axes=(None, 0))(w.astype(float), X.astype(float)).dtype == float


def test_per_example_lists_are_lists_of_stacked_rows():
    """A while loop whose count differs between examples runs one example at a time; its list result and
    the gradient of a list of numbers come back as lists of the examples' stacked values."""
    def until_large(x):
        s = 0.0
        while s < 3.0:
            s = s + np.sum(x * x)
        return [s, s * 2.0]

    X = np.random.default_rng(2).normal(size=(4, 3))
    mapped = srcdiff.vmap(until_large, per_example="allow")
    got = mapped(X)
    assert mapped.per_example is not None and type(got) is list and len(got) == 2
    np.testing.assert_allclose(got[1], [until_large(x)[1] for x in X], rtol=1e-12)
    grads = srcdiff.vmap(srcdiff.grad(programs.zipped_pairs, wrt=1), in_axes=(0, None), per_example="allow")(
        X[:, :3], [(0.5, 0.7), (1.1, 0.2), (0.3, 0.4)])
    assert type(grads) is list and all(type(p) is tuple and np.shape(p[0]) == (4,) for p in grads)


WAVE30_WRONG = {"w11_float32_kalman_scalar": "redteam_wave11_idioms", "ma_float32_springs": "redteam_wave29a_materials",
                "zip_tree_pairs_list": "reach28_programs", "tuple_list_literal_of_calls": "reach9_programs",
                "weights_list_w": "stencil_redteam_programs"}


def _census_row(name: str):
    module = importlib.import_module(f"{__package__}.{WAVE30_WRONG[name]}")
    return next(r for table in vars(module).values() if isinstance(table, list) for r in table
                if isinstance(r, tuple) and len(r) == 4 and r[0] == name)


@pytest.mark.parametrize("name", [corpus.slow_unless(n in ("weights_list_w", "w11_float32_kalman_scalar"), n)
                                  for n in sorted(WAVE30_WRONG)])
def test_the_wave30_census_rows_are_right(name):
    _, f, make, wrt = _census_row(name)
    args, axes = stacked_examples(make, 3, zlib.crc32(name.encode()) % 10000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = [values_outcome(f, args, axes, 3)] + [census_outcome(f, wrt, args, axes, 3, valued=v)
                                                         for v in (False, True)]
    assert all(o in (BATCHED, PER_EXAMPLE) for o, _ in outcomes), outcomes


def test_a_call_like_the_last_batched_one_takes_the_short_path_and_checks_what_the_full_path_checks():
    """Speed: a call of arrays like the last batched one runs its plan directly (api/vmap_fast.py); batched
    arguments of other lengths, an empty batch, other shapes and a list still meet the full path."""
    f = srcdiff.grad(programs.running_sum, wrt=0)
    mapped = srcdiff.vmap(f, in_axes=(None, 0), per_example="refuse")
    rng = np.random.default_rng(3)
    w, X = rng.normal(size=N), rng.normal(size=(5, N))
    for _ in range(2):
        np.testing.assert_allclose(mapped(w, X), [f(w, x) for x in X], rtol=1e-12)
    assert mapped._fast is not None and mapped._fast.ready((w, X), mapped._plan)
    np.testing.assert_allclose(mapped(w, X[:2]), [f(w, x) for x in X[:2]], rtol=1e-12)  # (another batch size)
    with pytest.raises(srcdiff.SrcDiffError, match="a batch of no examples"):
        mapped(w, X[:0])
    np.testing.assert_allclose(mapped(w, X.tolist()), [f(w, x) for x in X], rtol=1e-12)
    two = srcdiff.vmap(srcdiff.grad(programs.list_of_calls, wrt=1), in_axes=(0, 0), per_example="refuse")
    a = np.array([0.6, 0.7, 0.8])
    two(a, X[:3, :3])
    with pytest.raises(srcdiff.SrcDiffError, match="different sizes"):
        two(a, X[:, :3])

