"""Wave 33g: image losses and graphs, written the way vision and graph-learning users write them:
total variation (isotropic by slices, Huber by np.where), an SSIM-like score from box-filtered
moments, a Charbonnier loss over a pyramid built in a while loop, Sobel edges written into a
preallocated array, Gram-matrix style losses, dice and focal losses, a bilinear sub-pixel shift, a
soft histogram; graph Laplacian smoothing from an edge list, diffusion steps, a two-layer GCN with
symmetric normalisation, personalised PageRank by power iteration."""

from __future__ import annotations

import numpy as np

EPS = 1e-3
C1, C2 = 0.01 ** 2, 0.03 ** 2
EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (1, 3), (3, 4), (4, 5), (5, 2)]
N_NODES = 6
Y_NODES = np.array([0.3, -0.2, 0.9, 0.1, -0.5, 0.4])
SOBEL_X = np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
BINS = np.linspace(0.0, 1.0, 8)
TARGET_HIST = np.array([0.05, 0.1, 0.15, 0.2, 0.2, 0.15, 0.1, 0.05])


def _dx(img):
    return img[:, 1:] - img[:, :-1]


def _dy(img):
    return img[1:, :] - img[:-1, :]


def tv_isotropic(img):
    gx = img[:-1, 1:] - img[:-1, :-1]
    gy = img[1:, :-1] - img[:-1, :-1]
    return np.sum(np.sqrt(gx ** 2 + gy ** 2 + EPS))


def tv_huber(img, noisy, delta=0.1, lam=0.5):
    def huber(d):
        a = np.abs(d)
        return np.where(a < delta, 0.5 * d * d / delta, a - 0.5 * delta)
    fit = 0.5 * np.sum((img - noisy) ** 2)
    return fit + lam * (np.sum(huber(_dx(img))) + np.sum(huber(_dy(img))))


def _box3(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for di in range(3):
        for dj in range(3):
            out = out + img[di:di + h - 2, dj:dj + w - 2]
    return out / 9.0


def ssim_like(img, ref):
    mu_x, mu_y = _box3(img), _box3(ref)
    sxx = _box3(img * img) - mu_x ** 2
    syy = _box3(ref * ref) - mu_y ** 2
    sxy = _box3(img * ref) - mu_x * mu_y
    num = (2 * mu_x * mu_y + C1) * (2 * sxy + C2)
    den = (mu_x ** 2 + mu_y ** 2 + C1) * (sxx + syy + C2)
    return 1.0 - np.mean(num / den)


def _down2(img):
    return 0.25 * (img[0::2, 0::2] + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2])


def charbonnier_pyramid(img, target):
    losses = []
    a, b = img, target
    while a.shape[0] >= 2:
        losses.append(np.mean(np.sqrt((a - b) ** 2 + 1e-6)))
        a, b = _down2(a), _down2(b)
    total = 0.0
    for level, loss in enumerate(losses):
        total = total + loss / (level + 1)
    return total


def sobel_edges(img, target):
    h, w = img.shape
    gx = np.zeros((h - 2, w - 2))
    gy = np.zeros((h - 2, w - 2))
    for i in range(h - 2):
        for j in range(w - 2):
            patch = img[i:i + 3, j:j + 3]
            gx[i, j] = np.sum(patch * SOBEL_X)
            gy[i, j] = np.sum(patch * SOBEL_X.T)
    mag = np.sqrt(gx ** 2 + gy ** 2 + EPS)
    return np.mean((mag - target) ** 2)


def gram_style(feats, style):
    c = feats.shape[0]
    f = feats.reshape(c, -1)
    s = style.reshape(c, -1)
    g1 = f @ f.T / f.shape[1]
    g2 = s @ s.T / s.shape[1]
    return np.sum((g1 - g2) ** 2)


def dice_loss(logits, mask, smooth=1.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    inter = np.sum(p * mask, axis=(1, 2), keepdims=True)
    denom = np.sum(p, axis=(1, 2), keepdims=True) + np.sum(mask, axis=(1, 2), keepdims=True)
    return float(np.mean(1.0 - (2.0 * inter + smooth) / (denom + smooth)))


def focal_loss(logits, labels, gamma=2.0, alpha=0.25):
    p = 1.0 / (1.0 + np.exp(-logits))
    p = np.clip(p, 1e-6, 1.0 - 1e-6)
    pt = np.where(labels == 1, p, 1.0 - p)
    at = np.where(labels == 1, alpha, 1.0 - alpha)
    return -np.mean(at * (1.0 - pt) ** gamma * np.log(pt))


def bilinear_shift(shift, img, target):
    """Shift a signal by (dy, dx) in [0, 1): bilinear weights of the fractional parts."""
    dy, dx = shift[0], shift[1]
    a = img[:-1, :-1]
    b = img[:-1, 1:]
    c = img[1:, :-1]
    d = img[1:, 1:]
    out = (1 - dy) * (1 - dx) * a + (1 - dy) * dx * b + dy * (1 - dx) * c + dy * dx * d
    return np.sum((out - target) ** 2)


def soft_histogram(values, bandwidth=0.08):
    w = np.exp(-0.5 * ((values[:, None] - BINS[None, :]) / bandwidth) ** 2)
    hist = np.sum(w, axis=0)
    hist = hist / np.sum(hist)
    return np.sum(TARGET_HIST * (np.log(TARGET_HIST) - np.log(hist + 1e-9)))


def edge_aware_smoothness(disp, img):
    wx = np.exp(-np.abs(_dx(img)))
    wy = np.exp(-np.abs(_dy(img)))
    return np.mean(wx * np.sqrt(_dx(disp) ** 2 + EPS)) + np.mean(wy * np.sqrt(_dy(disp) ** 2 + EPS))


def _laplacian():
    lap = np.zeros((N_NODES, N_NODES))
    for i, j in EDGES:
        lap[i, i] += 1.0
        lap[j, j] += 1.0
        lap[i, j] -= 1.0
        lap[j, i] -= 1.0
    return lap


LAP = _laplacian()


def laplacian_smoothing(x, lam=0.7):
    return float(x @ LAP @ x) * lam + np.sum((x - Y_NODES) ** 2)


def edge_list_smoothing(x, weights=None):
    total = 0.0
    for k, (i, j) in enumerate(EDGES):
        w = 1.0 if weights is None else weights[k]
        total = total + w * (x[i] - x[j]) ** 2
    return total + np.sum((x - Y_NODES) ** 2)


def graph_diffusion(h, steps=4, alpha=0.15):
    for _ in range(steps):
        h = h - alpha * (LAP @ h)
    return np.sum((h - Y_NODES[:, None]) ** 2)


def _normalised_adjacency():
    a = np.eye(N_NODES)
    for i, j in EDGES:
        a[i, j] = a[j, i] = 1.0
    d = 1.0 / np.sqrt(a.sum(axis=1))
    return a * d[:, None] * d[None, :]


A_HAT = _normalised_adjacency()
X_FEAT = np.random.default_rng(3).normal(size=(N_NODES, 3))
LABELS = np.array([0, 1, 1, 0, 2, 2])


def gcn_two_layer(params):
    h = np.maximum(A_HAT @ X_FEAT @ params["w1"], 0.0)
    logits = A_HAT @ h @ params["w2"]
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(N_NODES), LABELS])


def pagerank_personal(pers, damping=0.85, iters=30):
    a = np.zeros((N_NODES, N_NODES))
    for i, j in EDGES:
        a[i, j] = a[j, i] = 1.0
    trans = a / a.sum(axis=0, keepdims=True)
    p = np.exp(pers) / np.sum(np.exp(pers))
    r = np.full(N_NODES, 1.0 / N_NODES)
    for _ in range(iters):
        r = damping * trans @ r + (1 - damping) * p
    return np.sum((r - 1.0 / N_NODES) ** 2) * 100.0


def _img(rng, n=6, dtype=np.float64):
    return rng.uniform(0.1, 0.9, size=(n, n)).astype(dtype)


VISION = [
    ("vis_tv_isotropic", tv_isotropic, lambda r: (_img(r),), 0),
    ("vis_tv_huber", tv_huber, lambda r: (_img(r), _img(r)), 0),
    ("vis_ssim_like", ssim_like, lambda r: (_img(r), _img(r)), 0),
    ("vis_ssim_like_f32", ssim_like, lambda r: (_img(r, 5, np.float32), _img(r, 5, np.float32)), 0),
    ("vis_charbonnier_pyramid", charbonnier_pyramid, lambda r: (_img(r, 8), _img(r, 8)), 0),
    ("vis_sobel_edges", sobel_edges, lambda r: (_img(r, 5), r.uniform(0.5, 1.5, (3, 3))), 0),
    ("vis_gram_style", gram_style, lambda r: (r.normal(size=(3, 3, 4)), r.normal(size=(3, 3, 4))), 0),
    ("vis_dice", dice_loss, lambda r: (r.normal(size=(2, 3, 3)), (r.uniform(size=(2, 3, 3)) > 0.5) * 1.0), 0),
    ("vis_focal", focal_loss, lambda r: (r.normal(size=12), (r.uniform(size=12) > 0.5).astype(int)), 0),
    ("vis_bilinear_shift", bilinear_shift, lambda r: (np.array([0.3, 0.6]), _img(r, 5), _img(r, 4)), 0),
    ("vis_soft_histogram", soft_histogram, lambda r: (r.uniform(0.1, 0.9, 20),), 0),
    ("vis_edge_aware", edge_aware_smoothness, lambda r: (_img(r, 5), _img(r, 5)), 0),
    ("graph_laplacian_smoothing", laplacian_smoothing, lambda r: (r.normal(size=N_NODES),), 0),
    ("graph_edge_list_weights", edge_list_smoothing,
     lambda r: (r.normal(size=N_NODES), r.uniform(0.5, 2.0, len(EDGES))), 1),
    ("graph_edge_list_x", edge_list_smoothing, lambda r: (r.normal(size=N_NODES),), 0),
    ("graph_diffusion", graph_diffusion, lambda r: (r.normal(size=(N_NODES, 2)),), 0),
    ("graph_gcn", gcn_two_layer, lambda r: ({"w1": r.normal(size=(3, 4)), "w2": r.normal(size=(4, 3))},), 0),
    ("graph_pagerank", pagerank_personal, lambda r: (r.normal(size=N_NODES),), 0),
]
