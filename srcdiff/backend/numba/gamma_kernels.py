"""The gamma family for numba, as scalar kernels (special.py makes them functions of arrays):
log|Gamma|, Gamma, 1/Gamma, digamma, polygamma, beta, log|beta|.

* ``digamma``: the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the asymptotic
  series; reflection for negative x (reduced exactly, so precise next to the poles);
* ``polygamma(n, x)``: (-1)**(n+1) n! zeta(n + 1, x), the Hurwitz zeta by the recurrence
  and Euler-Maclaurin (the way Cephes computes it);
* ``betaln``/``beta``: Cephes' ratio of gammas, its asymptotic series, its negative integers;
* the poles, infinities and signs as SciPy gives them.
"""

from __future__ import annotations

import math

from numba import njit

INF = math.inf
NAN = math.nan
MAXGAM = 171.6243769563027  # Gamma overflows past it
#: B_2k / (2k) for the digamma series, k = 1..7
DIGAMMA_SERIES = (1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0)
#: B_2k / (2k)! for Euler-Maclaurin, k = 1..12 (Cephes' zeta table)
ZETA_SERIES = (1.0 / 12.0, -1.0 / 720.0, 1.0 / 30240.0, -1.0 / 1209600.0, 1.0 / 47900160.0,
               -691.0 / 1307674368000.0, 1.0 / 74724249600.0, -3617.0 / 10670622842880000.0,
               43867.0 / 5109094217170944000.0, -174611.0 / 802857662698291200000.0,
               77683.0 / 14101100039391805440000.0, -236364091.0 / 1693824136731743669452800000.0)


@njit(cache=True)
def is_pole(x):
    return x <= 0.0 and x == math.floor(x)


@njit(cache=True)
def gammaln(x):
    if math.isnan(x):
        return x
    if x == -INF:
        return -INF
    if is_pole(x) or x == INF:
        return INF
    return math.lgamma(x)


@njit(cache=True)
def gamma(x):
    if math.isnan(x):
        return x
    if x == 0.0:
        return math.copysign(INF, x)
    if is_pole(x) or x == -INF:
        return NAN
    if x > 171.7:
        return INF
    return math.gamma(x)


@njit(cache=True)
def cot_pi(x):
    """pi / tan(pi x), x first reduced (exactly) to the nearest integer's distance: precise
    near the poles and for large |x|."""
    r = x - math.floor(x + 0.5)
    return math.pi * math.cos(math.pi * r) / math.sin(math.pi * r)


@njit(cache=True)
def digamma(x):
    if math.isnan(x) or x == INF:
        return x
    if x == 0.0:
        return math.copysign(INF, -x)
    if is_pole(x) or x == -INF:
        return NAN
    shift = 0.0
    if x < 0.0:  # psi(x) = psi(1 - x) - pi / tan(pi x)
        shift = -cot_pi(x)
        x = 1.0 - x
    while x < 10.0:
        shift -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    series = 0.0
    for k in range(len(DIGAMMA_SERIES) - 1, -1, -1):
        series = series * z + DIGAMMA_SERIES[k]
    return shift + math.log(x) - 0.5 / x - series * z


@njit(cache=True)
def hurwitz_zeta(s, q):
    """zeta(s, q) = sum over k >= 0 of (q + k) ** -s, for s > 1 an integer; a pole gives inf."""
    if is_pole(q):
        return INF
    total = 0.0
    while q < 0.0:  # zeta(s, q) = zeta(s, q + 1) + q ** -s
        total += q ** -s
        q += 1.0
    edge = max(12.0, s)
    while q < edge:
        total += q ** -s
        q += 1.0
    total += q ** (1.0 - s) / (s - 1.0) + 0.5 * q ** -s
    rising = s  # s (s + 1) ... (s + 2k - 2), and the power of q that goes with it
    power = q ** (-s - 1.0)
    for k in range(len(ZETA_SERIES)):
        term = ZETA_SERIES[k] * rising * power
        total += term
        if abs(term) < 1e-17 * abs(total):
            break
        rising *= (s + 2.0 * k + 1.0) * (s + 2.0 * k + 2.0)
        power /= q * q
    return total


@njit(cache=True)
def polygamma(n, x):
    if math.isnan(n) or math.isnan(x) or n < 0.0 or n != math.floor(n):
        return NAN
    if n == 0.0:
        return digamma(x)
    sign = 1.0 if int(n) % 2 == 1 else -1.0
    return sign * math.gamma(n + 1.0) * hurwitz_zeta(n + 1.0, x)


@njit(cache=True)
def rgamma(x):
    g = gamma(x)
    if is_pole(x) or math.isinf(g):
        return 0.0
    return 1.0 / g if g != 0.0 else math.copysign(INF, g)  # (numba raises on a division by zero)


@njit(cache=True)
def negative_integer_pair(a, b):
    """Where a or b is a pole of Gamma, B(a, b) is finite only for integers with 1 - a - b > 0
    (Cephes): then +-B(1 - a - b, b), with n the pole; else (0, 0, 0)."""
    n, other = (a, b) if is_pole(a) else (b, a)
    if other == math.floor(other) and 1.0 - n - other > 0.0 and not is_pole(other):
        return 1.0 - n - other, other, (1.0 if int(other) % 2 == 0 else -1.0)
    return 0.0, 0.0, 0.0


@njit(cache=True)
def betaln_regular(a, b):
    """log|B(a, b)| as Cephes computes it: a ratio of gammas while they are finite (no
    cancellation of large logarithms), an asymptotic series when one argument dwarfs the
    other."""
    if abs(a) < abs(b):
        a, b = b, a
    if abs(a) > 1e6 * abs(b) and a > 1e6:
        return gammaln(b) - b * math.log(a) + b * (1.0 - b) / (2.0 * a) + \
            b * (1.0 - b) * (1.0 - 2.0 * b) / (12.0 * a * a) - b * b * (1.0 - b) * (1.0 - b) / (12.0 * a * a * a)
    y = a + b
    if abs(y) > MAXGAM or abs(a) > MAXGAM or abs(b) > MAXGAM:
        return gammaln(a) + (gammaln(b) - gammaln(y))
    gy, ga, gb = gamma(y), gamma(a), gamma(b)
    if gy == 0.0:
        return INF
    if abs(abs(ga) - abs(gy)) > abs(abs(gb) - abs(gy)):
        return math.log(abs(gb / gy * ga))
    return math.log(abs(ga / gy * gb))


@njit(cache=True)
def betaln(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if is_pole(a) or is_pole(b):
        a, b, sign = negative_integer_pair(a, b)
        if sign == 0.0:
            return INF
    return betaln_regular(a, b)


@njit(cache=True)
def beta(a, b):
    if math.isnan(a) or math.isnan(b):
        return NAN
    sign = 1.0
    if is_pole(a) or is_pole(b):
        a, b, sign = negative_integer_pair(a, b)
        if sign == 0.0:
            return INF
    if gamma(a) * gamma(b) * gamma(a + b) < 0.0:
        sign = -sign
    return sign * math.exp(betaln_regular(a, b))
