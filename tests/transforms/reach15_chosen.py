"""An object of one class or another, chosen when the function runs, then used (reach15_programs.py's
``object_chosen_when_running`` class): ``match`` on its class, a method called, ``isinstance`` tested,
in a loop too."""

import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class Gauss:
    mu: float
    sigma: float

    def nll(self, x):
        return np.sum(0.5 * ((x - self.mu) / self.sigma) ** 2) + x.size * math.log(self.sigma)


@dataclasses.dataclass
class Laplace:
    mu: float
    b: float

    def nll(self, x):
        return np.sum(np.abs(x - self.mu) / self.b) + x.size * math.log(self.b)


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Circle:
    def __init__(self, r):
        self.r = r

    def area(self):
        return np.pi * self.r ** 2


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


def method_of_the_chosen(theta, x):
    dist = Gauss(theta[0], math.exp(theta[1])) if np.mean(x) > 0.0 else Laplace(theta[0], math.exp(theta[1]))
    return dist.nll(x)


def chosen_in_an_if_statement(theta, x):
    if np.sum(x ** 2) > 2.0:
        dist = Gauss(theta[0], math.exp(theta[1]))
        label = 1.0
    else:
        dist = Laplace(theta[0], math.exp(theta[1]))
        label = 2.0
    return label * dist.nll(x)


def isinstance_of_the_chosen(theta, x):
    dist = Laplace(theta[0], math.exp(theta[1])) if x.size > 3 else Gauss(theta[0], math.exp(theta[1]))
    if isinstance(dist, Gauss):
        scale = dist.sigma
    else:
        scale = dist.b
    return scale * np.sum((x - dist.mu) ** 2)


def match_by_position(theta, x):
    p = Point(theta[0], theta[1]) if x[0] > -5.0 else Point(theta[1], theta[0])
    match p:
        case Point(a, b) if a > b:
            return np.sum((x - a) ** 2) * b
        case Point(a, b):
            return np.sum((x - b) ** 2) * a


def chosen_among_three(theta, x):
    s = np.sum(x)
    if s > 1.0:
        dist = Gauss(theta[0], math.exp(theta[1]))
    elif s > -1.0:
        dist = Laplace(theta[0], math.exp(theta[1]))
    else:
        dist = Gauss(theta[1], 1.0)
    match dist:
        case Gauss(mu=m, sigma=sd):
            return np.sum((x - m) ** 2) / sd
        case Laplace(mu=m, b=b):
            return np.sum(np.abs(x - m)) / b


def shapes_chosen_in_a_loop(theta, x):
    total = 0.0
    for v in x:
        shape = Circle(theta[0] * v) if v > 0 else Square(theta[1] * v)
        total = total + shape.area()
    return total
