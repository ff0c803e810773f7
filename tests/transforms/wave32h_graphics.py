"""Wave 32h: computer graphics and optics the way renderer and lens people write them: nearest hit of
rays on spheres with ``continue``, barycentric coordinates by areas, Blinn-Phong with a normalise
helper of a default epsilon, Schlick + GGX, soft rasterisation, smooth-min signed distances,
Rodrigues projection, de Casteljau, sRGB by np.where, NeRF-style compositing by cumprod, Snell
and Fresnel, ABCD ray matrices, Gaussian beams, mesh smoothing over edge tuples."""

from __future__ import annotations

import math

import numpy as np

RNG = np.random.default_rng(322)
LIGHT = np.array([0.3, 0.8, 0.5])
VIEW = np.array([0.0, 0.2, 1.0])


def normalise(v, eps=1e-12):
    return v / np.sqrt(np.sum(v * v, axis=-1, keepdims=True) + eps)


def nearest_hit(centres, origin=np.zeros(3), dirs=normalise(np.array([[0.1, 0.0, 1.0], [0.0, 0.1, 1.0],  # noqa: B008
                                                                      [-0.1, 0.05, 1.0]])), radius=0.6):
    total = 0.0
    for d in dirs:
        best = 1e9
        for c in centres:
            oc = origin - c
            b = np.dot(oc, d)
            disc = b * b - (np.dot(oc, oc) - radius * radius)
            if disc < 0:
                continue
            t = -b - np.sqrt(disc)
            if t < best:
                best = t
        total += best
    return total


def barycentric_colour(tri, p=np.array([0.3, 0.25]), colours=np.array([1.0, 0.2, 0.5])):  # noqa: B008
    a, b, c = tri

    def area(u, v, w):
        return 0.5 * ((v[0] - u[0]) * (w[1] - u[1]) - (w[0] - u[0]) * (v[1] - u[1]))
    total = area(a, b, c)
    lam = np.array([area(p, b, c), area(a, p, c), area(a, b, p)]) / total
    return np.dot(lam, colours) ** 2


def blinn_phong(normals, light=LIGHT, view=VIEW, shininess=16.0, kd=0.7, ks=0.3):
    n = normalise(normals)
    l_dir = normalise(light)
    h = normalise(l_dir + normalise(view))
    diffuse = np.maximum(n @ l_dir, 0.0)
    specular = np.maximum(n @ h, 0.0) ** shininess
    return np.sum(kd * diffuse + ks * specular)


def ggx_schlick(params, n_dot_h=np.linspace(0.6, 0.99, 7), v_dot_h=np.linspace(0.5, 0.95, 7)):  # noqa: B008
    roughness, f0 = params
    a2 = roughness ** 4
    d = a2 / (np.pi * (n_dot_h ** 2 * (a2 - 1) + 1) ** 2)
    fresnel = f0 + (1 - f0) * (1 - v_dot_h) ** 5
    return np.sum(d * fresnel)


GRID = np.stack(np.meshgrid(np.linspace(0, 1, 6), np.linspace(0, 1, 6)), axis=-1).reshape(-1, 2)
TARGET = (np.linalg.norm(GRID - 0.5, axis=1) < 0.3).astype(float)


def soft_raster(verts, pix=GRID, target=TARGET, sharpness=20.0):
    cover = np.ones(len(pix))
    for i in range(3):
        a, b = verts[i], verts[(i + 1) % 3]
        edge = b - a
        signed = (edge[0] * (pix[:, 1] - a[1]) - edge[1] * (pix[:, 0] - a[0])) / np.linalg.norm(edge)
        cover = cover * (1 / (1 + np.exp(-sharpness * signed)))
    return np.sum((cover - target) ** 2)


def smooth_min(a, b, k=0.2):
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b * (1 - h) + a * h - k * h * (1 - h)


def sdf_union(circles, pts=RNG.uniform(-1, 1, size=(12, 2)), targets=RNG.uniform(-0.3, 0.3, size=12)):  # noqa: B008
    d1 = np.linalg.norm(pts - circles[0, :2], axis=1) - circles[0, 2]
    d2 = np.linalg.norm(pts - circles[1, :2], axis=1) - circles[1, 2]
    return np.mean((smooth_min(d1, d2) - targets) ** 2)


def rodrigues(w):
    theta = np.sqrt(w @ w)
    k = w / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


def reprojection(pose, X=RNG.normal(size=(6, 3)) + np.array([0, 0, 6.0]), uv=RNG.normal(size=(6, 2)) * 0.1,  # noqa: B008
                 f=1.0):
    R = rodrigues(pose[:3])
    Xc = X @ R.T + pose[3:]
    proj = f * Xc[:, :2] / Xc[:, 2:3]
    return np.sum((proj - uv) ** 2)


def de_casteljau(ctrl, ts=np.linspace(0, 1, 9)):  # noqa: B008
    pts = []
    for t in ts:
        level = [ctrl[i] for i in range(len(ctrl))]
        while len(level) > 1:
            level = [(1 - t) * level[i] + t * level[i + 1] for i in range(len(level) - 1)]
        pts.append(level[0])
    curve = np.array(pts)
    return np.sum(np.sqrt(np.sum(np.diff(curve, axis=0) ** 2, axis=1)))


def srgb_loss(linear, target=np.array([0.2, 0.5, 0.9, 0.01, 0.7])):  # noqa: B008
    enc = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) - 0.055)
    return np.sum((enc - target) ** 2)


def nerf_composite(sigma, deltas=np.full(8, 0.25), colours=np.linspace(0.1, 0.9, 8), target=0.4):  # noqa: B008
    alpha = 1.0 - np.exp(-np.exp(sigma) * deltas)
    trans = np.cumprod(np.concatenate([np.ones(1), 1.0 - alpha[:-1]]))
    weights = alpha * trans
    return (np.sum(weights * colours) - target) ** 2 + 0.01 * np.sum(weights * (1 - weights))


def snell_slab(n2, theta=0.4, thickness=2.0):
    sin_t = math.sin(theta) / n2
    cos_t = math.sqrt(1 - sin_t ** 2)
    shift = thickness * math.sin(theta - math.asin(sin_t)) / cos_t
    return shift


def fresnel_rs_rp(n, angles=np.linspace(0.1, 1.2, 6)):  # noqa: B008
    ci = np.cos(angles)
    st = np.sin(angles) / n
    ct = np.sqrt(1 - st ** 2)
    rs = ((ci - n * ct) / (ci + n * ct)) ** 2
    rp = ((ct - n * ci) / (ct + n * ci)) ** 2
    return np.sum(0.5 * (rs + rp))


def abcd_focal(curvatures, n=1.5, gaps=(0.1, 0.3, 0.1)):
    M = np.eye(2)
    n_before = 1.0
    for i, (c, d) in enumerate(zip(curvatures, gaps)):
        n_after = n if i % 2 == 0 else 1.0
        refract = np.array([[1.0, 0.0], [-(n_after - n_before) * c / n_after, n_before / n_after]])
        travel = np.array([[1.0, d], [0.0, 1.0]])
        M = travel @ refract @ M
        n_before = n_after
    return (-1.0 / M[1, 0] - 2.0) ** 2


def beam_waist(params, z=np.linspace(-2, 2, 9), w_meas=0.5 + 0.1 * np.linspace(-2, 2, 9) ** 2,  # noqa: B008
               wavelength=0.6):
    w0, z0 = params["w0"], params["z0"]
    zr = math.pi * w0 ** 2 / wavelength
    w = w0 * np.sqrt(1 + ((z - z0) / zr) ** 2)
    return np.sum((w - w_meas) ** 2)


EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]


def mesh_smooth(verts, edges=EDGES, rest=None):
    if rest is None:
        rest = np.zeros_like(verts)
    energy = 0.0
    for i, j in edges:
        d = verts[i] - verts[j]
        energy += np.dot(d, d)
    area = 0.0
    for a, b, c in ((0, 1, 2), (0, 2, 3)):
        area += 0.5 * np.linalg.norm(np.cross(verts[b] - verts[a], verts[c] - verts[a]))
    return energy - area + 0.1 * np.sum((verts - rest) ** 2)


GRAPHICS = [
    ("gfx_nearest_hit_continue", nearest_hit,
     lambda rng: (np.array([[0.0, 0.0, 4.0], [0.3, 0.2, 6.0], [5.0, 5.0, 5.0]]) + 0.05 * rng.normal(size=(3, 3)),), 0),
    ("gfx_barycentric_areas", barycentric_colour,
     lambda rng: (np.array([[0.0, 0.0], [1.0, 0.1], [0.2, 0.9]]) + 0.05 * rng.normal(size=(3, 2)),), 0),
    ("gfx_blinn_phong", blinn_phong,
     lambda rng: (np.array([[0.2, 0.9, 0.6], [0.1, 0.5, 1.0], [0.4, 0.6, 0.7]]) + 0.05 * rng.normal(size=(3, 3)),), 0),
    ("gfx_ggx_schlick_tuple", ggx_schlick, lambda rng: ((0.5, 0.04),), 0),
    ("gfx_soft_raster", soft_raster,
     lambda rng: (np.array([[0.2, 0.2], [0.8, 0.25], [0.5, 0.85]]) + 0.03 * rng.normal(size=(3, 2)),), 0),
    ("gfx_sdf_smooth_min", sdf_union, lambda rng: (np.array([[-0.3, 0.0, 0.4], [0.35, 0.1, 0.3]]),), 0),
    ("gfx_rodrigues_reprojection", reprojection,
     lambda rng: (np.array([0.1, -0.2, 0.05, 0.1, 0.0, 0.2]),), 0),
    ("gfx_de_casteljau_while", de_casteljau, lambda rng: (rng.normal(size=(4, 2)),), 0),
    ("gfx_srgb_where", srgb_loss, lambda rng: (np.array([0.05, 0.2, 0.6, 0.002, 0.4]),), 0),
    ("gfx_nerf_cumprod", nerf_composite, lambda rng: (0.5 * rng.normal(size=8),), 0),
    ("opt_snell_slab_math", snell_slab, lambda rng: (1.5,), 0),
    ("opt_fresnel", fresnel_rs_rp, lambda rng: (np.array(1.45),), 0),
    ("opt_abcd_zip", abcd_focal, lambda rng: (np.array([0.8, -0.6, 0.5]),), 0),
    ("opt_beam_waist_dict", beam_waist, lambda rng: ({"w0": 0.45, "z0": 0.1},), 0),
    ("gfx_mesh_edges_default_none", mesh_smooth,
     lambda rng: (np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.1], [1.0, 1.0, 0.0], [0.0, 1.0, -0.1]])
                  + 0.05 * rng.normal(size=(4, 3)),), 0),
]
