"""The red team's seventeenth wave, continued: images and robots.  Image processing on small arrays
(bilinear sampling at fractional coordinates through np.floor and integer indices, a Sobel gradient by
slices, a separable Gaussian blur written as two loops over taps, a total-variation energy with a
smoothed norm, gamma correction and alpha compositing, an SSIM of two patches, a chamfer distance by
np.min over a pairwise table, a homography applied to points, radial lens distortion, a soft
rasteriser's sigmoid coverage, an RGB to luminance dot, histogram-free contrast stretching by
np.percentile-free min/max), and robotics (a planar arm's forward kinematics by a cumulative angle
loop, Denavit-Hartenberg transforms multiplied in a loop, damped least-squares inverse kinematics
steps, a differential-drive odometry rollout, an SE(2) pose graph's residuals, a cart-pole Euler
rollout under a linear policy, a minimum-jerk trajectory's cost, a quadrotor's thrust allocation).
See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- image processing -----------------------------------------------------------------------------------


def bilinear_sample(img, pts):
    total = 0.0
    for p in pts:
        x0 = int(np.floor(p[0]))
        y0 = int(np.floor(p[1]))
        fx, fy = p[0] - x0, p[1] - y0
        v = (img[y0, x0] * (1 - fx) * (1 - fy) + img[y0, x0 + 1] * fx * (1 - fy)
             + img[y0 + 1, x0] * (1 - fx) * fy + img[y0 + 1, x0 + 1] * fx * fy)
        total += v ** 2
    return total


def bilinear_vectorised(img, pts):
    x0 = np.floor(pts[:, 0]).astype(int)
    y0 = np.floor(pts[:, 1]).astype(int)
    fx = pts[:, 0] - x0
    fy = pts[:, 1] - y0
    v = (img[y0, x0] * (1 - fx) * (1 - fy) + img[y0, x0 + 1] * fx * (1 - fy)
         + img[y0 + 1, x0] * (1 - fx) * fy + img[y0 + 1, x0 + 1] * fx * fy)
    return np.sum(v ** 2)


def sobel_energy(img):
    gx = (img[:-2, 2:] + 2 * img[1:-1, 2:] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[1:-1, :-2] + img[2:, :-2])
    gy = (img[2:, :-2] + 2 * img[2:, 1:-1] + img[2:, 2:]) - (img[:-2, :-2] + 2 * img[:-2, 1:-1] + img[:-2, 2:])
    return np.sum(np.sqrt(gx ** 2 + gy ** 2 + 1e-6))


def separable_blur(img, sigma):
    taps = np.arange(-2, 3)
    k = np.exp(-taps ** 2 / (2 * sigma ** 2))
    k = k / k.sum()
    h, w = img.shape
    tmp = np.zeros((h, w - 4))
    for t in range(5):
        tmp = tmp + k[t] * img[:, t:t + w - 4]
    out = np.zeros((h - 4, w - 4))
    for t in range(5):
        out = out + k[t] * tmp[t:t + h - 4, :]
    return np.sum(out ** 2)


def tv_denoise_energy(u, f, lam=0.2, eps=1e-3):
    dx = np.diff(u, axis=1)[:-1, :]
    dy = np.diff(u, axis=0)[:, :-1]
    return 0.5 * np.sum((u - f) ** 2) + lam * np.sum(np.sqrt(dx ** 2 + dy ** 2 + eps ** 2))


def gamma_composite(fg, bg, alpha, gamma=2.2):
    lin_fg = np.clip(fg, 0.0, 1.0) ** gamma
    lin_bg = bg ** gamma
    out = alpha * lin_fg + (1 - alpha) * lin_bg
    return np.sum(out ** (1.0 / gamma))


def ssim_patch(x, y, c1=1e-4, c2=9e-4):
    mx, my = x.mean(), y.mean()
    vx, vy = x.var(), y.var()
    cov = ((x - mx) * (y - my)).mean()
    return ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx ** 2 + my ** 2 + c1) * (vx + vy + c2))


def chamfer_distance(a, b):
    d = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    return np.mean(np.min(d, axis=1)) + np.mean(np.min(d, axis=0))


def homography_error(h, src, dst):
    H = np.append(h, 1.0).reshape(3, 3)
    pts = np.hstack([src, np.ones((len(src), 1))])
    proj = pts @ H.T
    uv = proj[:, :2] / proj[:, 2:3]
    return np.sum((uv - dst) ** 2)


def radial_distortion(k, pts, observed):
    r2 = np.sum(pts ** 2, axis=1, keepdims=True)
    factor = 1 + k[0] * r2 + k[1] * r2 ** 2
    return np.sum((pts * factor - observed) ** 2)


def soft_raster(center, radius, grid, sharpness=20.0):
    d = np.sqrt(np.sum((grid - center) ** 2, axis=-1))
    coverage = 1.0 / (1.0 + np.exp(sharpness * (d - radius)))
    target = (np.arange(grid.shape[0] * grid.shape[1]).reshape(grid.shape[:2]) % 3 == 0).astype(float)
    return np.sum((coverage - target) ** 2)


def luminance_stretch(rgb):
    lum = rgb @ np.array([0.2126, 0.7152, 0.0722])
    lo, hi = lum.min(), lum.max()
    stretched = (lum - lo) / (hi - lo)
    return np.sum(stretched ** 2 * np.arange(len(lum)))


# ---- robotics -------------------------------------------------------------------------------------------


def planar_arm_reach(angles, lengths, target):
    x = y = 0.0
    phi = 0.0
    for a, l in zip(angles, lengths):
        phi += a
        x += l * math.cos(phi)
        y += l * math.sin(phi)
    return (x - target[0]) ** 2 + (y - target[1]) ** 2


def _dh(theta, d, a, alpha):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_chain(q, dh_table):
    T = np.eye(4)
    for theta, (d, a, alpha) in zip(q, dh_table):
        T = T @ _dh(theta, d, a, alpha)
    return np.sum(T[:3, 3] ** 2) + T[0, 0]


def damped_ik_steps(q0, target, lam=0.1):
    q = q0.copy()
    for _ in range(5):
        c1, s1 = np.cos(q[0]), np.sin(q[0])
        c12, s12 = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
        pos = np.array([c1 + c12, s1 + s12])
        J = np.array([[-s1 - s12, -s12], [c1 + c12, c12]])
        err = target - pos
        q = q + J.T @ np.linalg.solve(J @ J.T + lam * np.eye(2), err)
    return np.sum(q ** 2)


def diff_drive_odometry(wheels, dt=0.1, base=0.5):
    x, y, th = 0.0, 0.0, 0.0
    for vl, vr in wheels:
        v = 0.5 * (vl + vr)
        w = (vr - vl) / base
        x += v * math.cos(th) * dt
        y += v * math.sin(th) * dt
        th += w * dt
    return x ** 2 + 2 * y ** 2 + th


def se2_pose_graph(poses, edges, meas):
    total = 0.0
    for (i, j), m in zip(edges, meas):
        xi, yi, ti = poses[i]
        xj, yj, tj = poses[j]
        c, s = np.cos(ti), np.sin(ti)
        dx, dy = xj - xi, yj - yi
        local = np.array([c * dx + s * dy, -s * dx + c * dy, tj - ti])
        r = local - m
        r[2] = np.arctan2(np.sin(r[2]), np.cos(r[2]))
        total += r @ r
    return total


def cartpole_rollout(K, steps=40, dt=0.02):
    x = np.array([0.0, 0.0, 0.1, 0.0])
    cost = 0.0
    for _ in range(steps):
        force = -K @ x
        theta, omega = x[2], x[3]
        sin_t, cos_t = np.sin(theta), np.cos(theta)
        temp = (force + 0.05 * omega ** 2 * sin_t) / 1.1
        alpha = (9.8 * sin_t - cos_t * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos_t ** 2 / 1.1))
        acc = temp - 0.05 * alpha * cos_t / 1.1
        x = x + dt * np.array([x[1], acc, omega, alpha])
        cost += x @ x + 0.01 * force ** 2
    return cost


def minimum_jerk_cost(waypoints, dt=0.1):
    vel = np.diff(waypoints, axis=0) / dt
    acc = np.diff(vel, axis=0) / dt
    jerk = np.diff(acc, axis=0) / dt
    return np.sum(jerk ** 2) * dt + np.sum((waypoints[-1] - np.array([1.0, 2.0])) ** 2)


def quadrotor_allocation(thrusts, arm=0.2, kq=0.02):
    alloc = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, arm, 0.0, -arm], [-arm, 0.0, arm, 0.0], [kq, -kq, kq, -kq]])
    wrench = alloc @ thrusts
    desired = np.array([9.81, 0.1, -0.05, 0.0])
    return np.sum((wrench - desired) ** 2) + 1e-3 * np.sum(thrusts ** 2)


def _grid(n=4):
    g = np.stack(np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n), indexing="ij"), axis=-1)
    return g


VISION17 = [
    ("w17_bilinear_sample", bilinear_sample, lambda r: (M(r, 5, 5), np.array([[1.3, 2.6], [0.4, 0.7], [3.2, 1.9]])), 0),
    ("w17_bilinear_sample_points", bilinear_sample,
     lambda r: (M(r, 5, 5), np.array([[1.3, 2.6], [0.4, 0.7], [3.2, 1.9]])), 1),
    ("w17_bilinear_vectorised", bilinear_vectorised,
     lambda r: (M(r, 5, 5), np.array([[1.3, 2.6], [0.4, 0.7], [3.2, 1.9]])), 1),
    ("w17_sobel_energy", sobel_energy, lambda r: (M(r, 5, 6),), 0),
    ("w17_separable_blur", separable_blur, lambda r: (M(r, 7, 7), 1.2), 1),
    ("w17_separable_blur_image", separable_blur, lambda r: (M(r, 7, 7), 1.2), 0),
    ("w17_tv_denoise_energy", tv_denoise_energy, lambda r: (M(r, 4, 5), M(r, 4, 5)), 0),
    ("w17_gamma_composite", gamma_composite,
     lambda r: (r.uniform(0.1, 0.9, 6), r.uniform(0.1, 0.9, 6), r.uniform(0.2, 0.8, 6)), 2),
    ("w17_gamma_composite_fg", gamma_composite,
     lambda r: (r.uniform(0.1, 0.9, 6), r.uniform(0.1, 0.9, 6), r.uniform(0.2, 0.8, 6)), 0),
    ("w17_ssim_patch", ssim_patch, lambda r: (r.uniform(size=(3, 3)), r.uniform(size=(3, 3))), 0),
    ("w17_chamfer_distance", chamfer_distance, lambda r: (M(r, 5, 2), M(r, 4, 2)), 0),
    ("w17_homography_error", homography_error,
     lambda r: (np.array([1.0, 0.1, 0.2, -0.05, 0.9, 0.1, 0.01, 0.02]), M(r, 5, 2), M(r, 5, 2)), 0),
    ("w17_radial_distortion", radial_distortion, lambda r: (np.array([0.1, -0.02]), M(r, 6, 2), M(r, 6, 2)), 0),
    ("w17_soft_raster", soft_raster, lambda r: (np.array([0.1, -0.2]), 0.6, _grid()), 0),
    ("w17_soft_raster_radius", soft_raster, lambda r: (np.array([0.1, -0.2]), 0.6, _grid()), 1),
    ("w17_luminance_stretch", luminance_stretch, lambda r: (r.uniform(size=(6, 3)),), 0),
    ("w17_planar_arm_reach", planar_arm_reach,
     lambda r: (np.array([0.3, 0.5, -0.4]), np.array([1.0, 0.8, 0.5]), np.array([1.2, 1.0])), 0),
    ("w17_planar_arm_lengths", planar_arm_reach,
     lambda r: (np.array([0.3, 0.5, -0.4]), np.array([1.0, 0.8, 0.5]), np.array([1.2, 1.0])), 1),
    ("w17_dh_chain", dh_chain,
     lambda r: (np.array([0.2, -0.4, 0.7]), [(0.3, 0.0, np.pi / 2), (0.0, 0.5, 0.0), (0.0, 0.4, 0.0)]), 0),
    ("w17_damped_ik_steps", damped_ik_steps, lambda r: (np.array([0.4, 0.9]), np.array([1.1, 0.9])), 0),
    ("w17_damped_ik_target", damped_ik_steps, lambda r: (np.array([0.4, 0.9]), np.array([1.1, 0.9])), 1),
    ("w17_diff_drive_odometry", diff_drive_odometry, lambda r: (1.0 + 0.3 * M(r, 8, 2),), 0),
    ("w17_se2_pose_graph", se2_pose_graph,
     lambda r: (0.3 * M(r, 4, 3), [(0, 1), (1, 2), (2, 3), (3, 0)], 0.3 * M(r, 4, 3)), 0),
    ("w17_cartpole_rollout", cartpole_rollout, lambda r: (np.array([-1.0, -2.0, -30.0, -5.0]),), 0),
    ("w17_minimum_jerk_cost", minimum_jerk_cost, lambda r: (np.cumsum(0.1 + 0.05 * M(r, 7, 2), axis=0),), 0),
    ("w17_quadrotor_allocation", quadrotor_allocation, lambda r: (np.array([2.4, 2.5, 2.45, 2.5]),), 0),
]
