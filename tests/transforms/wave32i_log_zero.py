"""Wave 32i: log-space programs that meet log 0 (-inf), whose gradient is finite (test_wave32i.py runs
them through every transformation against float64 central differences).

A state a log-space recursion cannot reach yet holds -inf; a masked attention logit is -inf.  The
derivative of ``np.logaddexp(-inf, -inf)`` (and of a log-sum-exp over a row of -inf) is a share that
multiplies an adjoint of 0 there (nothing downstream reads what cannot be reached): it must be finite."""

from __future__ import annotations

import numpy as np
import scipy.special as sc

RNG = np.random.default_rng(3209)
LABELS = (1, 2, 1)


def _extended(labels):
    ext = [0]
    for lab in labels:
        ext += [lab, 0]
    return ext


def ctc_full(logits, labels=LABELS):
    """CTC's forward recursion with its skip transition, by np.logaddexp item by item."""
    logp = logits - sc.logsumexp(logits, axis=1, keepdims=True)
    ext = _extended(labels)
    S = len(ext)
    alpha = np.full(S, -np.inf)
    alpha[0] = logp[0, ext[0]]
    alpha[1] = logp[0, ext[1]]
    for t in range(1, logits.shape[0]):
        new = np.full(S, -np.inf)
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp(a, alpha[s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[s - 2])
            new[s] = a + logp[t, ext[s]]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


def ctc_vectorised(logits, labels=LABELS):
    """CTC with shifted copies of alpha (-inf shifted in) and np.logaddexp of whole vectors."""
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    ext = np.array(_extended(labels))
    alpha = np.concatenate([logp[0, ext[:2]], np.full(len(ext) - 2, -np.inf)])
    for t in range(1, logits.shape[0]):
        prev = np.concatenate([np.array([-np.inf]), alpha[:-1]])
        alpha = np.logaddexp(alpha, prev) + logp[t, ext]
    return -np.logaddexp(alpha[-1], alpha[-2])


def ctc_log2(logits, labels=LABELS):
    """CTC in base 2: np.logaddexp2 of unreachable states (log2 0 = -inf)."""
    logp = (logits - sc.logsumexp(logits, axis=1, keepdims=True)) * 1.4426950408889634
    ext = _extended(labels)
    S = len(ext)
    alpha = np.full(S, -np.inf)
    alpha[0] = logp[0, ext[0]]
    alpha[1] = logp[0, ext[1]]
    for t in range(1, logits.shape[0]):
        new = np.full(S, -np.inf)
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp2(a, alpha[s - 1])
            new[s] = a + logp[t, ext[s]]
        alpha = new
    return -np.logaddexp2(alpha[-1], alpha[-2])


#: a left-to-right HMM: log 0 below the diagonal and past the next state
LOG_TRANS = np.full((4, 4), -np.inf)
LOG_TRANS[[0, 0, 1, 1, 2, 2, 3], [0, 1, 1, 2, 2, 3, 3]] = np.log([0.6, 0.4, 0.7, 0.3, 0.8, 0.2, 1.0])
LOG_START = np.array([0.0, -np.inf, -np.inf, -np.inf])


def hmm_logsumexp(emissions, log_trans=LOG_TRANS, log_start=LOG_START):
    """The HMM forward algorithm by scipy's logsumexp over a column that is all -inf at first."""
    alpha = log_start + emissions[0]
    for t in range(1, emissions.shape[0]):
        alpha = sc.logsumexp(alpha[:, None] + log_trans, axis=0) + emissions[t]
    return sc.logsumexp(alpha)


def hmm_reduce(emissions, log_trans=LOG_TRANS, log_start=LOG_START):
    """The same by np.logaddexp.reduce."""
    alpha = log_start + emissions[0]
    for t in range(1, emissions.shape[0]):
        alpha = np.logaddexp.reduce(alpha[:, None] + log_trans, axis=0) + emissions[t]
    return np.logaddexp.reduce(alpha)


def hmm_by_hand(emissions, log_trans=LOG_TRANS, log_start=LOG_START):
    """A hand-written logsumexp with its max shift, a non-finite max replaced by 0 (as SciPy's)."""
    alpha = log_start + emissions[0]
    for t in range(1, emissions.shape[0]):
        v = alpha[:, None] + log_trans
        m = np.max(v, axis=0)
        m = np.where(np.isfinite(m), m, 0.0)
        alpha = m + np.log(np.sum(np.exp(v - m), axis=0)) + emissions[t]
    m = np.max(alpha)
    return m + np.log(np.sum(np.exp(alpha - m)))


def hmm_logaddexp_pairs(emissions, log_trans=LOG_TRANS, log_start=LOG_START):
    """The HMM by np.logaddexp of each state's predecessors, a Python loop over states."""
    alpha = log_start + emissions[0]
    for t in range(1, emissions.shape[0]):
        new = []
        for j in range(4):
            acc = alpha[0] + log_trans[0, j]
            for i in range(1, 4):
                acc = np.logaddexp(acc, alpha[i] + log_trans[i, j])
            new.append(acc + emissions[t, j])
        alpha = np.array(new)
    return np.logaddexp.reduce(alpha)


CAUSAL = np.tril(np.ones((4, 4), bool))
V43 = RNG.normal(size=(4, 3))


def attention_softmax(q, k=RNG.normal(size=(4, 3)), v=V43, mask=CAUSAL):  # noqa: B008
    """Causal attention: -inf logits above the diagonal, scipy's softmax."""
    scores = np.where(mask, q @ k.T / np.sqrt(3.0), -np.inf)
    return np.sum((sc.softmax(scores, axis=1) @ v) ** 2)


def attention_by_hand(q, k=RNG.normal(size=(4, 3)), v=V43, mask=CAUSAL):  # noqa: B008
    """The same with a softmax by hand (max shift, exp, divide by the sum)."""
    scores = np.where(mask, q @ k.T / np.sqrt(3.0), -np.inf)
    e = np.exp(scores - np.max(scores, axis=1, keepdims=True))
    return np.sum((e / np.sum(e, axis=1, keepdims=True) @ v) ** 2)


def attention_log_softmax(q, k=RNG.normal(size=(4, 3)), target=np.array([0, 1, 1, 2])):  # noqa: B008
    """Masked log-softmax read at each row's allowed target."""
    scores = np.where(CAUSAL, q @ k.T, -np.inf)
    logp = sc.log_softmax(scores, axis=1)
    return -np.sum(logp[np.arange(4), target])


def attention_logsumexp(q, k=RNG.normal(size=(4, 3)), target=np.array([0, 1, 1, 2])):  # noqa: B008
    """The same by logits - logsumexp (keepdims)."""
    scores = np.where(CAUSAL, q @ k.T, -np.inf)
    logp = scores - sc.logsumexp(scores, axis=1, keepdims=True)
    return -np.sum(logp[np.arange(4), target])


ONE_LEFT = np.array([False, False, True, False, False])


def logsumexp_one_finite(x, keep=ONE_LEFT):
    """logsumexp of a row all -inf but one: the derivative is 1 there and 0 elsewhere."""
    return sc.logsumexp(np.where(keep, x, -np.inf)) ** 2 + np.sum(x) * 0.1


def reduce_one_finite(x, keep=ONE_LEFT):
    return np.logaddexp.reduce(np.where(keep, x, -np.inf)) ** 2 + np.sum(x) * 0.1


def all_masked_row_beside(x, mask=np.array([[True, True, False], [False, False, False]])):  # noqa: B008
    """A row of all -inf (log 0: its logsumexp is -inf) added in log space to a finite one."""
    z = np.where(mask, x, -np.inf)
    rows = sc.logsumexp(z, axis=1)
    return np.logaddexp(rows[0], rows[1]) + np.logaddexp.reduce(z, axis=1)[0]


def both_log_zero_scalar(x):
    """np.logaddexp of two log 0 numbers, then of that and x: the derivative is 1."""
    nothing = np.logaddexp(-np.inf, -np.inf)
    return np.logaddexp(nothing, x) * 2.0 + np.logaddexp2(nothing, x)


def _a(shape, scale=0.7):
    return lambda rng: (scale * rng.normal(size=shape),)


PROGRAMS = [
    ("ctc_full", ctc_full, _a((6, 3)), 0),
    ("ctc_vectorised", ctc_vectorised, _a((6, 3)), 0),
    ("ctc_log2", ctc_log2, _a((6, 3)), 0),
    ("hmm_logsumexp", hmm_logsumexp, _a((5, 4)), 0),
    ("hmm_reduce", hmm_reduce, _a((5, 4)), 0),
    ("hmm_by_hand", hmm_by_hand, _a((5, 4)), 0),
    ("hmm_logaddexp_pairs", hmm_logaddexp_pairs, _a((4, 4)), 0),
    ("attention_softmax", attention_softmax, _a((4, 3)), 0),
    ("attention_by_hand", attention_by_hand, _a((4, 3)), 0),
    ("attention_log_softmax", attention_log_softmax, _a((4, 3)), 0),
    ("attention_logsumexp", attention_logsumexp, _a((4, 3)), 0),
    ("logsumexp_one_finite", logsumexp_one_finite, _a((5,)), 0),
    ("reduce_one_finite", reduce_one_finite, _a((5,)), 0),
    ("all_masked_row_beside", all_masked_row_beside, _a((2, 3)), 0),
    ("both_log_zero_scalar", both_log_zero_scalar, lambda rng: (0.3,), 0),
]


# ---- found on the way (not log 0): items of a value read in a loop by its counter ----

def divided_by_log_two(logits):
    """An array divided by ``np.log(2.0)`` whose items a loop reads (the Hessian was wrong but at the
    last item: the use mask of ``logp[t]`` was computed after the loop, from t's last value)."""
    logp = logits / np.log(2.0)
    alpha = np.full(3, -5.0)
    alpha[0] = logp[0, 0]
    for t in range(1, logits.shape[0]):
        new = np.full(3, -5.0)
        for s in range(3):
            new[s] = alpha[s] * 0.3 + alpha[s - 1] * 0.2 + logp[t, s]
        alpha = new
    return alpha[-1] * alpha[-2]


def divided_items_summed(x):
    scaled = x / 0.69
    acc = 0.0
    for t in range(x.shape[0]):
        acc = acc + scaled[t] * scaled[t] * x[t]
    return acc


def roots_read_in_a_loop(x):
    r = np.sqrt(x * x + 1.0)
    acc = 0.0
    for i in range(len(x)):
        acc = acc + r[i] ** 3
    return acc


def magnitudes_read_in_a_while(x):
    a = np.abs(x)
    acc, i = 0.0, 0
    while i < 4:
        acc = acc + a[i] * a[i] * a[i]
        i += 1
    return acc


LOOP_MASKS = [
    ("divided_by_log_two", divided_by_log_two, _a((6, 3), 0.3), 0),
    ("divided_items_summed", divided_items_summed, _a((5,)), 0),
    ("roots_read_in_a_loop", roots_read_in_a_loop, _a((5,)), 0),
    ("magnitudes_read_in_a_while", magnitudes_read_in_a_while, lambda rng: (rng.normal(size=4) + 2.0,), 0),
]
