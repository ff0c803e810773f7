"""The red team's eighteenth wave, continued: graphics and computational geometry.  Ray-sphere intersection
through the discriminant's square root, Blinn-Phong shading with ``max(0, n . l) ** shininess``, Schlick's
Fresnel and a GGX distribution, de Casteljau's Bezier, Cox-de Boor's B-spline basis by recursion, signed
distances of a box, a capsule and a torus, a polynomial smooth union with np.clip, sphere tracing by ``while``
to a tolerance, slerp by arccos, a look-at frame by np.cross, a perspective divide, the shoelace area, Heron's
formula, a polygon's centroid, the distance to a segment by a clipped projection, a circumradius, the
haversine distance, a dihedral angle by atan2, the cotangent Laplacian, the SO(3) exponential with its
small-angle branch, barycentric interpolation of colours and an ellipse's perimeter by Ramanujan.  See
redteam_wave18.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def ray_sphere(centre, origin, direction, radius=1.0):
    oc = origin - centre
    b = oc @ direction
    c = oc @ oc - radius ** 2
    disc = b * b - c
    if disc < 0:
        return 10.0
    return -b - math.sqrt(disc)


def blinn_phong(normal, light, view, shininess=16.0):
    n = normal / np.linalg.norm(normal)
    l = light / np.linalg.norm(light)  # noqa: E741
    h = (l + view) / np.linalg.norm(l + view)
    diffuse = max(0.0, n @ l)
    specular = max(0.0, n @ h) ** shininess
    return 0.7 * diffuse + 0.3 * specular


def schlick_ggx(p, n_dot_h=0.8, n_dot_v=0.6):
    f0, roughness = p
    fresnel = f0 + (1 - f0) * (1 - n_dot_v) ** 5
    a2 = roughness ** 4
    d = a2 / (math.pi * (n_dot_h ** 2 * (a2 - 1) + 1) ** 2)
    return fresnel * d


def de_casteljau(ctrl, t=0.35):
    pts = [p for p in ctrl]
    while len(pts) > 1:
        pts = [(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])]
    return np.sum(pts[0] ** 2)


def bspline_basis(i, k, t, knots):
    if k == 0:
        return 1.0 if knots[i] <= t < knots[i + 1] else 0.0
    left = right = 0.0
    if knots[i + k] > knots[i]:
        left = (t - knots[i]) / (knots[i + k] - knots[i]) * bspline_basis(i, k - 1, t, knots)
    if knots[i + k + 1] > knots[i + 1]:
        right = (knots[i + k + 1] - t) / (knots[i + k + 1] - knots[i + 1]) * bspline_basis(i + 1, k - 1, t, knots)
    return left + right


def bspline_curve(ctrl, t=1.3):
    knots = [0, 0, 0, 1, 2, 3, 3, 3]
    return sum(ctrl[i] * bspline_basis(i, 2, t, knots) for i in range(len(ctrl)))


def box_sdf(p, half=np.array([1.0, 0.5, 0.7])):  # noqa: B008
    q = np.abs(p) - half
    outside = np.linalg.norm(np.maximum(q, 0.0))
    inside = min(np.max(q), 0.0)
    return outside + inside


def capsule_sdf(p, a, b, r=0.3):
    pa, ba = p - a, b - a
    h = np.clip(pa @ ba / (ba @ ba), 0.0, 1.0)
    return np.linalg.norm(pa - ba * h) - r


def torus_sdf(p, R=1.0, r=0.25):
    q = np.array([np.hypot(p[0], p[2]) - R, p[1]])
    return np.linalg.norm(q) - r


def smooth_union(d, k=0.5):
    a, b = d[0], d[1]
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b * (1 - h) + a * h - k * h * (1 - h)


def sphere_trace(origin, direction=np.array([0.0, 0.0, 1.0])):  # noqa: B008
    t = 0.0
    centre = np.array([0.1, -0.2, 3.0])
    for _ in range(64):
        d = np.linalg.norm(origin + t * direction - centre) - 1.0
        if d < 1e-7:
            break
        t += d
    return t


def slerp(q0, q1, t=0.3):
    q0 = q0 / np.linalg.norm(q0)
    q1 = q1 / np.linalg.norm(q1)
    dot = np.clip(q0 @ q1, -1.0, 1.0)
    theta = np.arccos(dot)
    q = (np.sin((1 - t) * theta) * q0 + np.sin(t * theta) * q1) / np.sin(theta)
    return q @ np.array([0.1, 0.2, 0.3, 0.4])


def look_at(eye, target=np.zeros(3), up=np.array([0.0, 1.0, 0.0])):  # noqa: B008  # noqa: B008
    f = target - eye
    f = f / np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    R = np.stack([s, u, -f])
    return np.sum(R @ np.array([0.3, -0.2, 1.0])) + R[0, 2]


def perspective(points, f=1.5):
    x, y, z = points[:, 0], points[:, 1], points[:, 2]
    u = f * x / z
    v = f * y / z
    return np.sum(u ** 2 + v ** 2)


def shoelace(poly):
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def heron(tri):
    a = np.linalg.norm(tri[1] - tri[0])
    b = np.linalg.norm(tri[2] - tri[1])
    c = np.linalg.norm(tri[0] - tri[2])
    s = (a + b + c) / 2
    return math.sqrt(s * (s - a) * (s - b) * (s - c))


def polygon_centroid(poly):
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    A = cross.sum() / 2
    cx = ((x + xn) * cross).sum() / (6 * A)
    cy = ((y + yn) * cross).sum() / (6 * A)
    return cx ** 2 + cy


def point_segment(p, a=np.array([0.0, 0.0]), b=np.array([2.0, 1.0])):  # noqa: B008  # noqa: B008
    ab = b - a
    t = np.clip((p - a) @ ab / (ab @ ab), 0, 1)
    closest = a + t * ab
    return np.sum((p - closest) ** 2)


def circumradius(tri):
    a = np.linalg.norm(tri[1] - tri[0])
    b = np.linalg.norm(tri[2] - tri[1])
    c = np.linalg.norm(tri[0] - tri[2])
    e1, e2 = tri[1] - tri[0], tri[2] - tri[0]
    area = 0.5 * abs(e1[0] * e2[1] - e1[1] * e2[0])
    return a * b * c / (4 * area)


def haversine(latlon, other=np.radians([48.85, 2.35])):  # noqa: B008
    lat1, lon1 = np.radians(latlon)
    lat2, lon2 = other
    h = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * np.arcsin(np.sqrt(h))


def dihedral(p):
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    b1n = b1 / np.linalg.norm(b1)
    v = b0 - (b0 @ b1n) * b1n
    w = b2 - (b2 @ b1n) * b1n
    x = v @ w
    y = np.cross(b1n, v) @ w
    return math.atan2(y, x)


def cotan_laplacian(V, faces=((0, 1, 2), (0, 2, 3))):
    energy = 0.0
    for tri in faces:
        for k in range(3):
            i, j, o = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
            u, v = V[i] - V[o], V[j] - V[o]
            cot = (u @ v) / np.linalg.norm(np.cross(u, v))
            energy += 0.5 * cot * np.sum((V[i] - V[j]) ** 2)
    return energy


def so3_exp(w):
    theta = np.linalg.norm(w)
    K = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    if theta < 1e-8:
        R = np.eye(3) + K
    else:
        R = np.eye(3) + math.sin(theta) / theta * K + (1 - math.cos(theta)) / theta ** 2 * K @ K
    return R[0, 1] + R[2, 0] + np.trace(R)


def barycentric_colour(p, tri=np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),  # noqa: B008
                       colours=np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])):  # noqa: B008
    T = np.column_stack([tri[0] - tri[2], tri[1] - tri[2]])
    l12 = np.linalg.solve(T, p - tri[2])
    lam = np.append(l12, 1 - l12.sum())
    return np.sum((lam @ colours) ** 2)


def ellipse_perimeter(ab):
    a, b = ab
    h = ((a - b) / (a + b)) ** 2
    return math.pi * (a + b) * (1 + 3 * h / (10 + math.sqrt(4 - 3 * h)))


GEOMETRY18 = [
    ("w18_ray_sphere", ray_sphere,
     lambda r: (np.array([0.2, 0.1, 5.0]), np.zeros(3), np.array([0.0, 0.0, 1.0])), 0),
    ("w18_ray_sphere_direction", ray_sphere,
     lambda r: (np.array([0.2, 0.1, 5.0]), np.zeros(3), np.array([0.0, 0.0, 1.0])), 2),
    ("w18_blinn_phong", blinn_phong,
     lambda r: (np.array([0.1, 1.0, 0.2]), np.array([0.5, 1.0, 0.3]), np.array([0.0, 0.6, 0.8])), 0),
    ("w18_schlick_ggx", schlick_ggx, lambda r: (np.array([0.04, 0.5]),), 0),
    ("w18_de_casteljau", de_casteljau, lambda r: (M(r, 4, 2),), 0),
    ("w18_bspline_curve", bspline_curve, lambda r: (M(r, 5),), 0),
    ("w18_box_sdf_outside", box_sdf, lambda r: (np.array([1.5, 0.9, 0.2]),), 0),
    ("w18_box_sdf_inside", box_sdf, lambda r: (np.array([0.3, 0.1, -0.2]),), 0),
    ("w18_capsule_sdf", capsule_sdf,
     lambda r: (np.array([0.5, 0.8, 0.1]), np.zeros(3), np.array([1.0, 0.0, 0.0])), 0),
    ("w18_capsule_sdf_endpoint", capsule_sdf,
     lambda r: (np.array([0.5, 0.8, 0.1]), np.zeros(3), np.array([1.0, 0.0, 0.0])), 2),
    ("w18_torus_sdf", torus_sdf, lambda r: (np.array([0.8, 0.3, 0.5]),), 0),
    ("w18_smooth_union", smooth_union, lambda r: (np.array([0.3, 0.5]),), 0),
    ("w18_sphere_trace", sphere_trace, lambda r: (np.array([0.0, 0.1, 0.0]),), 0),
    ("w18_slerp", slerp, lambda r: (np.array([1.0, 0.1, 0.2, 0.0]), np.array([0.7, 0.5, 0.1, 0.3])), 0),
    ("w18_look_at", look_at, lambda r: (np.array([1.0, 2.0, 3.0]),), 0),
    ("w18_perspective", perspective, lambda r: (np.column_stack([M(r, 5), M(r, 5), 3 + r.uniform(size=5)]),), 0),
    ("w18_shoelace", shoelace, lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.5], [0.1, 1.0]]),), 0),
    ("w18_heron", heron, lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [0.6, 1.5]]),), 0),
    ("w18_polygon_centroid", polygon_centroid,
     lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [2.2, 1.5], [0.1, 1.0]]),), 0),
    ("w18_point_segment", point_segment, lambda r: (np.array([0.7, 1.2]),), 0),
    ("w18_point_segment_beyond", point_segment, lambda r: (np.array([3.0, 1.2]),), 0),
    ("w18_circumradius", circumradius, lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [0.6, 1.5]]),), 0),
    ("w18_haversine", haversine, lambda r: (np.array([51.5, -0.12]),), 0),
    ("w18_dihedral", dihedral, lambda r: (np.array([[1.0, 0, 0], [0, 0, 0], [0, 1.0, 0], [0.3, 1.2, 0.8]]),), 0),
    ("w18_cotan_laplacian", cotan_laplacian,
     lambda r: (np.array([[0.0, 0, 0], [1.0, 0, 0.1], [1.1, 1.0, 0], [0, 0.9, 0.2]]),), 0),
    ("w18_so3_exp", so3_exp, lambda r: (np.array([0.3, -0.2, 0.5]),), 0),
    ("w18_barycentric_colour", barycentric_colour, lambda r: (np.array([0.3, 0.25]),), 0),
    ("w18_ellipse_perimeter", ellipse_perimeter, lambda r: (np.array([2.0, 1.2]),), 0),
]
