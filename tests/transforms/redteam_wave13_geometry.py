"""The red team's thirteenth wave, continued: geometry (the shoelace formula through np.roll, a
polygon's centroid and perimeter, point-to-segment distances with a clipped parameter, a 2-D
Procrustes fit, quaternions to matrices and slerp, ZYX Euler angles, haversine distances through
math, box IoU, tetrahedron volumes by np.linalg.det, polyline arc length, angles by arccos of a
clipped cosine) and signal processing (np.convolve with a Hann window, rfft magnitudes, a
windowed-sinc FIR, np.correlate autocorrelation, a biquad IIR loop, Goertzel, a DFT by hand,
Welch-style averaged periodograms, an RMS envelope, zero-padded irfft).  See redteam_wave13.py.
"""

from __future__ import annotations

import math

import numpy as np

# ---- geometry --------------------------------------------------------------------------------------


def shoelace_area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def polygon_centroid_perimeter(P):
    x, y = P[:, 0], P[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    A = 0.5 * cross.sum()
    cx = np.sum((x + xn) * cross) / (6 * A)
    cy = np.sum((y + yn) * cross) / (6 * A)
    edges = np.diff(P, axis=0, append=P[:1])
    return cx ** 2 + cy ** 2 + np.linalg.norm(edges, axis=1).sum()


def point_segment_distance(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
    closest = a + t * ab
    return np.linalg.norm(p - closest)


def procrustes_2d(theta, src, dst):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return np.sum((src @ R.T - dst) ** 2)


def quat_to_matrix(q):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def quaternion_rotate_points(q, pts, target):
    R = quat_to_matrix(q)
    return np.sum((pts @ R.T - target) ** 2)


def slerp_angle(q0, q1, t=0.3):
    q0 = q0 / np.linalg.norm(q0)
    q1 = q1 / np.linalg.norm(q1)
    d = np.dot(q0, q1)
    omega = np.arccos(np.clip(d, -1.0, 1.0))
    q = (np.sin((1 - t) * omega) * q0 + np.sin(t * omega) * q1) / np.sin(omega)
    return q[0] ** 2 - q[3]


def euler_zyx(angles, v):
    yaw, pitch, roll = angles
    Rz = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[math.cos(pitch), 0.0, math.sin(pitch)], [0.0, 1.0, 0.0],
                   [-math.sin(pitch), 0.0, math.cos(pitch)]])
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(roll), -math.sin(roll)], [0.0, math.sin(roll), math.cos(roll)]])
    return (Rz @ Ry @ Rx @ v)[2]


def haversine_km(lat1, lon1, lat2, lon2, R=6371.0):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return 2 * R * math.asin(math.sqrt(a))


def box_iou(a, b):
    x1, y1 = np.maximum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])
    x2, y2 = np.minimum(a[:, 2], b[:, 2]), np.minimum(a[:, 3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return np.mean(1.0 - inter / (area_a + area_b - inter))


def tetra_volumes(V, tets):
    total = 0.0
    for t in tets:
        a, b, c, d = V[t[0]], V[t[1]], V[t[2]], V[t[3]]
        total += abs(np.linalg.det(np.stack([b - a, c - a, d - a]))) / 6.0
    return total


def polyline_length_resample(P, s_query):
    seg = np.sqrt(np.sum(np.diff(P, axis=0) ** 2, axis=1))
    s = np.concatenate([[0.0], np.cumsum(seg)])
    s = s / s[-1]
    xq = np.interp(s_query, s, P[:, 0])
    return s[-2] + np.sum(xq ** 2)


def angle_between(u, v):
    cosang = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return np.arccos(np.clip(cosang, -1.0, 1.0))


def circumradius(P):
    a = math.dist(P[0], P[1])
    b = math.dist(P[1], P[2])
    c = math.dist(P[2], P[0])
    s = (a + b + c) / 2
    area = math.sqrt(s * (s - a) * (s - b) * (s - c))
    return a * b * c / (4 * area)


# ---- signal processing -----------------------------------------------------------------------------


def hann_smooth(x, n=5):
    w = np.hanning(n)
    w = w / w.sum()
    y = np.convolve(x, w, mode="valid")
    return np.sum(y ** 2)


def rfft_magnitude(x):
    win = np.hamming(len(x))
    spec = np.abs(np.fft.rfft(x * win))
    return np.sum(spec[1:4]) / len(x)


def windowed_sinc_fir(fc, x, taps=9):
    n = np.arange(taps) - (taps - 1) / 2
    h = 2 * fc * np.sinc(2 * fc * n) * np.blackman(taps)
    h = h / np.sum(h)
    y = np.convolve(x, h, mode="same")
    return np.sum(y * x)


def autocorrelation_lag1(x):
    x = x - x.mean()
    ac = np.correlate(x, x, mode="full")
    mid = len(x) - 1
    return ac[mid + 1] / ac[mid]


def biquad_lowpass(b, a, x):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(len(x)):
        y[n] = b[0] * x[n] + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, y[n]
    return np.sum(y ** 2)


def goertzel_power(x, k=2):
    N = len(x)
    w = 2 * math.pi * k / N
    coeff = 2 * math.cos(w)
    s1 = s2 = 0.0
    for sample in x:
        s = sample + coeff * s1 - s2
        s2, s1 = s1, s
    return s1 ** 2 + s2 ** 2 - coeff * s1 * s2


def dft_by_hand(x):
    N = len(x)
    n = np.arange(N)
    k = n[:, None]
    re = np.cos(2 * np.pi * k * n / N) @ x
    im = -np.sin(2 * np.pi * k * n / N) @ x
    return np.sum(np.sqrt(re[1:] ** 2 + im[1:] ** 2 + 1e-12))


def welch_periodogram(x, seg=4):
    frames = x.reshape(-1, seg) * np.hanning(seg)
    P = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return np.mean(P, axis=0)[1]


def rms_envelope(x, w=3):
    sq = np.convolve(x ** 2, np.ones(w) / w, mode="valid")
    return np.max(np.sqrt(sq))


def zero_pad_irfft(c, n=10):
    spec = np.zeros(n // 2 + 1)
    spec[: len(c)] = c
    y = np.fft.irfft(spec, n=n)
    return np.sum(y ** 3)


def M(rng, *shape):
    return rng.normal(size=shape)


SQUARE = np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.8], [0.1, 2.0], [-0.5, 1.0]])
TETS = np.array([[0, 1, 2, 3], [1, 2, 3, 4]])


def _boxes(r):
    lo = r.uniform(0.0, 1.0, size=(3, 2))
    return np.concatenate([lo, lo + r.uniform(1.0, 2.0, size=(3, 2))], axis=1)


GEOMETRY13 = [
    ("w13_shoelace_area", shoelace_area, lambda r: (SQUARE + 0.05 * M(r, 5, 2),), 0),
    ("w13_polygon_centroid_perimeter", polygon_centroid_perimeter, lambda r: (SQUARE + 0.05 * M(r, 5, 2),), 0),
    ("w13_point_segment_distance", point_segment_distance,
     lambda r: (np.array([0.4, 1.1]), np.array([0.0, 0.0]), np.array([1.0, 0.2])), 0),
    ("w13_point_segment_endpoint", point_segment_distance,
     lambda r: (np.array([0.4, 1.1]), np.array([0.0, 0.0]), np.array([1.0, 0.2])), 2),
    ("w13_procrustes_2d", procrustes_2d, lambda r: (0.3, M(r, 5, 2), M(r, 5, 2)), 0),
    ("w13_quaternion_rotate_points", quaternion_rotate_points, lambda r: (M(r, 4), M(r, 4, 3), M(r, 4, 3)), 0),
    ("w13_slerp_angle", slerp_angle, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w13_euler_zyx", euler_zyx, lambda r: ((0.3, -0.2, 0.7), M(r, 3)), 0),
    ("w13_haversine_km", haversine_km, lambda r: (48.85, 2.35, 51.5, -0.12), 0),
    ("w13_haversine_km_lon", haversine_km, lambda r: (48.85, 2.35, 51.5, -0.12), 3),
    ("w13_box_iou", box_iou, lambda r: (_boxes(r), _boxes(r) + 0.3), 0),
    ("w13_tetra_volumes", tetra_volumes, lambda r: (M(r, 5, 3), TETS), 0),
    ("w13_polyline_length_resample", polyline_length_resample,
     lambda r: (np.cumsum(np.abs(M(r, 5, 2)), axis=0), r.uniform(0.05, 0.95, size=4)), 0),
    ("w13_angle_between", angle_between, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w13_circumradius", circumradius, lambda r: (np.array([[0.0, 0.0], [2.0, 0.3], [0.7, 1.6]]),), 0),
    ("w13_hann_smooth", hann_smooth, lambda r: (M(r, 12),), 0),
    ("w13_rfft_magnitude", rfft_magnitude, lambda r: (M(r, 16),), 0),
    ("w13_windowed_sinc_fir", windowed_sinc_fir, lambda r: (0.2, M(r, 12)), 0),
    ("w13_windowed_sinc_fir_signal", windowed_sinc_fir, lambda r: (0.2, M(r, 12)), 1),
    ("w13_autocorrelation_lag1", autocorrelation_lag1, lambda r: (M(r, 10),), 0),
    ("w13_biquad_lowpass", biquad_lowpass,
     lambda r: (np.array([0.2, 0.4, 0.2]), np.array([-0.5, 0.2]), M(r, 8)), 0),
    ("w13_biquad_lowpass_feedback", biquad_lowpass,
     lambda r: (np.array([0.2, 0.4, 0.2]), np.array([-0.5, 0.2]), M(r, 8)), 1),
    ("w13_goertzel_power", goertzel_power, lambda r: (M(r, 8),), 0),
    ("w13_dft_by_hand", dft_by_hand, lambda r: (M(r, 8),), 0),
    ("w13_welch_periodogram", welch_periodogram, lambda r: (M(r, 12),), 0),
    ("w13_rms_envelope", rms_envelope, lambda r: (M(r, 9),), 0),
    ("w13_zero_pad_irfft", zero_pad_irfft, lambda r: (M(r, 4),), 0),
]
