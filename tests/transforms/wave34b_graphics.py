"""Wave 34b: computer graphics and geometry, written the way their users write them: ray-sphere
intersections chosen by np.where, soft rasterisation of a disc and of a triangle over a meshgrid,
barycentric colours, Phong shading with a normalising helper, a pinhole camera with Rodrigues'
rotation, de Casteljau and Catmull-Rom curves built from lists, signed distance fields joined by
np.minimum and by a soft minimum, alpha compositing by cumprod, sRGB gamma by np.where, bilinear
texture sampling at integer corners, mesh Laplacian smoothing by np.add.at, quaternion rotations
and linear blend skinning."""

from __future__ import annotations

import math

import numpy as np

RES = 6
YS, XS = np.meshgrid(np.linspace(-1, 1, RES), np.linspace(-1, 1, RES), indexing="ij")
TARGET = (XS ** 2 + YS ** 2 < 0.4).astype(float)
LIGHT = np.array([0.3, 0.5, 0.8])
RAY_DIRS = np.stack([XS.ravel() * 0.5, YS.ravel() * 0.5, np.ones(RES * RES)], axis=1)
RAY_DIRS = RAY_DIRS / np.linalg.norm(RAY_DIRS, axis=1, keepdims=True)
WORLD = np.array([[0.0, 0.0, 5.0], [1.0, 0.5, 6.0], [-1.0, 0.3, 4.5], [0.2, -0.8, 5.5]])
PIXELS = np.array([[0.01, 0.0], [0.2, 0.09], [-0.21, 0.07], [0.04, -0.15]])
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
TEXTURE = np.arange(25.0).reshape(5, 5) / 25.0


def ray_sphere(center, radius=1.0):
    oc = -center
    b = RAY_DIRS @ oc
    c = oc @ oc - radius ** 2
    disc = b * b - c
    hit = disc > 0
    t = np.where(hit, -b - np.sqrt(np.where(hit, disc, 1.0)), 0.0)
    points = t[:, None] * RAY_DIRS
    normals = (points - center) / radius
    shade = np.where(hit, np.maximum(normals @ LIGHT, 0.0), 0.0)
    return np.sum((shade - 0.3 * TARGET.ravel()) ** 2)


def soft_disc(params, sigma=0.1):
    cx, cy, r = params
    dist = np.sqrt((XS - cx) ** 2 + (YS - cy) ** 2)
    img = 1.0 / (1.0 + np.exp(-(r - dist) / sigma))
    return np.mean((img - TARGET) ** 2)


def soft_triangle(verts, sigma=0.05):
    inside = np.ones_like(XS)
    for k in range(3):
        a, b = verts[k], verts[(k + 1) % 3]
        edge = (b[0] - a[0]) * (YS - a[1]) - (b[1] - a[1]) * (XS - a[0])
        inside = inside * (1.0 / (1.0 + np.exp(-edge / sigma)))
    return float(np.sum((inside - TARGET) ** 2))


def barycentric_colors(colors, tri=np.array([[-0.8, -0.8], [0.8, -0.6], [0.0, 0.9]])):  # noqa: B008
    (x1, y1), (x2, y2), (x3, y3) = tri
    det = (y2 - y3) * (x1 - x3) + (x3 - x2) * (y1 - y3)
    l1 = ((y2 - y3) * (XS - x3) + (x3 - x2) * (YS - y3)) / det
    l2 = ((y3 - y1) * (XS - x3) + (x1 - x3) * (YS - y3)) / det
    l3 = 1.0 - l1 - l2
    img = l1[..., None] * colors[0] + l2[..., None] * colors[1] + l3[..., None] * colors[2]
    return np.mean((img - 0.5) ** 2)


def _normalize(v):
    return v / np.sqrt(np.sum(v * v, axis=-1, keepdims=True))


def phong(normal_params, shininess=8.0):
    n = _normalize(normal_params)
    light = _normalize(LIGHT)
    view = np.array([0.0, 0.0, 1.0])
    diffuse = np.maximum(n @ light, 0.0)
    refl = 2 * (n @ light)[:, None] * n - light
    spec = np.maximum(refl @ view, 0.0) ** shininess
    return np.sum((0.2 + 0.6 * diffuse + 0.3 * spec - 0.7) ** 2)


def _rodrigues(w):
    theta = math.sqrt(float(w @ w)) + 1e-12
    k = w / theta
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * kx + (1 - np.cos(theta)) * (kx @ kx)


def pinhole(pose, focal=1.0):
    rot = _rodrigues(pose[:3])
    cam = WORLD @ rot.T + pose[3:]
    proj = focal * cam[:, :2] / cam[:, 2:3]
    return np.sum((proj - PIXELS) ** 2)


def de_casteljau(ctrl, ts=np.linspace(0, 1, 7)):  # noqa: B008
    pts = []
    for t in ts:
        layer = [ctrl[i] for i in range(ctrl.shape[0])]
        while len(layer) > 1:
            layer = [(1 - t) * layer[i] + t * layer[i + 1] for i in range(len(layer) - 1)]
        pts.append(layer[0])
    curve = np.array(pts)
    return np.sum((curve[:, 1] - np.sin(np.pi * curve[:, 0])) ** 2)


def catmull_rom(p, samples=4):
    out = []
    for i in range(1, p.shape[0] - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        for s in range(samples):
            t = s / samples
            out.append(0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
                              + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3))
    pts = np.stack(out)
    seg = np.diff(pts, axis=0)
    return np.sum(np.sqrt(np.sum(seg ** 2, axis=1)))


def sdf_union(centers, radii=np.array([0.4, 0.3, 0.5])):  # noqa: B008
    d = np.full(XS.shape, np.inf)
    for k in range(centers.shape[0]):
        dk = np.sqrt((XS - centers[k, 0]) ** 2 + (YS - centers[k, 1]) ** 2 + 1e-9) - radii[k]
        d = np.minimum(d, dk)
    return np.mean(np.maximum(d, 0.0) ** 2)


def sdf_soft_union(centers, k=8.0):
    dists = [np.sqrt((XS - c[0]) ** 2 + (YS - c[1]) ** 2) - 0.4 for c in centers]
    stacked = np.stack(dists)
    soft = -np.log(np.sum(np.exp(-k * stacked), axis=0)) / k
    return np.mean((soft - (np.sqrt(XS ** 2 + YS ** 2) - 0.6)) ** 2)


def alpha_composite(sigmas, colors=np.linspace(0.1, 0.9, 8), delta=0.25):  # noqa: B008
    alpha = 1.0 - np.exp(-np.maximum(sigmas, 0.0) * delta)
    trans = np.cumprod(np.concatenate([[1.0], 1.0 - alpha[:-1] + 1e-10]))
    weights = trans * alpha
    rgb = np.sum(weights * colors)
    depth = np.sum(weights * np.arange(8) * delta)
    return (rgb - 0.5) ** 2 + 0.1 * (depth - 1.0) ** 2


def srgb_loss(linear):
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) - 0.055)
    return np.sum((srgb - 0.5) ** 2)


def bilinear_sample(uv):
    total = 0.0
    for k in range(uv.shape[0]):
        x, y = uv[k, 0] * 4, uv[k, 1] * 4
        x0, y0 = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - x0, y - y0
        v = (TEXTURE[y0, x0] * (1 - fx) * (1 - fy) + TEXTURE[y0, x0 + 1] * fx * (1 - fy)
             + TEXTURE[y0 + 1, x0] * (1 - fx) * fy + TEXTURE[y0 + 1, x0 + 1] * fx * fy)
        total = total + (v - 0.5) ** 2
    return total


def laplacian_smooth(verts, lam=0.5):
    nbr_sum = np.zeros_like(verts)
    deg = np.zeros(verts.shape[0])
    np.add.at(nbr_sum, EDGES[:, 0], verts[EDGES[:, 1]])
    np.add.at(nbr_sum, EDGES[:, 1], verts[EDGES[:, 0]])
    np.add.at(deg, EDGES[:, 0], 1.0)
    np.add.at(deg, EDGES[:, 1], 1.0)
    lap = nbr_sum / deg[:, None] - verts
    return np.sum(lap ** 2) + lam * np.sum((verts - np.array([0.0, 0.0])) ** 2)


def _quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quaternion_rotate(q, v=np.array([1.0, 0.0, 0.0]), target=np.array([0.0, 1.0, 0.0])):  # noqa: B008
    q = q / np.linalg.norm(q)
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    rotated = _quat_mul(_quat_mul(q, np.concatenate([[0.0], v])), conj)[1:]
    return np.sum((rotated - target) ** 2)


def skinning(weights_logits, rest=np.array([[0.0, 0.0], [0.5, 0.1], [1.0, 0.0], [1.5, -0.1]])):  # noqa: B008
    w = np.exp(weights_logits)
    w = w / w.sum(axis=1, keepdims=True)
    bones = [(np.eye(2), np.zeros(2)), (np.array([[0.8, -0.6], [0.6, 0.8]]), np.array([0.1, 0.2]))]
    out = np.zeros_like(rest)
    for b, (rot, tr) in enumerate(bones):
        out += w[:, b:b + 1] * (rest @ rot.T + tr)
    return np.sum((out - rest - np.array([0.0, 0.3])) ** 2)


GRAPHICS = [
    ("gfx_ray_sphere", ray_sphere, lambda r: (np.array([0.1, -0.05, 4.0]),), 0),
    ("gfx_soft_disc", soft_disc, lambda r: (np.array([0.1, -0.1, 0.5]),), 0),
    ("gfx_soft_triangle", soft_triangle, lambda r: (np.array([[-0.7, -0.6], [0.8, -0.5], [0.1, 0.7]]),), 0),
    ("gfx_barycentric", barycentric_colors, lambda r: (r.uniform(0, 1, (3, 3)),), 0),
    ("gfx_phong", phong, lambda r: (r.normal(size=(5, 3)) + np.array([0.0, 0.0, 2.0]),), 0),
    ("gfx_pinhole_rodrigues", pinhole, lambda r: (np.array([0.05, -0.02, 0.03, 0.01, 0.02, 0.1]),), 0),
    ("gfx_de_casteljau", de_casteljau, lambda r: (np.array([[0.0, 0.0], [0.3, 1.0], [0.7, 1.1], [1.0, 0.0]]),), 0),
    ("gfx_catmull_rom", catmull_rom, lambda r: (np.cumsum(r.uniform(0.2, 0.5, (6, 2)), axis=0),), 0),
    ("gfx_sdf_union", sdf_union, lambda r: (np.array([[-0.3, 0.1], [0.4, 0.3], [0.1, -0.5]]),), 0),
    ("gfx_sdf_soft_union", sdf_soft_union, lambda r: (r.normal(0, 0.3, (3, 2)),), 0),
    ("gfx_alpha_composite", alpha_composite, lambda r: (r.uniform(0.5, 2.0, 8),), 0),
    ("gfx_srgb", srgb_loss, lambda r: (np.array([0.001, 0.2, 0.5, 0.8]),), 0),
    ("gfx_bilinear", bilinear_sample, lambda r: (np.array([[0.3, 0.4], [0.55, 0.2], [0.1, 0.65]]),), 0),
    ("gfx_laplacian_smooth", laplacian_smooth, lambda r: (r.normal(size=(4, 2)),), 0),
    ("gfx_quaternion", quaternion_rotate, lambda r: (np.array([0.9, 0.1, 0.2, 0.3]),), 0),
    ("gfx_skinning", skinning, lambda r: (r.normal(size=(4, 2)),), 0),
    ("gfx_soft_disc_f32", soft_disc, lambda r: (np.array([0.1, -0.1, 0.5], dtype=np.float32),), 0),
]
