"""Linear regression on a dataset larger than this script may hold in memory, with Dask.

The rows are generated lazily, chunk by chunk, from one seed per chunk: the whole dataset
never exists at once.  srcdiff differentiates the mean squared error once; called with
Dask arrays, its gradient is the same generated code with ``np`` bound to Dask's
namespace, so it returns lazy Dask arrays.  Each step of gradient descent is one pass over
the data: one ``dask.compute`` of the loss and its gradient, with Dask's progress bar;
only one chunk per thread (and its few intermediates) is in memory at a time.  The
script prints the coefficients found and its own peak memory, next to the dataset's size.

Run:  python examples/dask_regression.py          (needs pip install "srcdiff[dask]")
"""

import contextlib
import resource
import sys

import dask
import dask.array as da
import numpy as np
from dask.diagnostics import ProgressBar

import srcdiff

TRUE_W = np.array([1.5, -2.0, 0.5, 3.0])
TRUE_B = 0.7
#: what this script means to stay under; the default dataset is about twice as large
MEMORY_BUDGET_MB = 256


def mse(w, b, X, y):
    """Mean squared error of the linear model."""
    return np.mean((X @ w + b - y) ** 2)


def make_chunk(index, rows):
    """Rows [X | y] of chunk `index`, from a seed of its own (the same numbers every time)."""
    rng = np.random.default_rng([2026, int(np.ravel(index)[0])])
    X = rng.standard_normal((rows, TRUE_W.size))
    y = X @ TRUE_W + TRUE_B + 0.1 * rng.standard_normal(rows)
    return np.column_stack([X, y])


def lazy_dataset(n_chunks, rows_per_chunk):
    """X and y as Dask arrays of `n_chunks` chunks, made only when a computation needs them."""
    data = da.arange(n_chunks, chunks=1).map_blocks(make_chunk, rows_per_chunk, new_axis=1, dtype=float,
                                                    chunks=(rows_per_chunk, TRUE_W.size + 1))
    return data[:, :-1], data[:, -1]


def fit(X, y, steps=4, learning_rate=0.5, progress=True):
    """Gradient descent on `mse`: each step one pass over the data (one ``dask.compute``)."""
    loss_and_grad = srcdiff.value_and_grad(mse, wrt=("w", "b"))
    w, b = np.zeros(X.shape[1]), 0.0
    for step in range(steps):
        loss, (dw, db) = loss_and_grad(w, b, X, y)  # lazy: a graph, nothing computed yet
        with ProgressBar(out=sys.stdout) if progress else contextlib.nullcontext():
            loss, dw, db = dask.compute(loss, dw, db)  # chunk by chunk, on `workers` threads
        print(f"step {step}: loss {loss:.5f}")
        w, b = w - learning_rate * dw, b - learning_rate * float(db)
    return w, b, loss_and_grad


def peak_memory_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports kB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def main(n_chunks=48, rows_per_chunk=250_000, workers=2, steps=3, progress=True):
    """Fit; return (w, b, peak memory in MB, dataset size in MB) so a test can check them."""
    X, y = lazy_dataset(n_chunks, rows_per_chunk)
    size_mb = (X.size + y.size) * 8 / 2**20
    print(f"dataset: {X.shape[0]:,} rows x {X.shape[1]} features + target = {size_mb:,.0f} MB, "
          f"in {n_chunks} chunks, generated lazily")
    with dask.config.set(scheduler="threads", num_workers=workers):
        w, b, dloss = fit(X, y, steps, progress=progress)
    print("the gradient's code on Dask arrays:")
    print(dloss.source)
    print(f"fitted w = {np.round(w, 3)}, b = {b:.3f}   (true w = {TRUE_W}, b = {TRUE_B})")
    peak = peak_memory_mb()
    print(f"peak memory of this process: {peak:,.0f} MB (the dataset is {size_mb:,.0f} MB, "
          f"the budget {MEMORY_BUDGET_MB} MB)")
    return w, b, peak, size_mb


if __name__ == "__main__":
    main()
