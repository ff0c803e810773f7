"""Wave 35b: hydrology and power systems, written the way their users write them: a soil bucket that
spills over its capacity by an ``if``, a cascade of linear reservoirs in a Python list, degree-day snow
melt by ``max(0.0, ...)``, Muskingum routing with its outflows appended, Green-Ampt infiltration by a
fixed-count while loop, Manning's flow, the SCS curve number by np.where, a Nash cascade by
math.lgamma, Streeter-Phelps, a reservoir rule clipped in a loop, a groundwater head by np.linalg.solve;
AC power-flow residuals over an edge list (by a loop of tuples and by np.add.at at index arrays), an
economic dispatch over a dict of generators, a battery whose efficiency depends on the sign of its
power, a PV single-diode model by Newton, a wind power curve by if/elif, B-coefficient losses, WLS state
estimation, the swing equation by tuple unpacking and a heat pump from a dataclass."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

RAIN = [3.0, 0.0, 12.0, 7.5, 0.0, 1.0, 9.0, 0.5, 0.0, 4.0]
PET = 1.5
TEMPS = np.array([-4.0, -1.0, 0.5, 2.0, 3.5, 5.0, 1.0, -2.0])
PRECIP = np.array([5.0, 3.0, 0.0, 2.0, 0.0, 6.0, 1.0, 4.0])
INFLOW = np.array([10.0, 20.0, 50.0, 80.0, 60.0, 40.0, 25.0, 15.0, 10.0])
Q_OBS = np.array([10.0, 12.0, 25.0, 50.0, 65.0, 55.0, 40.0, 28.0, 18.0])
STORMS = np.array([10.0, 25.0, 60.0, 95.0, 40.0])
RUNOFF_OBS = np.array([0.0, 1.2, 14.0, 38.0, 6.0])
LINES = [(0, 1, 4.0, -12.0), (1, 2, 3.0, -9.0), (0, 2, 2.0, -6.0), (2, 3, 5.0, -15.0)]
FROM = np.array([0, 1, 0, 2])
TO = np.array([1, 2, 2, 3])
G_LINE = np.array([4.0, 3.0, 2.0, 5.0])
B_LINE = np.array([-12.0, -9.0, -6.0, -15.0])
P_SPEC = np.array([0.0, 0.5, -0.3, -0.2])
GENERATORS = {"coal": (0.02, 10.0, 50.0, 300.0), "gas": (0.05, 15.0, 20.0, 200.0), "hydro": (0.01, 2.0, 0.0, 120.0)}
DEMAND = 420.0
PRICES = [30.0, 25.0, 20.0, 45.0, 60.0, 55.0]
B_LOSS = np.array([[0.0001, 0.00002, 0.0], [0.00002, 0.00015, 0.00001], [0.0, 0.00001, 0.0002]])
B0_LOSS = np.array([0.001, -0.0005, 0.0008])
MEAS = [("v", 1, 1.01), ("p", 0, 0.62), ("q", 0, 0.15), ("p", 1, -0.58), ("v", 0, 1.0)]
WIND = [3.5, 6.0, 9.0, 12.5, 14.0, 26.0]


def bucket_model(params, rain=RAIN):
    smax, k = params[0], params[1]
    s, flows = 0.5 * smax, []
    for p in rain:
        s += p - PET * s / smax
        q = 0.0
        if s > smax:
            q = s - smax
            s = smax
        q += k * s
        s -= k * s
        flows.append(q)
    return sum(f * f for f in flows) / len(flows)


def reservoir_cascade(ks, n_steps=12):
    store = [0.0] * len(ks)
    out_last = []
    for t in range(n_steps):
        inflow = RAIN[t % len(RAIN)]
        for i in range(len(ks)):
            store[i] += inflow
            inflow = ks[i] * store[i]
            store[i] -= inflow
        out_last.append(inflow)
    return float(np.var(np.array(out_last)))


def degree_day_snow(params, temps=TEMPS, precip=PRECIP):
    ddf, tt = params
    swe, melt_total = 0.0, 0.0
    for t, p in zip(temps, precip):
        if t < tt:
            swe += p
        melt = min(swe, max(0.0, ddf * (t - tt)))
        swe -= melt
        melt_total += melt ** 2
    return melt_total + swe


def muskingum(kx, inflow=INFLOW, dt=1.0):
    k, x = kx[0], kx[1]
    den = 2 * k * (1 - x) + dt
    c0 = (dt - 2 * k * x) / den
    c1 = (dt + 2 * k * x) / den
    c2 = (2 * k * (1 - x) - dt) / den
    out = [inflow[0]]
    for t in range(1, len(inflow)):
        out.append(c0 * inflow[t] + c1 * inflow[t - 1] + c2 * out[-1])
    return np.sum((np.array(out) - Q_OBS) ** 2)


def green_ampt(theta, t_end=2.0):
    ksat, psi_dtheta = theta[0], theta[1]
    f = ksat * t_end
    it = 0
    while it < 15:  # F - S ln(1 + F/S) = K t, by fixed-point
        f = ksat * t_end + psi_dtheta * math.log(1.0 + f / psi_dtheta)
        it += 1
    return f


def manning(n_s, depth=np.array([0.5, 1.0, 1.5, 2.0]), width=4.0):  # noqa: B008
    n, slope = n_s[0], n_s[1]
    area = width * depth
    radius = area / (width + 2 * depth)
    q = area * np.power(radius, 2.0 / 3.0) * np.sqrt(slope) / n
    return float(np.sum(np.log(q) ** 2))


def curve_number(cn, storms=STORMS):
    s = 25400.0 / cn - 254.0
    ia = 0.2 * s
    q = np.where(storms > ia, (storms - ia) ** 2 / (storms - ia + s), 0.0)
    return np.mean((q - RUNOFF_OBS) ** 2)


def nash_cascade(nk, t=np.arange(1.0, 9.0)):  # noqa: B008
    n, k = nk
    log_uh = (n - 1) * np.log(t / k) - t / k - math.log(k) - math.lgamma(n)
    uh = np.exp(log_uh)
    return float(np.sum((uh - 0.1) ** 2))


def streeter_phelps(rates, d0=2.0, l0=10.0, times=np.array([0.5, 1.0, 2.0, 3.0, 5.0])):  # noqa: B008
    kd, ka = rates[0], rates[1]
    deficit = kd * l0 / (ka - kd) * (np.exp(-kd * times) - np.exp(-ka * times)) + d0 * np.exp(-ka * times)
    critical = times[np.argmax(deficit)]
    return np.sum(deficit ** 2) + critical


def reservoir_rule(release, inflow=INFLOW, s0=100.0, smax=250.0):
    s = s0
    spill = 0.0
    shortage = 0.0
    for t in range(len(inflow)):
        r = np.clip(release[t], 0.0, s + inflow[t])
        s = s + inflow[t] - r
        if s > smax:
            spill += s - smax
            s = smax
        shortage += (40.0 - r) ** 2
    return shortage + 10.0 * spill


def groundwater_head(logk, n=6, recharge=0.01):
    kk = np.exp(logk)
    a = np.diag(kk[:-1] + kk[1:]) - np.diag(kk[1:-1], 1) - np.diag(kk[1:-1], -1)
    h = np.linalg.solve(a, np.full(n - 1, recharge))
    return h @ h


def ac_power_flow(x, lines=LINES):
    n = len(P_SPEC)
    theta, v = x[:n], x[n:]
    p = np.zeros(n)
    for i, j, g, b in lines:
        d = theta[i] - theta[j]
        p[i] += v[i] * v[j] * (g * np.cos(d) + b * np.sin(d)) - g * v[i] ** 2
        p[j] += v[i] * v[j] * (g * np.cos(d) - b * np.sin(d)) - g * v[j] ** 2
    return np.sum((p + P_SPEC) ** 2)


def ac_power_flow_vectorised(theta, v=np.array([1.0, 1.02, 0.98, 0.99])):  # noqa: B008
    d = theta[FROM] - theta[TO]
    vv = v[FROM] * v[TO]
    p = np.zeros_like(theta)
    np.add.at(p, FROM, vv * (G_LINE * np.cos(d) + B_LINE * np.sin(d)) - G_LINE * v[FROM] ** 2)
    np.add.at(p, TO, vv * (G_LINE * np.cos(d) - B_LINE * np.sin(d)) - G_LINE * v[TO] ** 2)
    return float(np.sum((p + P_SPEC) ** 2))


def economic_dispatch(p, rho=1.0):
    cost, total = 0.0, 0.0
    for k, (name, (a, b, lo, hi)) in enumerate(GENERATORS.items()):  # noqa: B007
        cost += a * p[k] ** 2 + b * p[k]
        cost += rho * (max(lo - p[k], 0.0) ** 2 + max(p[k] - hi, 0.0) ** 2)
        total += p[k]
    return cost + rho * (total - DEMAND) ** 2


def battery_arbitrage(power, eta=0.92, cap=10.0):
    soc, profit = 5.0, 0.0
    for t, price in enumerate(PRICES):
        pw = power[t]
        if pw > 0:  # charging loses energy, discharging costs it
            soc = soc + eta * pw
        else:
            soc = soc + pw / eta
        profit -= price * pw
        soc = min(max(soc, 0.0), cap)
    return -profit + 0.5 * (soc - 5.0) ** 2


def pv_single_diode(params, v=np.linspace(0.0, 0.6, 5)):  # noqa: B008
    iph, log_i0 = params
    i0 = math.exp(log_i0)
    cur = np.full_like(v, iph)
    for _ in range(6):  # I = Iph - I0 (exp((V + I Rs)/Vt) - 1), Newton in I
        e = np.exp((v + 0.05 * cur) / 0.026)
        f = iph - i0 * (e - 1) - cur
        cur = cur - f / (-i0 * e * 0.05 / 0.026 - 1)
    return float(np.sum(cur * v))


def wind_power(params, speeds=WIND):
    cut_in, rated_speed, rated = params[0], params[1], params[2]
    energy = 0.0
    for u in speeds:
        if u < cut_in or u > 25.0:
            pw = 0.0
        elif u < rated_speed:
            pw = rated * ((u - cut_in) / (rated_speed - cut_in)) ** 3
        else:
            pw = rated
        energy += pw
    return energy


def b_coefficient_losses(p):
    loss = p @ B_LOSS @ p + B0_LOSS @ p + 0.0003
    cost = np.sum(0.5 * p ** 2 * np.array([0.01, 0.02, 0.015]))
    return cost + 100.0 * (np.sum(p) - 300.0 - loss) ** 2


def state_estimation(x, meas=MEAS, sigma=0.5):
    th1, v0, v1 = x[0], x[1], x[2]
    g, b = 4.0, -12.0
    res = []
    for kind, bus, z in meas:
        if kind == "v":
            h = (v0, v1)[bus]
        elif kind == "p":
            sign = 1.0 if bus == 0 else -1.0
            h = v0 * v1 * (g * math.cos(th1) - sign * b * math.sin(th1)) - g * (v0, v1)[bus] ** 2
            h = -h if bus == 0 else h
        else:
            h = -v0 * v1 * (g * math.sin(-th1) - b * math.cos(th1)) - (-b) * v0 ** 2
        res.append(((z - h) / sigma) ** 2)
    return sum(res)


def swing_equation(hd, pm=0.8, pmax=1.5, dt=0.02, steps=40):
    h, d = hd[0], hd[1]
    delta, omega = math.asin(pm / pmax), 0.0
    peak = 0.0
    for k in range(steps):
        pe = pmax * math.sin(delta) * (0.5 if k < 5 else 1.0)
        delta, omega = delta + dt * omega, omega + dt * (pm - pe - d * omega) / (2 * h)
        peak += delta ** 2
    return peak


@dataclasses.dataclass
class HeatPump:
    efficiency: float
    t_sink: float


def heat_pump_cost(params, t_out=np.array([-5.0, 0.0, 5.0, 10.0]), load=np.array([8.0, 6.0, 4.0, 2.0])):  # noqa: B008
    cop = params.efficiency * (params.t_sink + 273.15) / (params.t_sink - t_out)
    return float(np.sum(load / cop)) + 0.01 * params.t_sink ** 2


WATER = [
    ("hyd_bucket_spill", bucket_model, lambda r: (np.array([20.0, 0.3]),), 0),
    ("hyd_reservoir_cascade", reservoir_cascade, lambda r: (np.array([0.5, 0.3, 0.2]),), 0),
    ("hyd_degree_day_snow", degree_day_snow, lambda r: (np.array([2.5, 0.3]),), 0),
    ("hyd_muskingum", muskingum, lambda r: (np.array([2.0, 0.2]),), 0),
    ("hyd_green_ampt_while", green_ampt, lambda r: (np.array([1.2, 5.0]),), 0),
    ("hyd_manning", manning, lambda r: (np.array([0.03, 0.001]),), 0),
    ("hyd_curve_number", curve_number, lambda r: (75.0,), 0),
    ("hyd_nash_lgamma", nash_cascade, lambda r: (np.array([3.2, 1.5]),), 0),
    ("hyd_streeter_phelps", streeter_phelps, lambda r: (np.array([0.3, 0.7]),), 0),
    ("hyd_reservoir_rule", reservoir_rule, lambda r: (r.uniform(25.0, 45.0, 9),), 0),
    ("hyd_groundwater_solve", groundwater_head, lambda r: (r.normal(0.0, 0.3, 6),), 0),
    ("pow_ac_flow_tuples", ac_power_flow,
     lambda r: (np.concatenate([r.normal(0, 0.1, 4), 1 + r.normal(0, 0.02, 4)]),), 0),
    ("pow_ac_flow_add_at", ac_power_flow_vectorised, lambda r: (r.normal(0, 0.1, 4),), 0),
    ("pow_dispatch_dict", economic_dispatch, lambda r: (np.array([200.0, 110.0, 130.0]),), 0),
    ("pow_battery_sign", battery_arbitrage, lambda r: (np.array([2.0, 1.5, -1.0, 0.7, -2.0, -1.3]),), 0),
    ("pow_pv_diode_newton", pv_single_diode, lambda r: (np.array([5.0, -20.0]),), 0),
    ("pow_wind_curve", wind_power, lambda r: (np.array([3.0, 12.0, 2.0]),), 0),
    ("pow_b_losses", b_coefficient_losses, lambda r: (np.array([120.0, 100.0, 90.0]),), 0),
    ("pow_state_estimation", state_estimation, lambda r: (np.array([-0.05, 1.0, 1.01]),), 0),
    ("pow_swing_tuple", swing_equation, lambda r: (np.array([3.0, 0.1]),), 0),
    ("pow_heat_pump_dataclass", heat_pump_cost, lambda r: (HeatPump(0.5, 45.0),), 0),
]
