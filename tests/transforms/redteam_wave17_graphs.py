"""The red team's seventeenth wave, continued: graphs, text and recommendations in plain NumPy.  PageRank
by power iteration until a tolerance with a teleport vector, personalised PageRank's dangling nodes, a
graph Laplacian's smoothness x^T L x from an edge list, label propagation with clamped labels, a
two-layer GCN with a symmetric normalisation D^-1/2 (A + I) D^-1/2, graph attention with a -inf mask
of non-edges, a message-passing step by np.add.at over edges, spectral clustering's Rayleigh quotient;
matrix factorisation by user and item index arrays, BPR's pairwise loss over sampled triples, a
factorisation machine's pairwise term by the square-of-sums trick; skip-gram with negative sampling
over (centre, context) index pairs, a bag-of-words logistic regression, a linear-chain CRF's log
partition by the forward recursion and its gold path's score, a character-level RNN over a one-hot
sequence, TF-IDF weights through a count matrix, a bigram language model's perplexity.  See
redteam_wave17.py.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def M(rng, *shape):
    return rng.normal(size=shape)


EDGES = np.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 2], [1, 4]])


def _adjacency(n=5):
    A = np.zeros((n, n))
    A[EDGES[:, 0], EDGES[:, 1]] = 1.0
    A[EDGES[:, 1], EDGES[:, 0]] = 1.0
    return A


# ---- graphs ---------------------------------------------------------------------------------------------


def pagerank_tolerance(weights, damping=0.85, tol=1e-12):
    W = np.exp(weights) * _adjacency()
    P = W / W.sum(axis=0, keepdims=True)
    n = P.shape[0]
    r = np.ones(n) / n
    while True:
        new = damping * P @ r + (1 - damping) / n
        if np.abs(new - r).sum() < tol:
            break
        r = new
    return new @ np.arange(n)


def personalized_pagerank(teleport, iters=60, damping=0.8):
    A = _adjacency()
    A[:, 3] = 0.0  # node 3 is dangling
    out = A.sum(axis=0)
    P = np.divide(A, out, out=np.zeros_like(A), where=out > 0)
    t = np.exp(teleport) / np.sum(np.exp(teleport))
    r = t.copy()
    for _ in range(iters):
        dangling = r[out == 0].sum()
        r = damping * (P @ r + dangling * t) + (1 - damping) * t
    return r[0] - r[4]


def laplacian_smoothness(x, w):
    total = 0.0
    for (i, j), wij in zip(EDGES, w):
        total += wij * (x[i] - x[j]) ** 2
    return total


def label_propagation(logits, clamp_idx=(0, 3), clamp_val=(1.0, -1.0), iters=30):
    A = _adjacency() * np.exp(logits)
    A = 0.5 * (A + A.T)
    D_inv = 1.0 / A.sum(axis=1)
    f = np.zeros(5)
    for _ in range(iters):
        f = D_inv * (A @ f)
        f[list(clamp_idx)] = clamp_val
    return np.sum(f ** 2)


def gcn_two_layer(W1, W2, X, y):
    A_hat = _adjacency() + np.eye(5)
    d = A_hat.sum(axis=1)
    D_inv_sqrt = np.diag(d ** -0.5)
    A_norm = D_inv_sqrt @ A_hat @ D_inv_sqrt
    H = np.maximum(A_norm @ X @ W1, 0.0)
    logits = A_norm @ H @ W2
    return -np.sum(logits[np.arange(5), y] - logsumexp(logits, axis=1))


def graph_attention(W, a, X):
    H = X @ W
    n = H.shape[0]
    scores = (H @ a[:H.shape[1]])[:, None] + (H @ a[H.shape[1]:])[None, :]
    scores = np.where(scores > 0, scores, 0.2 * scores)
    mask = _adjacency() + np.eye(n)
    scores = np.where(mask > 0, scores, -np.inf)
    att = np.exp(scores - scores.max(axis=1, keepdims=True))
    att = att / att.sum(axis=1, keepdims=True)
    return np.sum(np.tanh(att @ H) ** 2)


def message_passing(h, W):
    msgs = np.tanh(h[EDGES[:, 0]] @ W)
    agg = np.zeros_like(h)
    np.add.at(agg, EDGES[:, 1], msgs)
    return np.sum((h + agg) ** 2)


def spectral_rayleigh(v, w):
    L = np.zeros((5, 5))
    for (i, j), wij in zip(EDGES, np.exp(w)):
        L[i, i] += wij
        L[j, j] += wij
        L[i, j] -= wij
        L[j, i] -= wij
    v = v - v.mean()
    return v @ L @ v / (v @ v)


# ---- recommendations ------------------------------------------------------------------------------------


def matrix_factorisation(U, V, users, items, ratings, reg=0.05):
    pred = np.sum(U[users] * V[items], axis=1)
    return np.mean((pred - ratings) ** 2) + reg * (np.sum(U ** 2) + np.sum(V ** 2))


def bpr_loss(U, V, triples):
    u, i, j = triples[:, 0], triples[:, 1], triples[:, 2]
    x = np.sum(U[u] * (V[i] - V[j]), axis=1)
    return -np.sum(np.log(1 / (1 + np.exp(-x))))


def factorization_machine(w0, w, Vf, X):
    linear = w0 + X @ w
    s = X @ Vf
    pair = 0.5 * np.sum(s ** 2 - (X ** 2) @ (Vf ** 2), axis=1)
    return np.sum((linear + pair) ** 2)


# ---- text -----------------------------------------------------------------------------------------------


def skipgram_negative(E_in, E_out, pairs, negatives):
    loss = 0.0
    for (c, o), negs in zip(pairs, negatives):
        v = E_in[c]
        loss -= np.log(1 / (1 + np.exp(-E_out[o] @ v)))
        loss -= np.sum(np.log(1 / (1 + np.exp(E_out[negs] @ v))))
    return loss


def bag_of_words_logreg(w, docs, labels, vocab=6):
    total = 0.0
    for doc, lab in zip(docs, labels):
        counts = np.bincount(doc, minlength=vocab)
        z = counts @ w
        total += np.logaddexp(0.0, -z if lab else z)
    return total


def crf_log_partition(trans, emissions, tags):
    n, k = emissions.shape
    alpha = emissions[0]
    for t in range(1, n):
        alpha = logsumexp(alpha[:, None] + trans, axis=0) + emissions[t]
    log_z = logsumexp(alpha)
    gold = emissions[0, tags[0]]
    for t in range(1, n):
        gold += trans[tags[t - 1], tags[t]] + emissions[t, tags[t]]
    return log_z - gold


def char_rnn(Wxh, Whh, Why, seq, vocab=4):
    h = np.zeros(Whh.shape[0])
    loss = 0.0
    for t in range(len(seq) - 1):
        x = np.zeros(vocab)
        x[seq[t]] = 1.0
        h = np.tanh(Wxh @ x + Whh @ h)
        y = Why @ h
        loss += logsumexp(y) - y[seq[t + 1]]
    return loss


def tfidf_scores(w, counts):
    df = np.count_nonzero(counts, axis=0)
    idf = np.log(counts.shape[0] / df)
    tfidf = counts / counts.sum(axis=1, keepdims=True) * idf
    return np.sum(np.tanh(tfidf @ w) ** 2)


def bigram_perplexity(logits, text):
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    nll = -np.mean([logp[a, b] for a, b in zip(text[:-1], text[1:])])
    return np.exp(nll)


GRAPHS17 = [
    ("w17_pagerank_tolerance", pagerank_tolerance, lambda r: (0.3 * M(r, 5, 5),), 0),
    ("w17_personalized_pagerank", personalized_pagerank, lambda r: (M(r, 5),), 0),
    ("w17_laplacian_smoothness", laplacian_smoothness, lambda r: (M(r, 5), r.uniform(0.5, 2, 7)), 0),
    ("w17_laplacian_weights", laplacian_smoothness, lambda r: (M(r, 5), r.uniform(0.5, 2, 7)), 1),
    ("w17_label_propagation", label_propagation, lambda r: (0.3 * M(r, 5, 5),), 0),
    ("w17_gcn_two_layer", gcn_two_layer, lambda r: (M(r, 3, 4), M(r, 4, 2), M(r, 5, 3), np.array([0, 1, 1, 0, 1])), 0),
    ("w17_graph_attention", graph_attention, lambda r: (M(r, 3, 2), M(r, 4), M(r, 5, 3)), 0),
    ("w17_graph_attention_a", graph_attention, lambda r: (M(r, 3, 2), M(r, 4), M(r, 5, 3)), 1),
    ("w17_message_passing", message_passing, lambda r: (M(r, 5, 3), 0.5 * M(r, 3, 3)), 0),
    ("w17_spectral_rayleigh", spectral_rayleigh, lambda r: (M(r, 5), 0.3 * M(r, 7)), 0),
    ("w17_spectral_weights", spectral_rayleigh, lambda r: (M(r, 5), 0.3 * M(r, 7)), 1),
    ("w17_matrix_factorisation", matrix_factorisation,
     lambda r: (M(r, 4, 2), M(r, 5, 2), np.array([0, 1, 1, 3, 2, 0]), np.array([4, 0, 2, 2, 1, 4]), M(r, 6)), 0),
    ("w17_matrix_factorisation_items", matrix_factorisation,
     lambda r: (M(r, 4, 2), M(r, 5, 2), np.array([0, 1, 1, 3, 2, 0]), np.array([4, 0, 2, 2, 1, 4]), M(r, 6)), 1),
    ("w17_bpr_loss", bpr_loss,
     lambda r: (M(r, 3, 2), M(r, 4, 2), np.array([[0, 1, 2], [1, 3, 0], [2, 1, 3], [0, 1, 3]])), 1),
    ("w17_factorization_machine", factorization_machine, lambda r: (0.1, M(r, 4), M(r, 4, 2), M(r, 5, 4)), 2),
    ("w17_fm_factors", factorization_machine, lambda r: (0.1, M(r, 4), M(r, 4, 2), M(r, 5, 4)), 1),
    ("w17_skipgram_negative", skipgram_negative,
     lambda r: (0.3 * M(r, 6, 3), 0.3 * M(r, 6, 3), [(0, 1), (2, 3), (1, 5)], [np.array([4, 5]), np.array([0, 1]),
                                                                            np.array([2, 2])]), 1),
    ("w17_skipgram_input", skipgram_negative,
     lambda r: (0.3 * M(r, 6, 3), 0.3 * M(r, 6, 3), [(0, 1), (2, 3), (1, 5)], [np.array([4, 5]), np.array([0, 1]),
                                                                            np.array([2, 2])]), 0),
    ("w17_bag_of_words_logreg", bag_of_words_logreg,
     lambda r: (M(r, 6), [np.array([0, 1, 1, 5]), np.array([2, 3]), np.array([4, 4, 4, 0])], [1, 0, 1]), 0),
    ("w17_crf_log_partition", crf_log_partition, lambda r: (M(r, 3, 3), M(r, 5, 3), [0, 2, 1, 1, 0]), 0),
    ("w17_crf_emissions", crf_log_partition, lambda r: (M(r, 3, 3), M(r, 5, 3), [0, 2, 1, 1, 0]), 1),
    ("w17_char_rnn", char_rnn, lambda r: (0.5 * M(r, 3, 4), 0.5 * M(r, 3, 3), 0.5 * M(r, 4, 3), [0, 2, 1, 3, 3, 0]), 1),
    ("w17_tfidf_scores", tfidf_scores, lambda r: (M(r, 4), r.integers(0, 3, (5, 4)).astype(float) + np.eye(5, 4)), 0),
    ("w17_bigram_perplexity", bigram_perplexity, lambda r: (M(r, 4, 4), [0, 1, 3, 2, 1, 1, 0, 3]), 0),
]
