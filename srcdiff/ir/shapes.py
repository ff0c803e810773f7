"""What the code generator may know about a value's shape before it runs.

A gradient is compiled once per *argument signature*: each argument's type, and for arrays
its ``ndim``, dtype kind and which axes have length one.  That is exactly what decides how
an adjoint must be summed back after broadcasting, so a new batch size reuses the compiled
code.  From the signature, every rule's shape function propagates a `Shape` through the
graph; where a shape cannot be known, the generated code falls back to a run-time helper
rather than guess.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

ONE, MANY, UNKNOWN_DIM = "1", "n", "?"  # an axis of length one / of any other length / either


@dataclass(frozen=True)
class Shape:
    """`dims` holds one of ONE, MANY, UNKNOWN_DIM per axis; None when even ndim is unknown.

    `scalar` marks a value that is not an ndarray (a Python or NumPy number), so that rules
    can keep Python floats on the fast `math` path.
    """

    dims: tuple[str, ...] | None
    scalar: bool = False
    none: bool = False  # the constant None: an optional operand left out (np.clip's bounds)
    shape_of: tuple[str, ...] | None = None  # a tuple ``x.shape``: the dims of that x
    #: an int read from a ``x.shape`` (``n = x.shape[0]``): ONE, or MANY for a length that is not 1
    #: (never negative), which a new array ``np.zeros((n, m))`` or a slice ``x[:n]`` inherits
    length: str | None = None
    #: a tuple or list (dims None) every item of which has this shape (`ItemsSignature`): what an
    #: item read by index or by iteration is known to be
    items: Shape | None = None

    @property
    def known(self) -> bool:
        return self.dims is not None

    @property
    def ndim(self) -> int | None:
        return None if self.dims is None else len(self.dims)


def alike(a: Shape, b: Shape) -> bool:
    """Whether `a` and `b` are surely the same shape class: known, equal, and no axis of either length
    (two UNKNOWN_DIM axes may be 1 and 2: ``w[:, k:k + 1]`` against the (n, 2) factor it multiplies).
    Within one broadcast, equal classes mean equal lengths."""
    return a.known and b.known and a == b and UNKNOWN_DIM not in a.dims


UNKNOWN = Shape(None)
SCALAR = Shape((), scalar=True)
ARRAY0 = Shape(())
NONE = Shape(None, none=True)


class ItemsSignature:
    """The signature of a tuple or list whose items all have one signature `item` (Python floats, ints,
    float64 arrays of one ndim and length-one axes): the code may know what an item read from it is.
    Checked on each call, as any signature (the guard reads every item: `MAX_KNOWN_ITEMS` at most).
    One instance per (kind, item) (`items_signature`), so signatures compare by identity: cheap."""

    __slots__ = ("kind", "item")

    def __init__(self, kind: type, item):
        self.kind = kind  # tuple or list
        self.item = item

    def __repr__(self):
        return f"ItemsSignature({self.kind.__name__}, {self.item!r})"


_INTERNED: dict = {}


def items_signature(kind: type, item) -> ItemsSignature:
    """The one `ItemsSignature` of a `kind` (tuple, list) of items of signature `item`."""
    found = _INTERNED.get((kind, item))
    if found is None:
        found = _INTERNED[(kind, item)] = ItemsSignature(kind, item)
    return found


#: a longer tuple or list has the plain signature ``tuple``/``list`` (its items' kinds not checked per call)
MAX_KNOWN_ITEMS = 256


def container_type(sig):
    """The type a signature stands for when it is a type or an `ItemsSignature` (tuple, list), else None."""
    return sig.kind if type(sig) is ItemsSignature else sig if isinstance(sig, type) else None


def _items_signature(t: type, value) -> object:
    """`ItemsSignature` of a tuple or list of items of one signature, else its type (runs on each call)."""
    if not value or len(value) > MAX_KNOWN_ITEMS:
        return t
    first = type(value[0])
    for v in value:
        if type(v) is not first:
            return t
    if first is float or first is int:
        return items_signature(t, first)
    if first is np.ndarray:
        sig = signature(value[0])
        if sig[2] != "f":  # float64 arrays (other dtypes: their own fills, not worth it here)
            return t
        for v in value:
            if signature(v) != sig:
                return t
        return items_signature(t, sig)
    return t


def signature(value) -> object:
    """The part of an argument that decides the generated code (the cache key).

    An array of another library (Dask, array-API: `is_foreign_array`) has its type first,
    so its code is a variant of its own; an axis whose length it does not know yet (a Dask
    chunking of unknown size) is None."""
    t = type(value)
    if t is np.ndarray:
        kind = value.dtype.kind
        kind = _NARROW_KEYS.get(value.itemsize, kind) if kind == "f" else kind
        shape = value.shape  # (a list, not a generator: this runs on every call of every transform)
        return (len(shape), tuple([n == 1 for n in shape]), kind)
    if is_foreign_array(value):
        ones = tuple(None if not isinstance(n, numbers.Integral) else n == 1 for n in value.shape)
        return (t, len(ones), ones, _dtype_key(value.dtype))
    if t is tuple or t is list:
        return _items_signature(t, value)
    return t


#: the libraries whose arrays lack ``__array_namespace__`` but have an array-API namespace
_ARRAY_LIBRARIES = {"dask", "torch", "cupy", "jax", "jaxlib", "sparse"}


def is_foreign_array(value) -> bool:
    """Whether `value` is an array of a library other than NumPy (array-API or Dask)."""
    t = type(value)
    if isinstance(value, (np.ndarray, np.generic)):  # subclasses too (masked arrays): NumPy's
        return False
    return hasattr(t, "__array_namespace__") or (
        t.__module__.partition(".")[0] in _ARRAY_LIBRARIES and hasattr(value, "shape") and hasattr(value, "dtype"))


#: the dtype part of a float32 array's signature (float64 and other floats: "f"): the
#: derivative's fills are written in float32 for it (backend/single.py)
SINGLE = "f4"
#: float16's (a signature of its own too: its gradient is cast back to float16)
HALF = "f2"
_NARROW_KEYS = {4: SINGLE, 2: HALF}
#: the dtype a gradient of an argument of each narrow signature is returned in
_NARROW_DTYPES = {SINGLE: "float32", HALF: "float16", np.float32: "float32"}


def narrow_dtype(sig) -> str | None:
    """The name of the floating dtype narrower than float64 ("float32", "float16") that an
    argument of signature `sig` has, else None: its gradient is returned in that dtype
    whatever dtype the function computes in (issue 24)."""
    part = sig[-1] if isinstance(sig, tuple) and len(sig) == 3 else sig
    return _NARROW_DTYPES.get(part) if isinstance(part, (str, type)) else None


def holds_complex(value) -> bool:
    """Whether `value` is a complex number or an array (of any library) or a list or tuple
    holding them: srcdiff differentiates real values only."""
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, (list, tuple)):
        return any(holds_complex(v) for v in value)
    dtype = getattr(value, "dtype", None)
    return dtype is not None and hasattr(value, "shape") and dtype_kind(dtype) == "c"


def is_complex_signature(sig) -> bool:
    """Whether an argument of this `signature` holds complex numbers."""
    if isinstance(sig, tuple):
        return sig[-1] == "c"
    return isinstance(sig, type) and issubclass(sig, (complex, np.complexfloating))


def dtype_kind(dtype) -> str:
    """NumPy's one-letter kind of `dtype` ("f" for floating), for any library's dtype."""
    try:
        return np.dtype(dtype).kind
    except TypeError:  # a dtype object NumPy does not read (array_api_strict's): by its name
        name = str(dtype).rpartition(".")[2]
        return next((kind for prefix, kind in _KINDS if name.startswith(prefix)), "O")


def _dtype_key(dtype) -> str:
    """`dtype_kind`, but `SINGLE` for float32: the signature's dtype part."""
    kind = dtype_kind(dtype)
    return SINGLE if kind == "f" and str(dtype).rpartition(".")[2] == "float32" else kind


def is_single(key) -> bool:
    """Whether a variant for argument signatures `key` computes in float32: a float32 array
    or number among them, and no float64 one (which would make the function's values float64)."""
    sigs = key or ()
    single = any(s is np.float32 or (isinstance(s, tuple) and s[-1] == SINGLE) for s in sigs)
    double = any(s is np.float64 or (isinstance(s, tuple) and s[-1] == "f") for s in sigs)
    return single and not double


_KINDS = (("float", "f"), ("complex", "c"), ("int", "i"), ("uint", "u"), ("bool", "b"))


def of_signature(sig) -> Shape:
    """The `Shape` an argument with this `signature` has."""
    if isinstance(sig, tuple):
        ones = sig[-2]
        return Shape(tuple(UNKNOWN_DIM if one is None else ONE if one else MANY for one in ones))
    if isinstance(sig, type) and issubclass(sig, numbers.Number):
        return SCALAR
    if type(sig) is ItemsSignature:
        return Shape(None, items=of_signature(sig.item))
    return UNKNOWN


def of_constant(value) -> Shape:
    if value is None:
        return NONE
    if isinstance(value, numbers.Number):
        return SCALAR
    if isinstance(value, np.ndarray):
        return Shape(tuple(ONE if n == 1 else MANY for n in value.shape))
    return UNKNOWN


def of_items(value) -> Shape | None:
    """The `Shape` of a module tuple or list of items of one signature (`ItemsSignature`), else None."""
    sig = signature(value) if type(value) in (tuple, list) else None
    return of_signature(sig) if type(sig) is ItemsSignature else None


def broadcast(*shapes: Shape) -> Shape:
    """The shape of an elementwise result, by NumPy's broadcasting rules."""
    if any(not s.known for s in shapes):
        return UNKNOWN
    ndim = max(len(s.dims) for s in shapes)
    out = []
    for axis in range(ndim):
        dims = [s.dims[axis - ndim + len(s.dims)] for s in shapes if axis - ndim + len(s.dims) >= 0]
        if MANY in dims:
            out.append(MANY)
        elif all(d == ONE for d in dims):
            out.append(ONE)
        else:
            out.append(UNKNOWN_DIM)
    return Shape(tuple(out), scalar=all(s.scalar for s in shapes))


def join(a: Shape, b: Shape) -> Shape:
    """What is known of a value that has shape `a` or shape `b` (two paths, two iterations)."""
    if a == b:
        return a
    if a.known and b.known and a.ndim == b.ndim and a.none == b.none and a.shape_of == b.shape_of:
        # one ndim, an axis known where both agree (a loop-carried ``u = np.concatenate([u[:1], ...])``
        # stays a vector of a length not known, so rules that need its ndim still apply)
        dims = tuple(x if x == y else UNKNOWN_DIM for x, y in zip(a.dims, b.dims))
        return Shape(dims, scalar=a.scalar and b.scalar, none=a.none, shape_of=a.shape_of)
    return UNKNOWN


def reduction_axes(operand: Shape, result: Shape) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """How to sum a result-shaped adjoint back to a broadcast operand's shape.

    Returns (leading axes to sum away, operand axes to sum with keepdims), or None when the
    shapes are not known well enough to say (the caller then uses the run-time helper).
    """
    if not (operand.known and result.known):
        return None
    lead = len(result.dims) - len(operand.dims)
    if lead < 0:
        return None
    keep = []
    for axis, dim in enumerate(operand.dims):
        out = result.dims[axis + lead]
        if dim == ONE and out == MANY:
            keep.append(axis)
        elif dim == UNKNOWN_DIM or (dim == ONE and out == UNKNOWN_DIM):
            return None
    return tuple(range(lead)), tuple(keep)


def reduce(shape: Shape, axis, keepdims: bool) -> Shape:
    """The shape of ``sum(x, axis, keepdims)`` and the other reductions."""
    if axis is None:
        if keepdims:
            return Shape((ONE,) * shape.ndim) if shape.known else UNKNOWN
        return ARRAY0 if not shape.scalar else SCALAR
    if not shape.known:
        return UNKNOWN
    axes = {a % shape.ndim for a in (axis if isinstance(axis, tuple) else (axis,))}
    if keepdims:
        return Shape(tuple(ONE if i in axes else d for i, d in enumerate(shape.dims)))
    return Shape(tuple(d for i, d in enumerate(shape.dims) if i not in axes))


def matmul(x: Shape, y: Shape) -> Shape:
    if not (x.known and y.known) or x.ndim == 0 or y.ndim == 0:
        return UNKNOWN
    if x.ndim == 1 and y.ndim == 1:
        return ARRAY0
    if x.ndim == 1:
        return Shape(y.dims[:-2] + y.dims[-1:])
    if y.ndim == 1:
        return Shape(x.dims[:-1])
    batch = broadcast(Shape(x.dims[:-2]), Shape(y.dims[:-2]))
    return Shape(batch.dims + (x.dims[-2], y.dims[-1])) if batch.known else UNKNOWN


def transpose(x: Shape) -> Shape:
    return Shape(x.dims[::-1], x.scalar) if x.known else UNKNOWN


def array(x: Shape) -> Shape:
    """`x`'s shape as an ndarray (what ``np.asarray(x)`` or ``np.zeros_like(x)`` gives)."""
    return Shape(x.dims) if x.known else UNKNOWN


def length_of(shape: Shape) -> str:
    """What an int of this `Shape` says about an axis it is the length of: ONE, MANY or UNKNOWN_DIM."""
    return shape.length or UNKNOWN_DIM


def of_literal(shape) -> Shape:
    """The Shape of an array created with the literal shape `shape` (an int or a tuple)."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if not all(isinstance(n, int) and n >= -1 for n in dims):
        return UNKNOWN
    return Shape(tuple({1: ONE, -1: UNKNOWN_DIM}.get(n, MANY) for n in dims))


def swap(x: Shape, axis1: int, axis2: int) -> Shape:
    """The shape of ``np.swapaxes(x, axis1, axis2)``."""
    if not x.known or x.ndim == 0:
        return UNKNOWN
    dims = list(x.dims)
    a, b = axis1 % x.ndim, axis2 % x.ndim
    dims[a], dims[b] = dims[b], dims[a]
    return Shape(tuple(dims))


def permute(x: Shape, axes) -> Shape:
    """The shape of ``np.transpose(x, axes)`` (axes None reverses them)."""
    if not x.known:
        return UNKNOWN
    if axes is None:
        return Shape(x.dims[::-1])
    return Shape(tuple(x.dims[a] for a in axes))
