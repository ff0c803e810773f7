"""Wave 32h: reinforcement learning losses written the way practitioners write them: REINFORCE with
a log-softmax by hand, GAE by ``reversed(range(T))``, PPO's clipped ratio, soft Q targets, SAC's
tanh-squashed Gaussian, TD(lambda) traces, soft value iteration, DPO, V-trace, actor-critic tuples,
advantage normalisation, bandits on float32 features."""

from __future__ import annotations

import math

import numpy as np

RNG = np.random.default_rng(321)
FEATS = RNG.normal(size=(10, 4))
ACTIONS = RNG.integers(0, 3, size=10)
RETURNS = RNG.normal(size=10)
REWARDS = RNG.normal(size=8)
DONES = np.array([0, 0, 0, 1, 0, 0, 0, 0], dtype=float)
OLD_LOGP = -1.1 + 0.1 * RNG.normal(size=10)
STATES = RNG.normal(size=(6, 3))
NEXT = RNG.normal(size=(6, 3))


def log_softmax(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))


def reinforce(theta, feats=FEATS, actions=ACTIONS, returns=RETURNS):
    logits = feats @ theta
    logp = log_softmax(logits)
    chosen = logp[np.arange(len(actions)), actions]
    return -np.mean(chosen * returns)


def gae_loss(values, rewards=REWARDS, dones=DONES, gamma=0.99, lam=0.95):
    T = len(rewards)
    adv = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * values[t + 1] * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    returns = adv + values[:-1]
    return np.mean((values[:-1] - returns) ** 2) + 0.1 * np.sum(adv ** 2)


def ppo_clip(theta, feats=FEATS, actions=ACTIONS, old_logp=OLD_LOGP, adv=RETURNS, eps=0.2):
    logp = log_softmax(feats @ theta)[np.arange(10), actions]
    ratio = np.exp(logp - old_logp)
    unclipped = ratio * adv
    clipped = np.clip(ratio, 1 - eps, 1 + eps) * adv
    entropy = -np.sum(np.exp(log_softmax(feats @ theta)) * log_softmax(feats @ theta), axis=1)
    return -np.mean(np.minimum(unclipped, clipped)) - 0.01 * np.mean(entropy)


def soft_q_loss(w, s=STATES, s2=NEXT, r=REWARDS[:6], alpha=0.5, gamma=0.9):
    q = s @ w
    q_next = s2 @ w
    m = np.max(q_next / alpha, axis=1)
    v_next = alpha * (m + np.log(np.sum(np.exp(q_next / alpha - m[:, None]), axis=1)))
    target = r + gamma * v_next  # (residual gradient: through the target too)
    return 0.5 * np.mean((q[:, 0] - target) ** 2)


def sac_actor(params, s=STATES, noise=RNG.normal(size=(6, 2)), alpha=0.2):  # noqa: B008
    mu = s @ params["mu"]
    log_std = np.clip(s @ params["log_std"], -5.0, 2.0)
    std = np.exp(log_std)
    u = mu + std * noise
    a = np.tanh(u)
    logp = np.sum(-0.5 * noise ** 2 - log_std - 0.5 * math.log(2 * math.pi), axis=1)
    logp -= np.sum(np.log(1 - a ** 2 + 1e-6), axis=1)
    q = np.sum(a * np.array([1.0, -0.5]), axis=1) - 0.3 * np.sum(a ** 2, axis=1)
    return np.mean(alpha * logp - q)


def td_lambda(w, xs=STATES, rewards=REWARDS[:5], gamma=0.9, lam=0.8):
    trace = np.zeros_like(w)
    total = 0.0
    for t in range(len(rewards)):
        v, v_next = xs[t] @ w, xs[t + 1] @ w
        delta = rewards[t] + gamma * v_next - v
        trace = gamma * lam * trace + xs[t]
        total += delta ** 2 + 0.01 * np.sum((trace * delta) ** 2)
    return total


P_MDP = np.abs(RNG.normal(size=(2, 4, 4)))
P_MDP /= P_MDP.sum(axis=2, keepdims=True)


def soft_value_iteration(reward, P=P_MDP, gamma=0.8, tau=0.5, iters=25):
    V = np.zeros(reward.shape[0])
    for _ in range(iters):
        Q = reward + gamma * np.stack([P[a] @ V for a in range(P.shape[0])], axis=1)
        V = tau * np.log(np.sum(np.exp(Q / tau), axis=1))
    return np.sum(V) + 0.1 * np.sum(reward ** 2)


def dpo(delta_params, beta=0.1, ref=np.array([0.3, -0.2, 0.5, 0.1])):  # noqa: B008
    chosen, rejected = delta_params[:4], delta_params[4:]
    margin = beta * ((chosen - ref) - (rejected + ref))
    return np.mean(np.logaddexp(0.0, -margin))


def vtrace(v, rewards=REWARDS[:6], logrho=0.3 * RNG.normal(size=6) + 0.5, gamma=0.95, rho_bar=1.0):  # noqa: B008
    rho = np.minimum(rho_bar, np.exp(logrho))
    c = np.minimum(1.0, np.exp(logrho))
    acc = 0.0
    vs = np.zeros(6)
    for t in range(5, -1, -1):
        delta = rho[t] * (rewards[t] + gamma * v[t + 1] - v[t])
        acc = delta + gamma * c[t] * acc
        vs[t] = v[t] + acc
    return np.sum((vs - v[:-1]) ** 2)


def actor_critic(params, s=STATES, actions=ACTIONS[:6], r=REWARDS[:6]):
    actor, critic = params
    logp = log_softmax(s @ actor)[np.arange(6), actions]
    value = s @ critic
    adv = r - value
    return -np.mean(logp * adv) + 0.5 * np.mean(adv ** 2)


def normalised_advantage(theta, feats=FEATS, actions=ACTIONS, adv=RETURNS):
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    logp = log_softmax(feats @ theta)
    return -np.mean(logp[np.arange(len(adv)), actions] * adv)


def gaussian_policy(params, s=STATES, a=RNG.normal(size=6)):  # noqa: B008
    mean = s @ params[0] + params[1]
    log_std = np.clip(params[2], -4.0, 1.0)
    logp = -0.5 * ((a - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)
    return -np.sum(logp)


def bandit_f32(prefs, x=FEATS[:, :3].astype(np.float32), rewards=RETURNS.astype(np.float32)):  # noqa: B008
    logits = x @ prefs
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    return -np.sum(p * rewards)


def discounted_return(w, s=STATES, gamma=0.9):
    G = 0.0
    for t, state in enumerate(s):
        reward = np.tanh(state @ w)
        G += gamma ** t * reward
    return -G


def q_huber(w, s=STATES, s2=NEXT, r=REWARDS[:6], gamma=0.99, delta=1.0):
    q = s @ w
    target = r + gamma * np.max(s2 @ w, axis=1)
    err = q[:, 1] - target
    small = np.abs(err) < delta
    return np.mean(np.where(small, 0.5 * err ** 2, delta * (np.abs(err) - 0.5 * delta)))


def episode_rollout(k, x0=np.array([1.0, 0.0]), dt=0.1, steps=20):  # noqa: B008
    x, v = x0
    cost = 0.0
    for _ in range(steps):
        u = -k[0] * x - k[1] * v
        v = v + dt * (u - 0.1 * v)
        x = x + dt * v
        cost += x * x + 0.01 * u * u
        if abs(x) > 10.0:
            return cost + 100.0
    return cost


def _w(shape, scale=0.4):
    return lambda rng: (scale * rng.normal(size=shape),)


RL = [
    ("rl_reinforce", reinforce, _w((4, 3)), 0),
    ("rl_gae_reversed", gae_loss, _w(9, 1.0), 0),
    ("rl_ppo_clip", ppo_clip, _w((4, 3), 0.1), 0),
    ("rl_soft_q", soft_q_loss, _w((3, 2)), 0),
    ("rl_sac_actor_dict", sac_actor,
     lambda rng: ({"mu": 0.3 * rng.normal(size=(3, 2)), "log_std": 0.2 * rng.normal(size=(3, 2))},), 0),
    ("rl_td_lambda", td_lambda, _w(3), 0),
    ("rl_soft_value_iteration", soft_value_iteration, _w((4, 2), 0.5), 0),
    ("rl_dpo", dpo, _w(8, 1.0), 0),
    ("rl_vtrace", vtrace, _w(7, 1.0), 0),
    ("rl_actor_critic_tuple", actor_critic,
     lambda rng: ((0.3 * rng.normal(size=(3, 3)), 0.3 * rng.normal(size=3)),), 0),
    ("rl_normalised_advantage", normalised_advantage, _w((4, 3)), 0),
    ("rl_gaussian_policy_list", gaussian_policy,
     lambda rng: ([0.3 * rng.normal(size=3), 0.1, np.array(-0.5)],), 0),
    ("rl_bandit_f32", bandit_f32, _w((3,)), 0),
    ("rl_discounted_enumerate", discounted_return, _w(3), 0),
    ("rl_q_huber_where", q_huber, _w((3, 2)), 0),
    ("rl_rollout_early_return", episode_rollout, lambda rng: (np.array([2.0, 1.5]),), 0),
]
