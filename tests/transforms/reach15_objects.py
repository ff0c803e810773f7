"""Objects of the user's classes built inside the differentiated function (class 5 of reach15_programs.py):
an ``__init__`` that computes, methods updating ``self``, classmethod constructors, ``super().__call__``,
lists and containers of objects, ``functools.cached_property``, and enums from a configuration."""

import enum
import functools
import math

import numpy as np
import scipy.special

# ---- 5a. an __init__ that computes --------------------------------------------------------------------


class Polar:
    def __init__(self, r, theta):
        c, s = math.cos(theta), math.sin(theta)
        self.x = r * c
        self.y = r * s
        self.norm2 = self.x ** 2 + self.y ** 2

    def dot(self, other):
        return self.x * other.x + self.y * other.y


def init_with_locals(p):
    a = Polar(p[0], p[1])
    b = Polar(2.0, p[1] * 0.5)
    return a.dot(b) + a.norm2


class Standardizer:
    def __init__(self, X):
        self.mu = X.mean(axis=0)
        self.sd = X.std(axis=0) + 1e-3
        self.scale = 1.0 / self.sd

    def transform(self, X):
        return (X - self.mu) * self.scale


def init_of_data(X):
    return np.sum(Standardizer(X).transform(X) ** 3)


class Gaussian:
    def __init__(self, mu, log_sigma):
        self.mu = mu
        self.sigma = np.exp(log_sigma)
        self.var = self.sigma ** 2

    @property
    def precision(self):
        return 1.0 / self.var

    def nll(self, x):
        return 0.5 * np.sum((x - self.mu) ** 2) * self.precision + x.size * np.log(self.sigma)


def init_then_property(theta, x):
    return Gaussian(theta[0], theta[1]).nll(x)


class Unit:
    def __init__(self, w):
        scale = np.sqrt(np.sum(w ** 2))
        self.w = w / scale


class ScaledUnit(Unit):
    def __init__(self, w, k):
        super().__init__(w * k)
        self.k = self.kk = k

    def __call__(self, x):
        return np.tanh(x @ self.w) * self.k * self.kk


def init_through_super(w, x):
    return np.sum(ScaledUnit(w, 2.0)(x))


# ---- 5b. methods updating self ------------------------------------------------------------------------


class Projectile:
    def __init__(self, v0, angle, drag=0.05):
        self.vx = v0 * math.cos(angle)
        self.vy = v0 * math.sin(angle)
        self.x = self.y = 0.0
        self.drag = drag

    @property
    def speed(self):
        return math.hypot(self.vx, self.vy)

    def step(self, dt):
        k = self.drag * self.speed
        self.vx -= dt * k * self.vx
        self.vy -= dt * (9.81 + k * self.vy)
        self.x += dt * self.vx
        self.y += dt * self.vy


def stepped_in_a_loop(v0, angle=0.7, steps=20):
    p = Projectile(v0, angle)
    for _ in range(steps):
        p.step(0.05)
    return p.x + p.y


class Account:
    fee = 0.5

    def __init__(self, balance):
        self.balance = balance

    @classmethod
    def opened_with(cls, amount, bonus=0.1):
        return cls(amount * (1 + bonus))

    @staticmethod
    def rate_for(balance):
        return 0.02 + 0.01 * np.tanh(balance / 100.0)

    def accrue(self):
        self.balance = self.balance * (1 + self.rate_for(self.balance)) - self.fee
        return self


def classmethod_then_updates(amount, years=5):
    acct = Account.opened_with(amount)
    for _ in range(years):
        acct.accrue()
    return acct.balance


def updates_chained(amount):
    return Account(amount).accrue().accrue().balance


class Momentum:
    def __init__(self, w, beta=0.9):
        self.w = w
        self.v = np.zeros_like(w)
        self.beta = beta

    def update(self, g, lr=0.01):
        self.v = self.beta * self.v + g
        self.w = self.w - lr * self.v


def optimizer_object(w, X, y):
    opt = Momentum(w)
    for _ in range(3):
        g = X.T @ (X @ opt.w - y)
        opt.update(g)
    return np.sum((X @ opt.w - y) ** 2)


class Running:
    def __init__(self):
        self.total = 0.0
        self.n = 0

    def add(self, v):
        self.total = self.total + v
        self.n += 1

    def mean(self):
        return self.total / self.n


def accumulator_of_constants(x):
    acc = Running()
    for v in x:
        acc.add(v ** 2)
    return acc.mean()


# ---- 5c. lists and containers of objects, super().__call__, classmethods of a tree ----------------------


class Layer:
    def __init__(self, W):
        self.W = W

    def __call__(self, h):
        return np.tanh(h @ self.W)


class ResidualLayer(Layer):
    def __call__(self, h):
        return h + super().__call__(h)


class Sequence:
    def __init__(self, layers):
        self._layers = list(layers)

    def __len__(self):
        return len(self._layers)

    def __getitem__(self, i):
        return self._layers[i]

    def __iter__(self):
        return iter(self._layers)


def comprehension_of_layers(Ws, x):
    h = x
    for layer in [ResidualLayer(W) for W in Ws]:
        h = layer(h)
    return np.sum(h ** 2)


def container_of_layers(Ws, x):
    net = Sequence([ResidualLayer(W) for W in Ws])
    h = x
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2) + np.sum(net[len(net) - 1].W)


class Quadratic:
    def __init__(self, A, b):
        self.A, self.b = A, b

    @functools.cached_property
    def sym(self):
        return 0.5 * (self.A + self.A.T)

    @classmethod
    def from_params(cls, p):
        return cls(p["A"], p["b"])

    def __call__(self, x):
        return 0.5 * x @ self.sym @ x - self.b @ x + np.sum(self.sym ** 2)


def classmethod_of_a_tree(params, x):
    return Quadratic.from_params(params)(x)


class Tempered:
    def __init__(self, w):
        self.w = w
        self._t = 1.0

    @property
    def temperature(self):
        return self._t

    @temperature.setter
    def temperature(self, value):
        self._t = 0.5 + value ** 2

    def energy(self, x):
        return np.sum(np.tanh(self.w * x)) / self.temperature


def property_setter_on_an_object_made_here(w, x):
    m = Tempered(w)
    m.temperature = np.sum(w ** 2)
    return m.energy(x) + m.temperature


# ---- 5d. enums from a configuration ----------------------------------------------------------------------


class Activation(enum.Enum):
    RELU = "relu"
    SOFTPLUS = "softplus"
    SWISH = "swish"


def enum_from_a_config(w, X, config):
    act = Activation(config["activation"])
    h = X @ w
    if act is Activation.SOFTPLUS:
        h = np.logaddexp(0.0, h)
    elif act == Activation.SWISH:
        h = h * scipy.special.expit(h)
    else:
        h = np.maximum(h, 0.0)
    return np.sum(h ** 2) * config.get("scale", 1.0)


def enum_from_a_setting(w, X, name="softplus"):
    act = Activation(name)
    if act is Activation.SOFTPLUS:
        return np.sum(np.logaddexp(0.0, X @ w))
    return np.sum(np.tanh(X @ w))


def enum_by_name(w, X, name="SWISH"):
    act = Activation[name]
    h = X @ w
    if act == Activation.SWISH:
        h = h * scipy.special.expit(h)
    return np.sum(h ** 2)


def enum_member_in_a_local(w, X):
    act = Activation.SWISH
    h = X @ w
    return np.sum((h * np.tanh(h) if act is Activation.SWISH else h) ** 2)


class Act(enum.Enum):
    TANH = enum.auto()
    SOFTPLUS = enum.auto()


ACTS = {Act.TANH: np.tanh, Act.SOFTPLUS: lambda v: np.logaddexp(0.0, v)}


def enum_keyed_functions_in_a_loop(w, x, acts=(Act.TANH, Act.SOFTPLUS)):
    h = x * w
    for a in acts:
        h = ACTS[a](h)
    return np.sum(h)


def enum_keyed_function(w, x, act=Act.SOFTPLUS):
    return np.sum(ACTS[act](x * w))


def _swish(v):
    return v / (1.0 + np.exp(-v))


def functions_of_yours_in_a_default_tuple(w, x, acts=(_swish, np.tanh)):
    h = x * w
    for act in acts:
        h = act(h)
    return np.sum(h ** 2)


def functions_in_a_default_tuple(w, x, acts=(np.tanh, np.sin)):
    h = x * w
    for act in acts:
        h = act(h) + 0.1 * h
    return np.sum(h ** 2)


class Mode(enum.IntEnum):
    SUM = 0
    MEAN = 1


def intenum_from_a_config(w, x, cfg):
    mode = Mode(cfg["mode"])
    v = np.tanh(x * w)
    return np.sum(v) if mode == Mode.SUM else np.mean(v)


# ---- 5e. a list of objects passed as data (not differentiated) ---------------------------------------------


class Dense:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def list_of_layer_objects(x, layers):
    for layer in layers:
        x = layer(x)
    return np.sum(x ** 2)


def _forward(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def tuple_of_layers_to_a_helper(x, layers):
    return np.sum(_forward(layers, x) * x)
