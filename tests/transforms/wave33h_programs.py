"""Programs of the red team's wave 33h (test_wave33h.py): what this wave's rewrites read, changed or
pushed to their edges.

* CHANGED: module objects read as constants, changed after a first call: a class attribute read through
  an instance and then set on the instance (``KI.a = 7.0`` where ``K.a`` was read), an attribute a base
  class holds then set on the subclass read (``Sub.a``, ``Sub.SIZES``, ``Sub.inner``), a namespace's
  number, nested namespace or list, a list of configuration dicts, a dataclass's list.
  Rows: (name, function, make_args(rng), wrt, change) as wave31m_programs.py's.
* PROGRAMS: extrema read under selections (selected_extrema.py) whose condition is of another name, of a
  name rebound, shifted, broadcast, nested, in loops, under a divisor; blocks written by slices of a
  bound given at run time (zeroed_blocks.py) 0, the full width, negative, overlapping, stepped, in loops;
  a count argument of a range and labels of a tuple (key_parameters.py); a module holding an object
  whose ``__getattr__`` raises KeyError.  Rows: (name, function, make_args(rng), wrt).
"""

from __future__ import annotations

import types

import numpy as np

from .wave31m_programs import in_place, set_attribute


def vec(n, shift=0.0):
    return lambda rng: [np.array([0.33, -0.47, 0.71, -1.23, 0.05, 1.97])[:n] + shift + 0.01 * rng.normal(size=n)]


def shadow(obj, name, value):
    """A change setting `name` on `obj` where it held none of its own (undone by deleting it)."""
    def change():
        setattr(obj, name, value)
        return lambda: delattr(obj, name)
    return change


# ---- CHANGED ---------------------------------------------------------------------------------------

class K:
    a = 1.5
    SIZES = (1, 2)


KI = K()


class Base:
    a = 1.5
    SIZES = (1, 2)
    inner = types.SimpleNamespace(eps=0.25)


class Sub(Base):
    pass


SUB_I = Sub()
NS = types.SimpleNamespace(scale=2.0, inner=types.SimpleNamespace(eps=0.1), taps=[0.5, 0.25], n=2)
ARCH = [{"act": "tanh", "k": 1.0}, {"act": "sin", "k": 2.0}]


def instance_reads_class_number(x):
    return np.sum(KI.a * np.sin(x))


def instance_reads_class_sizes(x):
    return x[KI.SIZES[1]] ** 2 * KI.SIZES[0]


def subclass_number(x):
    return np.sum(Sub.a * np.sin(x))


def subclass_sizes(x):
    return x[Sub.SIZES[1]] ** 2 * Sub.SIZES[0] + np.sum(x)


def subclass_held_object(x):
    return np.sum(Sub.inner.eps * x ** 2)


def subclass_instance_number(x):
    return np.sum(SUB_I.a * np.cos(x))


def namespace_numbers(x):
    return np.sum(NS.scale * x ** 2) + NS.inner.eps * np.sum(x ** 3)


def namespace_taps(x):
    return sum(t * x[i] ** 2 for i, t in enumerate(NS.taps))


def namespace_count(x):
    s = 0.0
    for i in range(NS.n):
        s = s + x[i] ** 3
    return s


def arch_layers(x):
    h = x
    for layer in ARCH:
        h = np.tanh(layer["k"] * h) if layer["act"] == "tanh" else np.sin(layer["k"] * h)
    return np.sum(h ** 2)


def _replace_inner():
    old = NS.inner
    NS.inner = types.SimpleNamespace(eps=0.7)
    return lambda: setattr(NS, "inner", old)


def _set_item(d, key, value):
    def change():
        old = d[key]
        d[key] = value
        return lambda: d.__setitem__(key, old)
    return change


CHANGED = [
    ("instance_shadows_class_number", instance_reads_class_number, vec(3), 0, shadow(KI, "a", 7.0)),
    ("instance_shadows_class_sizes", instance_reads_class_sizes, vec(3), 0, shadow(KI, "SIZES", (3, 0))),
    ("subclass_shadows_number", subclass_number, vec(3), 0, shadow(Sub, "a", 7.0)),
    ("subclass_shadows_sizes", subclass_sizes, vec(3), 0, shadow(Sub, "SIZES", (3, 0))),
    ("subclass_shadows_held_object", subclass_held_object, vec(3), 0,
     shadow(Sub, "inner", types.SimpleNamespace(eps=-0.75))),
    ("subclass_instance_shadowed_by_class", subclass_instance_number, vec(3), 0, shadow(Sub, "a", -2.0)),
    ("subclass_instance_base_rebound", subclass_instance_number, vec(3), 0, set_attribute(Base, "a", 4.0)),
    ("namespace_number", namespace_numbers, vec(3), 0, set_attribute(NS, "scale", 5.0)),
    ("namespace_nested_replaced", namespace_numbers, vec(3), 0, _replace_inner),
    ("namespace_nested_number", namespace_numbers, vec(3), 0, set_attribute(NS.inner, "eps", -0.3)),
    ("namespace_list_in_place", namespace_taps, vec(3), 0, in_place(NS.taps, lambda s: s.__setitem__(0, 3.0))),
    ("namespace_list_append", namespace_taps, vec(3), 0, in_place(NS.taps, lambda s: s.append(1.0))),
    ("namespace_count", namespace_count, vec(3), 0, set_attribute(NS, "n", 3)),
    ("arch_act_changed", arch_layers, vec(3), 0, _set_item(ARCH[0], "act", "sin")),
    ("arch_number_changed", arch_layers, vec(3), 0, _set_item(ARCH[1], "k", -3.0)),
    ("arch_layer_appended", arch_layers, vec(3), 0, in_place(ARCH, lambda s: s.append({"act": "tanh", "k": 0.5}))),
]


# ---- PROGRAMS: selections, blocks, counts and labels --------------------------------------------------

def hinge_condition_shifted(x):
    t = x - 0.1
    e = np.maximum(t, 0.0)
    return np.sum(np.where(t + 0.6 >= 0.0, e * x, -x))


def hinge_condition_of_another_name(x):
    t = x - 0.1
    s = x + 0.5
    e = np.maximum(t, 0.0)
    return np.sum(np.where(s >= 0.0, e * x, -x))


def hinge_condition_before_rebinding(x):
    t = x - 0.1
    c = t >= 0.0
    t = t + 0.6
    e = np.maximum(t, 0.0)
    return np.sum(np.where(c, e * x, -x))


def hinge_name_augmented(x):
    t = x - 0.1
    e = np.maximum(t, 0.0)
    t += 0.5
    return np.sum(np.where(t >= 0.0, e * e, 0.0))


def hinge_name_written_into(x):
    t = x - 0.1
    e = np.maximum(t, 0.0)
    t[0] = -5.0
    return np.sum(np.where(t >= 0.0, e * e, 0.0))


def hinge_condition_broadcast(x):
    t = x[:3] - 0.1
    cond = (x[:3][None, :] + np.array([[0.0], [0.45]])) >= 0.0
    e = np.maximum(t, 0.0)
    return np.sum(np.where(cond, e * e, 1.0))


def extrema_nested(x):
    t = x - 0.1
    e = np.maximum(t, 0.0)
    m = np.minimum(e, 0.4)
    return np.sum(np.where(t >= 0.0, np.where(e <= 0.4, m * m, e), 0.0))


def hinge_in_a_loop(x):
    s = 0.0
    t = x
    for _ in range(3):
        e = np.maximum(t, 0.0)
        s = s + np.sum(np.where(t >= 0.0, e * e, 0.0))
        t = t - 0.5
    return s


def hinge_under_a_divisor(x):
    t = x - 0.1
    e = np.maximum(t, 0.0)
    return np.sum(np.where(t >= 0.0, x / (e + 1.0), 0.0))


def clip_half_band(x):
    r = x * 1.5
    c = np.clip(r, -0.5, 0.5)
    return np.sum(np.where(r >= -0.5, c * r, 0.2 * r))


def maximum_of_two_arrays(x):
    b = x[::-1] * 0.5
    m = np.maximum(x, b)
    return np.sum(np.where(x >= b, m * x, b * b))


def _blocks(x, n):
    pre = np.zeros((2, 4))
    pre[:, :n] = np.tanh(x[:, :n])
    pre[:, n:] = np.sin(x[:, n:]) * 2.0
    return np.sum(pre * pre * np.arange(4.0))


def blocks_bound_zero(x, n=0):
    return _blocks(x, n)


def blocks_bound_full(x, n=4):
    return _blocks(x, n)


def blocks_negative_bound(x, n=1):
    pre = np.zeros((2, 4))
    pre[:, :-n] = np.tanh(x[:, :-n])
    pre[:, -n:] = np.sin(x[:, -n:]) * 2.0
    return np.sum(pre * pre * np.arange(4.0))


def blocks_overlapping(x, n=2):
    pre = np.zeros((2, 4))
    pre[:, :n] = np.tanh(x[:, :n])
    pre[:, n - 1:] = np.sin(x[:, n - 1:]) * 2.0
    return np.sum(pre * pre * np.arange(4.0))


def blocks_stepped(x):
    pre = np.zeros((2, 4))
    pre[:, ::2] = np.tanh(x[:, ::2])
    pre[:, 1::2] = np.sin(x[:, 1::2]) * 2.0
    return np.sum(pre * pre * np.arange(4.0))


def blocks_changed_between(x, n=2):
    pre = x * 1.0
    pre[:, :n] = np.tanh(x[:, :n])
    pre[:, n:] = pre[:, n:] * 3.0
    pre[:, :n] = pre[:, :n] * pre[:, :n]
    return np.sum(pre * np.arange(4.0))


def blocks_in_a_loop(x, n=3):
    h = np.ones(2) * 0.1
    s = 0.0
    for _ in range(3):
        pre = np.zeros((2, 4))
        pre[:, :n] = np.tanh(x[:, :n] + h[:, None])
        pre[:, n:] = np.sin(x[:, n:] * h[:, None]) * 2.0
        h = np.sum(pre, axis=1) * 0.3
        s = s + np.sum(pre * pre * np.arange(4.0))
    return s


def blocks_bound_rebound_between_writes(x, n=3):
    h = np.full(2, 0.1)
    s = 0.0
    for _ in range(2):
        pre = np.zeros((2, 4))
        pre[:, :n] = np.tanh(x[:, :n] * h[:, None])
        n = n - 1
        pre[:, n:] = np.sin(x[:, n:] + h[:, None])
        h = pre[:, 0] * pre[:, 3]
        s = s + np.sum(pre ** 2)
    return s


def blocks_copied_bound_moved(x, n=2):
    h = np.full(2, 0.1)
    s = 0.0
    for _ in range(2):
        pre = np.zeros((2, 4))
        m = n
        pre[:, :m] = np.tanh(x[:, :m] * h[:, None])
        m = m + 1
        pre[:, m:] = np.sin(x[:, m:] + h[:, None])
        h = pre[:, 0] * pre[:, 3]
        s = s + np.sum(pre ** 2)
    return s


def blocks_read_between_writes(x, n=2):
    h = np.full(2, 0.1)
    s = 0.0
    for _ in range(3):
        pre = np.zeros((2, 4))
        pre[:, :n] = np.tanh(x[:, :n] * h[:, None])
        s = s + np.sum(pre * pre)
        pre[:, n:] = np.sin(x[:, n:] + h[:, None])
        h = pre[:, 0] * pre[:, 3]
        s = s + np.sum(pre ** 2)
    return s


def count_argument(params, n):
    return sum(params[f"w{i}"] ** 2 * (i + 1) for i in range(n))


def count_argument_alternating(params, n):
    h = params["w0"]
    for i in range(n):
        h = np.tanh(h * params[f"w{i % 2}"] + 0.1)
    return h


def labels_duplicated(params, labels):
    return sum(params[lab] ** 2 * (k + 1) for k, lab in enumerate(labels))


class RaisingGetattr:
    """An object whose ``__getattr__`` raises KeyError (not AttributeError) for what it lacks."""

    def __init__(self):
        self.d = {"k": 2.0}

    def __getattr__(self, name):
        return self.d[name]


LOOKUP = RaisingGetattr()


def module_holds_a_raising_getattr(x):
    return np.sum(np.exp(-x) * x)


def _matrix(rng):
    return [np.array([[0.31, -0.52, 0.73, 1.14], [-0.27, 0.46, -0.88, 0.19]]) + 0.01 * rng.normal(size=(2, 4))]


def _params(n):
    return lambda rng: [{f"w{i}": 0.3 + 0.2 * i + 0.01 * rng.normal() for i in range(4)}, n]


PROGRAMS = [
    ("hinge_condition_shifted", hinge_condition_shifted, vec(6), 0),
    ("hinge_condition_of_another_name", hinge_condition_of_another_name, vec(6), 0),
    ("hinge_condition_before_rebinding", hinge_condition_before_rebinding, vec(6), 0),
    ("hinge_name_augmented", hinge_name_augmented, vec(6), 0),
    ("hinge_name_written_into", hinge_name_written_into, vec(6), 0),
    ("hinge_condition_broadcast", hinge_condition_broadcast, vec(6), 0),
    ("extrema_nested", extrema_nested, vec(6), 0),
    ("hinge_in_a_loop", hinge_in_a_loop, vec(6, 0.02), 0),
    ("hinge_under_a_divisor", hinge_under_a_divisor, vec(6), 0),
    ("clip_half_band", clip_half_band, vec(6), 0),
    ("maximum_of_two_arrays", maximum_of_two_arrays, vec(6), 0),
    ("blocks_bound_zero", blocks_bound_zero, _matrix, 0),
    ("blocks_bound_full", blocks_bound_full, _matrix, 0),
    ("blocks_negative_bound", blocks_negative_bound, _matrix, 0),
    ("blocks_overlapping", blocks_overlapping, _matrix, 0),
    ("blocks_stepped", blocks_stepped, _matrix, 0),
    ("blocks_changed_between", blocks_changed_between, _matrix, 0),
    ("blocks_in_a_loop", blocks_in_a_loop, _matrix, 0),
    ("blocks_bound_rebound_between_writes", blocks_bound_rebound_between_writes, _matrix, 0),
    ("blocks_copied_bound_moved", blocks_copied_bound_moved, _matrix, 0),
    ("blocks_read_between_writes", blocks_read_between_writes, _matrix, 0),
    ("count_argument_numpy_int", count_argument, _params(np.int64(3)), 0),
    ("labels_duplicated", labels_duplicated, lambda rng: [{"a": 0.3, "b": -0.6, "c": 0.9}, ("a", "c", "a")], 0),
    ("labels_as_a_list", labels_duplicated, lambda rng: [{"a": 0.3, "b": -0.6, "c": 0.9}, ["c", "b"]], 0),
    ("module_holds_a_raising_getattr", module_holds_a_raising_getattr, vec(4), 0),
]
