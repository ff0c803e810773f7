"""Wave 32h: audio, control and queueing as engineers write them: RBJ biquads from a cutoff by
math.cos, envelope followers choosing attack or release per sample, one-pole smoothers, soft-knee
compressors by np.select, ADSR by np.piecewise, FM synthesis, tanh folders on float32, frame RMS
in dB; PID with clipped integrals, LQR rollouts, scalar Kalman likelihoods, shooting MPC, energy
pumping; M/M/1 with validation, Erlang C with math.factorial, Lindley recursions, Jackson
networks, Pollaczek-Khinchine, comb filters with ring buffers."""

from __future__ import annotations

import math

import numpy as np

RNG = np.random.default_rng(324)
SIG = np.sin(np.linspace(0, 6 * np.pi, 48)) + 0.3 * RNG.normal(size=48)
TARGET = np.convolve(SIG, [0.25, 0.5, 0.25], mode="same")


def rbj_lowpass(f0, q, fs=48.0):
    w0 = 2 * math.pi * f0 / fs
    alpha = math.sin(w0) / (2 * q)
    cw = math.cos(w0)
    a0 = 1 + alpha
    return ((1 - cw) / 2 / a0, (1 - cw) / a0, (1 - cw) / 2 / a0, -2 * cw / a0, (1 - alpha) / a0)


def biquad_fit(params, x=SIG, target=TARGET):
    b0, b1, b2, a1, a2 = rbj_lowpass(params[0], params[1])
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n, xn in enumerate(x):
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        y[n] = yn
        x2, x1 = x1, xn
        y2, y1 = y1, yn
    return np.mean((y - target) ** 2)


def envelope_follower(coefs, x=np.abs(SIG)):  # noqa: B008
    attack, release = coefs
    env = 0.0
    out = []
    for s in x:
        if s > env:
            env = attack * env + (1 - attack) * s
        else:
            env = release * env + (1 - release) * s
        out.append(env)
    return np.sum((np.array(out) - 0.7) ** 2)


def one_pole(a, x=SIG):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = a * y[i - 1] + (1 - a) * x[i]
    return np.sum(np.diff(y) ** 2) + np.sum((y - x) ** 2)


def soft_knee(gain_params, level_db=np.linspace(-40, 0, 17)):  # noqa: B008
    threshold, ratio, knee = gain_params
    over = level_db - threshold
    out = np.select([2 * over < -knee, 2 * np.abs(over) <= knee],
                    [level_db, level_db + (1 / ratio - 1) * (over + knee / 2) ** 2 / (2 * knee)],
                    threshold + over / ratio)
    return np.sum((out - 0.8 * level_db) ** 2)


def adsr(times, t=np.linspace(0.0, 1.0, 21), sustain=0.6):  # noqa: B008
    a, d = times
    env = np.piecewise(t, [t < a, (t >= a) & (t < a + d), t >= a + d],
                       [lambda u: u / a, lambda u: 1 - (1 - sustain) * (u - a) / d, sustain])
    return np.sum(env ** 2)


def fm_synth(params, t=np.linspace(0, 1, 40), target=np.sin(2 * np.pi * 3 * np.linspace(0, 1, 40))):  # noqa: B008
    fc, fm, index = params
    y = np.sin(2 * np.pi * fc * t + index * np.sin(2 * np.pi * fm * t))
    return np.mean((y - target) ** 2)


def wavefolder_f32(gain, x=SIG.astype(np.float32)):  # noqa: B008
    y = np.tanh(gain[0] * x) + 0.3 * np.tanh(gain[1] * x) ** 3
    return np.mean(y ** 2)


def frame_rms_db(w, x=SIG, frame=8, hop=4):
    y = w[0] * x + w[1] * np.roll(x, 1)
    total = 0.0
    for start in range(0, len(y) - frame + 1, hop):
        seg = y[start:start + frame]
        db = 20 * np.log10(np.sqrt(np.mean(seg ** 2)) + 1e-9)
        total += (db + 3.0) ** 2
    return total


def comb_filter(g, x=SIG, delay=5):
    buf = [0.0] * delay
    idx = 0
    out = 0.0
    for s in x:
        y = s + g * buf[idx]
        buf[idx] = y
        idx = (idx + 1) % delay
        out += y * y
    return out


def pid(gains, setpoint=1.0, dt=0.05, steps=80, i_max=2.0):
    kp, ki, kd = gains["kp"], gains["ki"], gains["kd"]
    x = v = integ = 0.0
    prev_err = setpoint
    cost = 0.0
    for _ in range(steps):
        err = setpoint - x
        integ = float(np.clip(integ + err * dt, -i_max, i_max))
        u = kp * err + ki * integ + kd * (err - prev_err) / dt
        prev_err = err
        v += dt * (u - 0.5 * v)
        x += dt * v
        cost += err ** 2 * dt
    return cost


A_SYS = np.array([[1.0, 0.1], [0.0, 1.0]])
B_SYS = np.array([[0.005], [0.1]])


def lqr_rollout(K, A=A_SYS, B=B_SYS, x0=np.array([1.0, 0.0]), steps=30):  # noqa: B008
    Q, R = np.diag([1.0, 0.1]), np.array([[0.01]])
    x = x0
    J = 0.0
    for _ in range(steps):
        u = -K @ x
        J += x @ Q @ x + u @ R @ u
        x = A @ x + B @ u
    return J


def kalman_loglik(log_qr, ys=np.cumsum(RNG.normal(size=15)) + RNG.normal(size=15)):  # noqa: B008
    q, r = np.exp(log_qr)
    m, p = 0.0, 10.0
    ll = 0.0
    for y in ys:
        p = p + q
        s = p + r
        k = p / s
        ll += -0.5 * (math.log(2 * math.pi) + np.log(s) + (y - m) ** 2 / s)
        m = m + k * (y - m)
        p = (1 - k) * p
    return -ll


def unicycle_mpc(u, dt=0.1, goal=np.array([1.0, 0.5])):  # noqa: B008
    x = y = th = 0.0
    cost = 0.0
    for k in range(len(u) // 2):
        v, w = u[2 * k], u[2 * k + 1]
        x += dt * v * np.cos(th)
        y += dt * v * np.sin(th)
        th += dt * w
        cost += 0.01 * (v ** 2 + w ** 2)
    return cost + (x - goal[0]) ** 2 + (y - goal[1]) ** 2


def mm1_wait(rates):
    lam, mu = rates
    if lam >= mu:
        raise ValueError("unstable queue: arrival rate must be below service rate")
    rho = lam / mu
    return rho / (mu - lam) + 0.5 * (mu - 3.0) ** 2


def erlang_c(a, servers=4):
    tail = a ** servers / math.factorial(servers) * servers / (servers - a)
    head = sum(a ** k / math.factorial(k) for k in range(servers))
    return tail / (head + tail)


def lindley(service, arrivals=RNG.exponential(1.0, size=12)):  # noqa: B008
    w = 0.0
    total = 0.0
    for s, a in zip(service, arrivals):
        w = max(0.0, w + s - a)
        total += w
    return total / len(service)


def jackson(gamma, mu=np.array([4.0, 5.0, 3.5])):  # noqa: B008
    P = np.array([[0.0, 0.5, 0.3], [0.2, 0.0, 0.4], [0.1, 0.1, 0.0]])
    lam = np.linalg.solve(np.eye(3) - P.T, gamma)
    rho = lam / mu
    return np.sum(rho / (1 - rho))


def pollaczek(moments, lam=0.5):
    es, es2 = moments[0], moments[1]
    rho = lam * es
    wq = lam * es2 / (2 * (1 - rho))
    return wq + es


SIGNALS = [
    ("aud_rbj_biquad_helper", biquad_fit, lambda rng: (np.array([6.0, 0.8]),), 0),
    ("aud_envelope_attack_release", envelope_follower, lambda rng: (np.array([0.3, 0.85]),), 0),
    ("aud_one_pole_index", one_pole, lambda rng: (0.6,), 0),
    ("aud_soft_knee_select", soft_knee, lambda rng: (np.array([-19.3, 4.0, 6.1]),), 0),
    ("aud_adsr_piecewise", adsr, lambda rng: (np.array([0.13, 0.29]),), 0),
    ("aud_fm_synth", fm_synth, lambda rng: (np.array([2.9, 1.1, 0.3]),), 0),
    ("aud_wavefolder_f32", wavefolder_f32, lambda rng: (np.array([1.5, 0.7]),), 0),
    ("aud_frame_rms_db", frame_rms_db, lambda rng: (np.array([0.8, 0.3]),), 0),
    ("aud_comb_ring_buffer", comb_filter, lambda rng: (0.4,), 0),
    ("ctl_pid_dict_clip", pid, lambda rng: ({"kp": 2.0, "ki": 0.5, "kd": 0.1},), 0),
    ("ctl_lqr_rollout", lqr_rollout, lambda rng: (np.array([[3.0, 2.5]]),), 0),
    ("ctl_kalman_loglik", kalman_loglik, lambda rng: (np.array([0.0, -0.5]),), 0),
    ("ctl_unicycle_mpc", unicycle_mpc, lambda rng: (0.5 + 0.2 * rng.normal(size=16),), 0),
    ("que_mm1_raise", mm1_wait, lambda rng: (np.array([2.0, 3.5]),), 0),
    ("que_erlang_c_factorial", erlang_c, lambda rng: (2.7,), 0),
    ("que_lindley_max", lindley, lambda rng: (rng.exponential(0.8, size=12),), 0),
    ("que_jackson_solve", jackson, lambda rng: (np.array([1.0, 0.5, 0.8]),), 0),
    ("que_pollaczek_khinchine", pollaczek, lambda rng: (np.array([1.2, 2.5]),), 0),
]
