"""Wave 29's masked values under srcdiff.vmap (test_vmap29_census.py): each example's own number of
items picked by a mask, then combined and reduced.  `BATCHED` are summed (or averaged, or counted with
``np.size(x[m])``) after elementwise operations, which vmap batches as masked rows
(ad/batching_masks.py); `PER_EXAMPLE` read the masked value otherwise (a product, a maximum, a sort, a
slice, a loop, a test of it), which runs one example at a time.  Every example's rows hold a positive
item above 0.5 and a negative one, so no mask is empty."""

from __future__ import annotations

import numpy as np


def args(r, b):
    x = r.normal(size=(b, 4))
    x[:, 0], x[:, 1] = 1.0, -1.0
    return (r.normal(size=4), x), (None, 0)


def sum_of_positives(w, x):
    return np.sum(x[x > 0]) * w[0]


def masked_products(w, x):
    return np.sum(x[x > 0] * w[x > 0])


def masked_exp(w, x):
    return np.sum(np.exp(x[x > 0.2] * w[0])) + np.sum(w ** 2)


def masked_mean_of_squares(w, x):
    return np.mean(x[x > -0.3] ** 2) * np.sum(w)


def mask_of_two_tests(w, x):
    m = (x > 0) & (w > -5.0)
    return np.sum((x[m] - w[0]) ** 2 * w[m])


def two_masked_sums(w, x):
    return np.sum(x[x > 0] ** 2) / np.sum(np.abs(x[x > -2.0]))


def mask_of_the_shared_vector(w, x):
    return np.sum(x[x > 0]) * np.sum(w[w > 0] * x[w > 0])


def masked_test_inside(w, x):
    return np.sum(np.where(x[x > 0] > 0.5, x[x > 0], 0.0)) * w[0]


def masked_product_by_matmul(w, x):
    return x[x > 0] @ w[x > 0]


def masked_maximum(w, x):
    return np.max(x[x > 0] * w[x > 0])


def masked_sorted(w, x):
    return np.sum(np.sort(x[x > 0]) * w[0])


def masked_head(w, x):
    return np.sum(x[x > 0][:1]) * w[1]


def masked_in_a_loop(w, x):
    s = x[x > 0]
    for _ in range(2):
        s = s * w[0]
    return np.sum(s)


def masked_count(w, x):
    return np.sum(x[x > 0]) + np.size(x[x > 0]) * w[0]


BATCHED = [sum_of_positives, masked_products, masked_exp, masked_mean_of_squares, mask_of_two_tests, two_masked_sums,
           mask_of_the_shared_vector, masked_count]
PER_EXAMPLE = [masked_test_inside, masked_product_by_matmul, masked_maximum, masked_sorted, masked_head,
               masked_in_a_loop]
