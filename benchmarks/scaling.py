"""Rows per second of one logistic-regression gradient: NumPy in one process, Dask's threads,
and a 2-worker local cluster (processes, loopback), on the same 4-feature data.

Run:  python benchmarks/scaling.py [--rows 8000000] [--chunk 500000]
      python benchmarks/scaling.py --versus-hand   # srcdiff's Dask gradient over a hand-written one

NumPy holds the whole dataset in memory (generated before timing).  Two of the Dask runs
generate it chunk by chunk inside the timed computation, as a dataset larger than memory
would be read, so their numbers include making the data; the last keeps it in the
workers' memory (``persist``) and times the gradient alone.  docs/scaling.md quotes a run.
"""

import argparse
import statistics
import time

import dask
import dask.array as da
import distributed
import numpy as np

import srcdiff

FEATURES = 4


def logistic_loss(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def block(index, rows):
    rng = np.random.default_rng([11, int(np.ravel(index)[0])])
    X = rng.standard_normal((rows, FEATURES))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.standard_normal(rows) > 0).astype(float)
    return np.column_stack([X, y])


def lazy(rows, chunk):
    data = da.arange(rows // chunk, chunks=1).map_blocks(block, chunk, new_axis=1, dtype=float,
                                                         chunks=(chunk, FEATURES + 1))
    return data[:, :FEATURES], data[:, FEATURES]


def best_of(run, repeats=3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def hand_gradient(w, b, X, y):
    """The logistic loss's gradient written by hand, for NumPy and Dask alike."""
    z = X @ w + b
    r = (1.0 / (1.0 + np.exp(-z)) - y) / y.shape[0]
    return X.T @ r, r.sum()


def versus_hand(rows=1_000_000, chunk=250_000, rounds=9) -> float:
    """srcdiff's Dask gradient over the hand-written one's, on data in memory: the median over
    interleaved rounds of the ratio of CPU times (Dask's synchronous scheduler, one thread, so
    the CPU clock leaves out other processes' work on a shared machine)."""
    gradient = srcdiff.grad(logistic_loss, wrt=("w", "b"))
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((rows, FEATURES)), (rng.random(rows) > 0.5).astype(float)
    w, b = rng.standard_normal(FEATURES) * 0.1, -0.2
    dX, dy = da.from_array(X, chunks=(chunk, FEATURES)), da.from_array(y, chunks=chunk)
    ratios = []
    with dask.config.set(scheduler="synchronous"):
        mine, hand = dask.compute(*gradient(w, b, dX, dy)), dask.compute(*hand_gradient(w, b, dX, dy))
        np.testing.assert_allclose(mine[0], hand[0], rtol=1e-10, atol=1e-14)
        for _ in range(rounds):
            start = time.process_time()
            dask.compute(*gradient(w, b, dX, dy))
            mine = time.process_time() - start
            start = time.process_time()
            dask.compute(*hand_gradient(w, b, dX, dy))
            ratios.append(mine / (time.process_time() - start))
    return statistics.median(ratios)


def main(rows=8_000_000, chunk=500_000):
    gradient = srcdiff.grad(logistic_loss, wrt=("w", "b"))
    w, b = np.array([0.2, -0.1, 0.3, 0.05]), -0.2
    data = np.concatenate([block(i, chunk) for i in range(rows // chunk)])
    X, y = np.ascontiguousarray(data[:, :FEATURES]), data[:, FEATURES].copy()
    numpy_time = best_of(lambda: gradient(w, b, X, y))
    results = {"NumPy, one process (data in memory)": numpy_time}
    dX, dy = lazy(rows, chunk)
    with dask.config.set(scheduler="threads", num_workers=2):
        results["Dask threads, 2 (data made in chunks)"] = best_of(lambda: dask.compute(*gradient(w, b, dX, dy)))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        results["local cluster, 2 worker processes (data made in chunks)"] = \
            best_of(lambda: dask.compute(*gradient(w, b, dX, dy)))
        kept = dask.persist(dX, dy)  # the data made once, kept in the workers' memory
        results["local cluster, 2 worker processes (data in workers)"] = \
            best_of(lambda: dask.compute(*gradient(w, b, *kept)))
    print(f"{rows:,} rows x {FEATURES} features, chunks of {chunk:,} rows")
    for name, seconds in results.items():
        print(f"{name:58s} {seconds:7.3f} s   {rows / seconds / 1e6:6.2f} M rows/s"
              f"   {seconds / numpy_time:5.1f}x NumPy's time")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--chunk", type=int, default=500_000)
    parser.add_argument("--versus-hand", action="store_true",
                        help="only srcdiff's Dask gradient over a hand-written Dask gradient (1e6 rows, 4 chunks)")
    options = parser.parse_args()
    if options.versus_hand:
        print(f"srcdiff's Dask gradient / a hand-written Dask gradient: {versus_hand():.2f}")
    else:
        main(options.rows, options.chunk)
