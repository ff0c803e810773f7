"""A gradient computed on a cluster: 2 worker processes on this machine (loopback only).

The data (2,000,000 rows) is generated lazily in chunks on the workers; the driver only
builds the graph of srcdiff's generated gradient and gathers the few numbers of the
result.  The reference is the hand-written logistic-regression gradient in NumPy on the
same data, gathered to the driver for this check only.
"""

import numpy as np
import pytest

import srcdiff

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pytest.importorskip("array_api_compat")

ROWS, FEATURES, CHUNK = 2_000_000, 4, 250_000


def logistic_loss(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def _block(index) -> np.ndarray:
    """Chunk `index` of the data, [X | y], made from its own seed: the workers make it where
    it is used, and the driver can make the very same numbers for the reference."""
    rng = np.random.default_rng([7, int(np.ravel(index)[0])])
    X = rng.normal(size=(CHUNK, FEATURES))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 + rng.logistic(size=CHUNK) > 0).astype(float)
    return np.column_stack([X, y])


def _data():
    """X (ROWS x FEATURES) and 0/1 labels y, as Dask arrays generated chunk by chunk."""
    blocks = da.arange(ROWS // CHUNK, chunks=1)
    data = blocks.map_blocks(_block, chunks=(CHUNK, FEATURES + 1), new_axis=1, dtype=float)
    return data[:, :FEATURES], data[:, FEATURES]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, worker_dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


def test_logistic_gradient_on_a_two_worker_cluster_matches_numpy(client):
    X, y = _data()
    w, b = np.array([0.2, -0.1, 0.3, 0.05]), -0.2
    gradient = srcdiff.grad(logistic_loss, wrt=("w", "b"))
    dw, db = gradient(w, b, X, y)
    assert isinstance(dw, da.Array) and isinstance(db, da.Array)  # lazy until computed
    dw, db = dask.compute(dw, db)  # one compute, on the workers
    assert len(client.scheduler_info()["workers"]) == 2

    data = np.concatenate([_block(i) for i in range(ROWS // CHUNK)])  # the same data, made here
    Xn, yn = data[:, :FEATURES], data[:, FEATURES]
    p = 1.0 / (1.0 + np.exp(-(Xn @ w + b)))
    np.testing.assert_allclose(dw, Xn.T @ (p - yn) / ROWS, rtol=1e-10)
    np.testing.assert_allclose(db, np.mean(p - yn), rtol=1e-10)
    numpy_dw, numpy_db = gradient(w, b, Xn, yn)  # srcdiff's NumPy variant agrees too
    np.testing.assert_allclose(dw, numpy_dw, rtol=1e-10)
    np.testing.assert_allclose(db, numpy_db, rtol=1e-10)
