"""The contenders: srcdiff, the hand-written gradient, and the peers (autograd, JAX,
PyTorch, Tangent), with each problem written idiomatically for each peer, and the
adapters that turn a problem into a gradient callable for each contender.

Every peer library is optional and imported lazily: this module imports with
NumPy alone, and a peer that is not installed reports why (``unavailable()``).

A contender is described by a few small functions (see ``Contender``):

* ``make_grad(problem, module, args)`` returns the gradient callable; ``module``
  is a (possibly freshly imported) ``problems`` module, ``args`` are the
  arguments already converted by ``convert_args``;
* ``convert_args(args, problem)`` turns the NumPy arguments into what the peer
  takes (JAX arrays, torch tensors that require grad);
* ``to_numpy(result)`` turns the gradient back into a tuple of NumPy values;
* ``clear_caches()`` forgets compiled/traced functions, so the first call can be
  measured from scratch.
"""

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

import numpy as np
from peer_pendulum import pendulum_with


def _identity_args(args, problem):
    return args


def _nothing():
    pass


def default_to_numpy(result):
    """A gradient (one value or a tuple) as a tuple of float64 NumPy values."""
    parts = result if isinstance(result, (tuple, list)) else (result,)
    return tuple(np.asarray(part, dtype=np.float64) for part in parts)


@dataclass(frozen=True)
class Contender:
    name: str
    module: str                       # import name, checked by unavailable()
    make_grad: Callable
    convert_args: Callable = _identity_args
    to_numpy: Callable = default_to_numpy
    clear_caches: Callable = _nothing
    tracks_memory: bool = True        # tracemalloc sees its allocations (NumPy-based)
    may_fail: bool = False            # failing on a problem is a known limitation
    needs: str = ""                   # an attribute the module must have ("grad")
    checked: tuple = ()               # problems test_benchmarks checks it on (empty: all)
    compiles: bool = False            # its first call compiles: capped by run.py's --budget

    def unavailable(self):
        """'' when the library imports (with ``needs``), else the reason it does not."""
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError:
            return f"{self.module} not installed (see benchmarks/requirements.txt)"
        except Exception as exc:  # noqa: BLE001  a broken install
            return f"{self.module} not importable: {type(exc).__name__}: {first_line(exc)}"
        if self.needs and not hasattr(module, self.needs):
            return f"{self.module}.{self.needs} does not exist yet"
        return ""

    def version(self):
        module = importlib.import_module(self.module)
        version = getattr(module, "__version__", None)
        if version is None:   # e.g. autograd; tangent's distribution is tangent-ad
            for dist in metadata.packages_distributions().get(self.module, [self.module]):
                version = metadata.version(dist)
        return version


def first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def single_wrt(problem):
    """The ``wrt`` a user would pass: an int for one argument, else the tuple."""
    return problem.wrt[0] if len(problem.wrt) == 1 else problem.wrt


# --------------------------------------------------------------------------
# srcdiff and the hand-written gradient
# --------------------------------------------------------------------------

def hand_grad(problem, module, args):
    return getattr(module, problem.grad)


def srcdiff_grad(problem, module, args):
    import srcdiff

    return srcdiff.grad(getattr(module, problem.func), wrt=single_wrt(problem))


def srcdiff_clear_caches():
    """srcdiff caches per function object; fresh modules already defeat that."""
    import srcdiff

    clear = getattr(srcdiff, "clear_cache", None)
    if clear is not None:
        clear()


# --------------------------------------------------------------------------
# autograd and JAX: the NumPy API, under autograd.numpy or jax.numpy
# --------------------------------------------------------------------------

def numpy_api_versions(xnp):
    """The problems written against ``xnp`` (``autograd.numpy`` or ``jax.numpy``)."""

    def poly(x, y):
        return x * x * y + 3.0 * xnp.sin(x) * y - xnp.exp(x * y) + 2.0 * y ** 3

    def scalar_loop(x, a, n):
        s = x
        total = 0.0
        for _ in range(n):
            s = 0.9 * s + a * xnp.sin(s)
            total = total + s * s
        return total

    def rosenbrock(x):
        return xnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def mse(w, b, X, y):
        return ((X @ w + b - y) ** 2).mean()

    def logistic(w, b, X, y):
        z = X @ w + b
        return xnp.mean(xnp.logaddexp(0.0, z) - y * z)

    def mlp(W1, b1, W2, b2, X, Y):
        h = xnp.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        z = z - xnp.max(z, axis=1, keepdims=True)
        logp = z - xnp.log(xnp.sum(xnp.exp(z), axis=1, keepdims=True))
        return -xnp.sum(Y * logp) / X.shape[0]

    def rnn(Wx, Wh, b, xs, h0, target):
        h = h0
        for t in range(xs.shape[0]):
            h = xnp.tanh(xs[t] @ Wx + h @ Wh + b)
        return xnp.mean((h - target) ** 2)

    def rhs(y, k):
        return k * xnp.sin(y) - 0.5 * y * y

    def rk4(y0, k, dt, steps):
        y = y0
        for _ in range(steps):
            k1 = rhs(y, k)
            k2 = rhs(y + 0.5 * dt * k1, k)
            k3 = rhs(y + 0.5 * dt * k2, k)
            k4 = rhs(y + dt * k3, k)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return (y * y).sum()

    return {"poly": poly, "scalar_loop": scalar_loop, "rosenbrock": rosenbrock, "mse": mse,
            "logistic": logistic, "mlp": mlp, "rnn": rnn, "rnn_seq": rnn, "rk4": rk4,
            "pendulum": pendulum_with(xnp.sin)}


def autograd_grad(problem, module, args):
    import autograd
    import autograd.numpy as anp

    f = numpy_api_versions(anp)[problem.func]
    return autograd.grad(f, argnum=single_wrt(problem))


def _jax():
    import jax

    jax.config.update("jax_enable_x64", True)
    return jax


def jax_convert_args(args, problem):
    jnp = _jax().numpy
    return tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)


def jax_grad(problem, module, args, jit=False):
    jax = _jax()
    f = numpy_api_versions(jax.numpy)[problem.func]
    df = jax.grad(f, argnums=problem.wrt)
    if jit:
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
        df = jax.jit(df, static_argnums=static)

    def grad_ready(*a):
        return jax.block_until_ready(df(*a))

    return grad_ready


def jax_jit_grad(problem, module, args):
    return jax_grad(problem, module, args, jit=True)


def jax_clear_caches():
    _jax().clear_caches()


# --------------------------------------------------------------------------
# PyTorch (eager, float64)
# --------------------------------------------------------------------------

def _torch():
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # only allowed once, before any parallel work
        pass
    return torch


def torch_versions():
    torch = _torch()
    F = torch.nn.functional

    def poly(x, y):
        return x * x * y + 3.0 * torch.sin(x) * y - torch.exp(x * y) + 2.0 * y ** 3

    def scalar_loop(x, a, n):
        s = x
        total = 0.0
        for _ in range(n):
            s = 0.9 * s + a * torch.sin(s)
            total = total + s * s
        return total

    def rosenbrock(x):
        return torch.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    def mse(w, b, X, y):
        return ((X @ w + b - y) ** 2).mean()

    def logistic(w, b, X, y):
        z = X @ w + b
        return torch.mean(F.softplus(z) - y * z)

    def mlp(W1, b1, W2, b2, X, Y):
        h = torch.tanh(X @ W1 + b1)
        z = h @ W2 + b2
        z = z - torch.amax(z, dim=1, keepdim=True)
        logp = z - torch.log(torch.sum(torch.exp(z), dim=1, keepdim=True))
        return -torch.sum(Y * logp) / X.shape[0]

    def rnn(Wx, Wh, b, xs, h0, target):
        h = h0
        for t in range(xs.shape[0]):
            h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
        return torch.mean((h - target) ** 2)

    def rhs(y, k):
        return k * torch.sin(y) - 0.5 * y * y

    def rk4(y0, k, dt, steps):
        y = y0
        for _ in range(steps):
            k1 = rhs(y, k)
            k2 = rhs(y + 0.5 * dt * k1, k)
            k3 = rhs(y + 0.5 * dt * k2, k)
            k4 = rhs(y + dt * k3, k)
            y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        return (y * y).sum()

    return {"poly": poly, "scalar_loop": scalar_loop, "rosenbrock": rosenbrock, "mse": mse,
            "logistic": logistic, "mlp": mlp, "rnn": rnn, "rnn_seq": rnn, "rk4": rk4,
            "pendulum": pendulum_with(lambda v: torch.sin(torch.as_tensor(v, dtype=torch.float64)))}


def torch_convert_args(args, problem):
    """Arrays and floats become float64 tensors; the ``wrt`` ones require grad."""
    torch = _torch()
    converted = []
    for i, a in enumerate(args):
        if isinstance(a, (np.ndarray, float)):
            a = torch.as_tensor(a, dtype=torch.float64).requires_grad_(i in problem.wrt)
        converted.append(a)
    return tuple(converted)


def torch_grad(problem, module, args):
    torch = _torch()
    f = torch_versions()[problem.func]

    def grad(*a):
        return torch.autograd.grad(f(*a), [a[i] for i in problem.wrt])

    return grad


def torch_to_numpy(result):
    return tuple(np.asarray(part.detach().numpy(), dtype=np.float64) for part in result)


# --------------------------------------------------------------------------
# Tangent (PyPI tangent-ad): source transformation of the user's own function
# --------------------------------------------------------------------------

# Tangent has no adjoints for the ``math`` module; a Tangent user writes the
# scalar problems with NumPy's ufuncs instead.

def tangent_poly(x, y):
    return x * x * y + 3.0 * np.sin(x) * y - np.exp(x * y) + 2.0 * y ** 3


def tangent_scalar_loop(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * np.sin(s)
        total = total + s * s
    return total


TANGENT_VARIANTS = {"poly": tangent_poly, "scalar_loop": tangent_scalar_loop}


def tangent_grad(problem, module, args):
    """Tangent on the user's function; if it refuses, on the np.* variant (noted)."""
    f = getattr(module, problem.func)
    try:
        return _tangent_grad(f, problem.wrt)
    except Exception as exc:  # noqa: BLE001  any refusal: fall back to the variant
        variant = TANGENT_VARIANTS.get(problem.func)
        if variant is None:
            raise
        reason = f"{type(exc).__name__}: {first_line(exc)}"
    df = _tangent_grad(variant, problem.wrt)

    def grad(*a):
        return df(*a)

    grad.note = f"timed the np.* variant; the user's math.* code is refused: {reason}"
    return grad


def _tangent_grad(f, wrt):
    import tangent

    with warnings.catch_warnings():   # its generated code has `if 1 is None:`
        warnings.simplefilter("ignore", SyntaxWarning)
        return tangent.grad(f, wrt=wrt, verbose=0)


def tangent_clear_caches():
    from tangent import function_cache

    function_cache.clear_cache()


# --------------------------------------------------------------------------
# The table of peers
# --------------------------------------------------------------------------

def srcdiff_numba_grad(problem, module, args):
    import srcdiff

    return srcdiff.grad(getattr(module, problem.func), wrt=single_wrt(problem), jit="numba")


HAND = Contender("hand", "numpy", hand_grad)
SRCDIFF = Contender("srcdiff", "srcdiff", srcdiff_grad, clear_caches=srcdiff_clear_caches,
                    needs="grad")
PEERS = [
    Contender("autograd", "autograd", autograd_grad),
    Contender("jax", "jax", jax_grad, jax_convert_args, clear_caches=jax_clear_caches,
              tracks_memory=False),
    Contender("jax-jit", "jax", jax_jit_grad, jax_convert_args,
              clear_caches=jax_clear_caches, tracks_memory=False, compiles=True),
    Contender("torch", "torch", torch_grad, torch_convert_args, torch_to_numpy,
              tracks_memory=False),
    Contender("tangent", "tangent", tangent_grad, clear_caches=tangent_clear_caches,
              may_fail=True),
    # srcdiff's own gradient compiled by numba (jit="numba"); refused outside numba's subset
    Contender("srcdiff-numba", "numba", srcdiff_numba_grad, clear_caches=srcdiff_clear_caches,
              may_fail=True, checked=("poly", "scalar_loop", "rosenbrock_1e3"),  # compiling takes seconds
              compiles=True),
]


CONTENDERS = [HAND, SRCDIFF, *PEERS]   # hand first: it is the reference


def by_name(name):
    for peer in CONTENDERS:
        if peer.name == name:
            return peer
    raise KeyError(name)

