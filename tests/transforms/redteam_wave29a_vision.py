"""The red team's wave 29a, graphics and vision: ray-sphere intersection, a soft rasteriser, pinhole
cameras with radial distortion, bilinear interpolation by index arithmetic, total-variation
denoising, convolutions written with slices and loops, shading and image losses (test_redteam_wave29a.py
runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import F, M, P


def ray_sphere_t(origin, direction, centre, radius):
    """Nearest hit distance of a ray and a sphere (the ray is known to hit)."""
    oc = origin - centre
    b = np.dot(oc, direction)
    c = np.dot(oc, oc) - radius * radius
    disc = b * b - c
    return -b - np.sqrt(disc)


def ray_sphere_depth(centre):
    d = np.array([0.0, 0.0, 1.0])
    total = 0.0
    for ox in (-0.2, 0.0, 0.2):
        total += ray_sphere_t(np.array([ox, 0.1, 0.0]), d, centre, 1.0)
    return total


def ray_sphere_shading(light, centre=np.array([0.0, 0.0, 4.0])):  # noqa: B008
    o = np.zeros(3)
    dirs = np.array([[0.0, 0.0, 1.0], [0.1, 0.0, 0.995], [0.0, 0.1, 0.995]])
    dirs = dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
    oc = o - centre
    b = dirs @ oc
    c = oc @ oc - 1.0
    t = -b - np.sqrt(b * b - c)
    hits = t[:, None] * dirs
    normals = (hits - centre) / np.linalg.norm(hits - centre, axis=1, keepdims=True)
    ldir = light / np.linalg.norm(light)
    lambert = np.maximum(normals @ ldir, 0.0)
    return np.sum((lambert - 0.5) ** 2)


def ray_sphere_masked(radius):
    """Many rays, some miss: np.where guards the square root."""
    xs = np.linspace(-1.5, 1.5, 9)
    oc = np.stack([xs, np.zeros(9), np.full(9, -3.0)], axis=1)
    b = oc[:, 2]
    c = np.sum(oc**2, axis=1) - radius**2
    disc = b * b - c
    safe = np.where(disc > 0, disc, 1.0)
    t = np.where(disc > 0, -b - np.sqrt(safe), 10.0)
    return np.sum(t)


def soft_rasterise(verts, res=8, sigma=0.05):
    """A triangle's coverage of a res x res image, softened by a sigmoid of the signed edge distances."""
    ys, xs = np.meshgrid(np.linspace(0, 1, res), np.linspace(0, 1, res), indexing="ij")
    img = np.ones((res, res))
    for k in range(3):
        a, b = verts[k], verts[(k + 1) % 3]
        edge = b - a
        d = ((xs - a[0]) * edge[1] - (ys - a[1]) * edge[0]) / np.linalg.norm(edge)
        img = img * (1.0 / (1.0 + np.exp(-d / sigma)))
    target = np.zeros((res, res))
    target[2:6, 2:6] = 1.0
    return np.mean((img - target) ** 2)


def pinhole_project(points, f=500.0, cx=320.0, cy=240.0):
    u = f * points[:, 0] / points[:, 2] + cx
    v = f * points[:, 1] / points[:, 2] + cy
    return u, v


def reprojection_error(points, obs=np.array([[330.0, 250.0], [300.0, 235.0], [345.0, 220.0]])):  # noqa: B008
    u, v = pinhole_project(points)
    return np.sum((u - obs[:, 0]) ** 2 + (v - obs[:, 1]) ** 2) / 1e4


def distorted_projection(k, points):
    """Brown-Conrady radial (k1, k2) and tangential (p1, p2) distortion."""
    x = points[:, 0] / points[:, 2]
    y = points[:, 1] / points[:, 2]
    r2 = x * x + y * y
    radial = 1.0 + k[0] * r2 + k[1] * r2 * r2
    xd = x * radial + 2 * k[2] * x * y + k[3] * (r2 + 2 * x * x)
    yd = y * radial + k[2] * (r2 + 2 * y * y) + 2 * k[3] * x * y
    return np.sum((xd - 1.02 * x) ** 2 + (yd - 1.02 * y) ** 2)


def camera_pose_error(pose, world):
    """pose = (rx, ry, rz, tx, ty, tz): rotate by a small-angle matrix, translate, project."""
    w = pose[:3]
    K = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    R = np.eye(3) + K + 0.5 * K @ K
    cam = world @ R.T + pose[3:]
    uv = cam[:, :2] / cam[:, 2:3]
    return np.sum((uv - world[:, :2] / (world[:, 2:3] + 0.1)) ** 2)


def bilinear_sample(img, x, y):
    x0 = int(math.floor(x))
    y0 = int(math.floor(y))
    fx, fy = x - x0, y - y0
    top = (1 - fx) * img[y0, x0] + fx * img[y0, x0 + 1]
    bottom = (1 - fx) * img[y0 + 1, x0] + fx * img[y0 + 1, x0 + 1]
    return (1 - fy) * top + fy * bottom


def bilinear_image_loss(img):
    pts = [(1.3, 2.6), (2.5, 0.4), (0.7, 1.1)]
    return sum(bilinear_sample(img, x, y) ** 2 for x, y in pts)


def bilinear_wrt_coords(xy, img=np.arange(16.0).reshape(4, 4) ** 1.5 / 10.0):  # noqa: B008
    return bilinear_sample(img, xy[0], xy[1]) + 0.5 * bilinear_sample(img, xy[1], xy[0])


def bilinear_vectorised(img, coords):
    """Fancy indexing with the floor of many coordinates at once (flat indices)."""
    h, w = img.shape
    x, y = coords[:, 0], coords[:, 1]
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    flat = img.ravel()
    i00, i01 = y0 * w + x0, y0 * w + x0 + 1
    i10, i11 = (y0 + 1) * w + x0, (y0 + 1) * w + x0 + 1
    val = (flat[i00] * (1 - fx) * (1 - fy) + flat[i01] * fx * (1 - fy)
           + flat[i10] * (1 - fx) * fy + flat[i11] * fx * fy)
    return np.sum(val**2)


def warp_by_flow(flow, img=np.sin(np.arange(25.0)).reshape(5, 5)):  # noqa: B008
    coords = np.array([[1.0, 1.0], [2.0, 1.0], [1.0, 2.0], [2.0, 2.0]]) + flow
    return bilinear_vectorised(img, coords)


def tv_denoise_energy(u, f, lam=0.2, eps=1e-3):
    dx = u[:, 1:] - u[:, :-1]
    dy = u[1:, :] - u[:-1, :]
    tv = np.sum(np.sqrt(dx[:-1, :] ** 2 + dy[:, :-1] ** 2 + eps))
    return 0.5 * np.sum((u - f) ** 2) + lam * tv


def tv_denoise_descent(f, lam=0.1, tau=0.1, steps=5, eps=1e-2):
    u = f.copy()
    for _ in range(steps):
        gx = np.zeros_like(u)
        gy = np.zeros_like(u)
        gx[:, :-1] = u[:, 1:] - u[:, :-1]
        gy[:-1, :] = u[1:, :] - u[:-1, :]
        mag = np.sqrt(gx**2 + gy**2 + eps)
        px, py = gx / mag, gy / mag
        div = np.zeros_like(u)
        div[:, 1:] += px[:, 1:] - px[:, :-1]
        div[1:, :] += py[1:, :] - py[:-1, :]
        div[:, 0] += px[:, 0]
        div[0, :] += py[0, :]
        u = u - tau * ((u - f) - lam * div)
    return np.sum(u**2)


def conv2d_slices(img, k):
    """A 3 x 3 correlation written as a sum of shifted slices."""
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for di in range(3):
        for dj in range(3):
            out = out + k[di, dj] * img[di:di + h - 2, dj:dj + w - 2]
    return out


def sobel_edges(img):
    kx = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    gx = conv2d_slices(img, kx)
    gy = conv2d_slices(img, kx.T)
    return np.sum(np.sqrt(gx**2 + gy**2 + 1e-6))


def learn_kernel(k, img):
    blurred = conv2d_slices(img, k)
    return np.mean((blurred - img[1:-1, 1:-1]) ** 2)


def conv2d_loops(img, k):
    out = np.zeros((img.shape[0] - 1, img.shape[1] - 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(img[i:i + 2, j:j + 2] * k)
    return np.sum(np.tanh(out))


def strided_pool(img):
    """2 x 2 average pooling by slicing with steps, then a soft maximum."""
    pooled = 0.25 * (img[::2, ::2] + img[1::2, ::2] + img[::2, 1::2] + img[1::2, 1::2])
    return np.log(np.sum(np.exp(pooled)))


def gaussian_blur_separable(img, sigma):
    xs = np.arange(-2, 3)
    g = np.exp(-0.5 * xs**2 / sigma**2)
    g = g / np.sum(g)
    rows = sum(g[i] * img[:, i:i + img.shape[1] - 4] for i in range(5))
    cols = sum(g[i] * rows[i:i + img.shape[0] - 4, :] for i in range(5))
    return np.sum((cols - 0.5) ** 2)


def phong_shading(n, light=np.array([0.3, 0.5, 0.8]), view=np.array([0.0, 0.0, 1.0]), shininess=8.0):  # noqa: B008
    n = n / np.linalg.norm(n)
    l = light / np.linalg.norm(light)  # noqa: E741
    diffuse = max(np.dot(n, l), 0.0)
    r = 2.0 * np.dot(n, l) * n - l
    spec = max(np.dot(r, view), 0.0) ** shininess
    return 0.7 * diffuse + 0.3 * spec


def gamma_tonemap(hdr, exposure=1.5, gamma=2.2):
    mapped = 1.0 - np.exp(-hdr * exposure)
    return np.sum(mapped ** (1.0 / gamma))


def homography_error(h8, src, dst):
    H = np.append(h8, 1.0).reshape(3, 3)
    ph = np.hstack([src, np.ones((src.shape[0], 1))]) @ H.T
    proj = ph[:, :2] / ph[:, 2:]
    return np.sum((proj - dst) ** 2)


def triangulate_midpoint(p):
    """Squared distance of a point from two camera rays, and its reprojection."""
    c1, d1 = np.zeros(3), np.array([0.1, 0.0, 1.0])
    c2, d2 = np.array([1.0, 0.0, 0.0]), np.array([-0.15, 0.02, 1.0])
    total = 0.0
    for c, d in ((c1, d1), (c2, d2)):
        d = d / np.linalg.norm(d)
        v = p - c
        perp = v - np.dot(v, d) * d
        total += np.dot(perp, perp)
    return total


def ssim_like(a, b, c1=1e-4, c2=9e-4):
    mu_a, mu_b = a.mean(), b.mean()
    va, vb = a.var(), b.var()
    cov = np.mean((a - mu_a) * (b - mu_b))
    return ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a**2 + mu_b**2 + c1) * (va + vb + c2))


def image_f32_loss(img):
    g = img[1:, :] - img[:-1, :]
    return np.sum(g * g) + np.float32(0.1) * np.sum(img**2)


VISION = [
    ("vi_ray_sphere_depth", ray_sphere_depth, lambda r: (np.array([0.0, 0.0, 4.0]) + 0.1 * M(r, 3),), 0),
    ("vi_ray_sphere_shading", ray_sphere_shading, lambda r: (np.array([0.2, 0.3, -1.0]) + 0.05 * M(r, 3),), 0),
    ("vi_ray_sphere_masked", ray_sphere_masked, lambda r: (0.93,), 0),
    ("vi_soft_rasterise", soft_rasterise, lambda r: (np.array([[0.2, 0.2], [0.5, 0.8], [0.8, 0.25]])
                                                     + 0.02 * M(r, 3, 2),), 0),
    ("vi_reprojection_error", reprojection_error, lambda r: (np.array([[0.1, 0.1, 5.0], [-0.1, 0.0, 5.0],
                                                                       [0.2, -0.1, 4.0]]) + 0.02 * M(r, 3, 3),), 0),
    ("vi_distorted_projection", distorted_projection, lambda r: (0.05 * M(r, 4), np.hstack([0.3 * M(r, 6, 2),
                                                                                            P(r, 6, 1) + 1])), 0),
    ("vi_distorted_projection_pts", distorted_projection, lambda r: (0.05 * M(r, 4), np.hstack([0.3 * M(r, 6, 2),
                                                                                                P(r, 6, 1) + 1])), 1),
    ("vi_camera_pose_error", camera_pose_error, lambda r: (0.05 * M(r, 6), np.hstack([M(r, 5, 2), P(r, 5, 1) + 3])), 0),
    ("vi_bilinear_image_loss", bilinear_image_loss, lambda r: (M(r, 4, 4),), 0),
    ("vi_bilinear_wrt_coords", bilinear_wrt_coords, lambda r: (np.array([1.3, 1.6]) + 0.05 * M(r, 2),), 0),
    ("vi_bilinear_vectorised", bilinear_vectorised, lambda r: (M(r, 4, 5),
                                                               np.array([[0.5, 0.5], [2.3, 1.7], [3.1, 2.2]])), 0),
    ("vi_warp_by_flow", warp_by_flow, lambda r: (np.full((4, 2), 0.3) + 0.05 * M(r, 4, 2),), 0),
    ("vi_tv_denoise_energy", tv_denoise_energy, lambda r: (M(r, 5, 5), M(r, 5, 5)), 0),
    ("vi_tv_denoise_descent", tv_denoise_descent, lambda r: (M(r, 5, 5),), 0),
    ("vi_sobel_edges", sobel_edges, lambda r: (M(r, 5, 6),), 0),
    ("vi_learn_kernel", learn_kernel, lambda r: (M(r, 3, 3), M(r, 5, 5)), 0),
    ("vi_learn_kernel_img", learn_kernel, lambda r: (M(r, 3, 3), M(r, 5, 5)), 1),
    ("vi_conv2d_loops", conv2d_loops, lambda r: (M(r, 4, 4), M(r, 2, 2)), 0),
    ("vi_conv2d_loops_kernel", conv2d_loops, lambda r: (M(r, 4, 4), M(r, 2, 2)), 1),
    ("vi_strided_pool", strided_pool, lambda r: (M(r, 6, 4),), 0),
    ("vi_gaussian_blur_separable", gaussian_blur_separable, lambda r: (M(r, 7, 7), 1.2), 1),
    ("vi_gaussian_blur_image", gaussian_blur_separable, lambda r: (M(r, 7, 7), 1.2), 0),
    ("vi_phong_shading", phong_shading, lambda r: (np.array([0.1, 0.2, 1.0]) + 0.05 * M(r, 3),), 0),
    ("vi_gamma_tonemap", gamma_tonemap, lambda r: (P(r, 6),), 0),
    ("vi_homography_error", homography_error, lambda r: (np.array([1.0, 0.0, 0.1, 0.0, 1.0, -0.1, 0.01, 0.0])
                                                         + 0.01 * M(r, 8), M(r, 5, 2), M(r, 5, 2)), 0),
    ("vi_triangulate_midpoint", triangulate_midpoint, lambda r: (np.array([0.4, 0.0, 4.0]) + 0.1 * M(r, 3),), 0),
    ("vi_ssim_like", ssim_like, lambda r: (M(r, 4, 4), M(r, 4, 4)), 0),
    ("vi_image_f32_loss", image_f32_loss, lambda r: (F(r, 4, 5),), 0),
]
