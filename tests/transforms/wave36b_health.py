"""Wave 36b: epidemiology and survival, written as modellers write them (age-structured SEIR with a
contact matrix and a vaccination schedule kept in a dict, renewal equations by serial-interval
convolution, Rt by a gamma posterior, household chains, Cox partial likelihood with risk sets by
sorting and ties by Breslow, Weibull AFT with censoring, Kaplan-Meier-style smoothing)
(test_wave36b.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

CONTACT = np.array([[8.0, 3.0, 1.0], [3.0, 10.0, 2.0], [1.0, 2.0, 4.0]])
POP = np.array([0.25, 0.55, 0.20])
VACCINATION = {5: np.array([0.0, 0.02, 0.05]), 10: np.array([0.0, 0.04, 0.08]), 15: np.array([0.01, 0.04, 0.04])}
OBSERVED = np.array([0.002, 0.004, 0.008, 0.015, 0.026, 0.04, 0.055, 0.07])
SERIAL = np.array([0.1, 0.3, 0.35, 0.2, 0.05])
INCIDENCE = np.array([5.0, 7.0, 9.0, 14.0, 18.0, 25.0, 31.0, 40.0, 47.0, 60.0, 66.0, 75.0])
TIMES = np.array([2.0, 3.5, 1.2, 6.0, 4.4, 0.8, 5.1, 7.3, 2.9, 3.1])
EVENT = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 1])
COVARIATES = np.array([[0.5, 1.0], [-0.2, 0.0], [1.2, 1.0], [-0.8, 0.0], [0.3, 1.0],
                       [1.5, 0.0], [-1.0, 1.0], [0.1, 0.0], [0.7, 1.0], [-0.4, 0.0]])


def seir_age_vaccination(params, days=20):
    """Age-structured SEIR, Euler per day; a dict {day: fraction vaccinated per age} read each day."""
    beta, sigma, gamma = params[0], params[1], params[2]
    s = POP * 0.99
    e = POP * 0.005
    i = POP * 0.005
    r = np.zeros(3)
    attack = 0.0
    for day in range(days):
        if day in VACCINATION:
            moved = VACCINATION[day] * s
            s = s - moved
            r = r + moved
        force = beta * CONTACT @ (i / POP)
        new_e = force * s
        s = s - new_e
        e = e + new_e - sigma * e
        i = i + sigma * e - gamma * i
        r = r + gamma * i
        attack = attack + np.sum(new_e)
    return attack


def seir_age_fit(log_params, observed=OBSERVED):
    """Fit prevalence by age-summed infections, parameters on the log scale; list of states appended."""
    beta, sigma, gamma = np.exp(log_params)
    state = [POP * 0.998, POP * 0.001, POP * 0.001, np.zeros(3)]
    prevalence = []
    for _ in range(len(observed)):
        s, e, i, r = state
        lam = beta * np.einsum("ij,j->i", CONTACT, i / POP)
        state = [s - lam * s, e + lam * s - sigma * e, i + sigma * e - gamma * i, r + gamma * i]
        prevalence.append(np.sum(state[2]))
    pred = np.array(prevalence)
    return np.sum((np.log(pred) - np.log(observed)) ** 2)


def next_generation_r0(params):
    """R0 as the spectral radius of the next-generation matrix, by power iteration."""
    beta, gamma = params[0], params[1]
    k = beta / gamma * CONTACT * POP[:, None]
    v = np.ones(3) / 3.0
    for _ in range(30):
        w = k @ v
        v = w / np.linalg.norm(w)
    return float(v @ k @ v) / float(v @ v)


def renewal_incidence(r_values, seed=INCIDENCE[:5]):
    """Cases by the renewal equation: today's cases = R_t * sum of the serial interval times the past."""
    cases = list(seed)
    for rt in r_values:
        recent = cases[-len(SERIAL):]
        pressure = sum(w * c for w, c in zip(SERIAL, reversed(recent)))
        cases.append(rt * pressure)
    pred = np.array(cases[len(seed):])
    target = INCIDENCE[len(seed):len(seed) + len(pred)]
    return np.sum(pred - target * np.log(pred))


def rt_gamma_posterior(log_rt, incidence=INCIDENCE, a=1.0, b=5.0):
    """Cori's Poisson likelihood with a gamma prior on each R_t (log-parametrised)."""
    rt = np.exp(log_rt)
    total = 0.0
    for t in range(5, len(incidence)):
        lam = rt[t - 5] * np.dot(SERIAL, incidence[t - 1:t - 6:-1] if t > 5 else incidence[t - 1::-1])
        total += incidence[t] * math.log(lam) - lam
    prior = np.sum((a - 1.0) * log_rt - rt / b) + np.sum(log_rt)
    return -(total + prior)


def household_chain_binomial(q):
    """Reed-Frost chain binomial: probability of each final-size path in a household of three."""
    p_escape = 1.0 / (1.0 + math.exp(-q[0]))
    p_community = 1.0 / (1.0 + math.exp(-q[1]))
    paths = {(1,): 2, (1, 1): 1, (1, 2): 1, (1, 1, 1): 2}
    loglik = 0.0
    for path, count in paths.items():
        susceptible, infected, prob = 2, path[0], 1.0
        for nxt in path[1:]:
            esc = p_escape ** infected
            prob *= math.comb(susceptible, nxt) * (1 - esc) ** nxt * esc ** (susceptible - nxt)
            susceptible -= nxt
            infected = nxt
        prob *= p_escape ** (infected * susceptible) if susceptible else 1.0
        loglik += count * math.log(prob * p_community + 1e-12)
    return -loglik


def cox_partial_likelihood(beta, times=TIMES, event=EVENT, x=COVARIATES):
    """Cox's partial likelihood: risk sets by sorting the times, a reversed cumulative logsumexp."""
    order = np.argsort(-times)
    eta = x[order] @ beta
    log_risk = np.logaddexp.accumulate(eta)
    return -np.sum((eta - log_risk)[event[order] == 1])


def cox_risk_sets_loop(beta, times=TIMES, event=EVENT, x=COVARIATES):
    """The same likelihood written with explicit risk-set masks and an early skip of censored rows."""
    eta = x @ beta
    loglik = 0.0
    for i in range(len(times)):
        if not event[i]:
            continue
        at_risk = times >= times[i]
        loglik += eta[i] - np.log(np.sum(np.exp(eta[at_risk])))
    return -loglik + 0.01 * np.sum(beta ** 2)


def weibull_aft_censored(theta, times=TIMES, event=EVENT, x=COVARIATES):
    """Weibull accelerated failure time: log density for events, log survival for censored rows."""
    coef, log_k = theta[:2], theta[2]
    k = np.exp(log_k)
    scale = np.exp(x @ coef)
    z = (times / scale) ** k
    log_f = np.log(k) - np.log(scale) + (k - 1) * np.log(times / scale) - z
    return -np.sum(np.where(event == 1, log_f, -z))


def log_logistic_survival(theta, times=TIMES, event=EVENT):
    alpha, beta = np.exp(theta[0]), np.exp(theta[1])
    u = (times / alpha) ** beta
    log_s = -np.log1p(u)
    log_h = np.log(beta / alpha) + (beta - 1) * np.log(times / alpha) - np.log1p(u)
    return -np.sum(event * log_h + log_s)


def piecewise_exponential(log_rates, cuts=(0.0, 2.0, 4.0, 100.0), times=TIMES, event=EVENT):
    """Exposure of each subject in each interval, by zip over the interval edges."""
    rates = np.exp(log_rates)
    loglik = 0.0
    for k, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:])):
        exposure = np.clip(times, lo, hi) - lo
        died_here = (event == 1) & (times > lo) & (times <= hi)
        loglik += np.sum(died_here) * log_rates[k] - rates[k] * np.sum(exposure)
    return -loglik


def vaccine_efficacy_beta(logit_ve, cases_vacc=12.0, cases_placebo=61.0):
    """Posterior of efficacy through the case split theta = (1 - VE) / (2 - VE)."""
    ve = 1.0 / (1.0 + np.exp(-logit_ve))
    theta = (1.0 - ve) / (2.0 - ve)
    loglik = cases_vacc * np.log(theta) + cases_placebo * np.log1p(-theta)
    return -float(np.sum(loglik)) - float(np.sum(np.log(ve) + np.log1p(-ve)))


def sir_final_size_newton(r0):
    """Final size z = 1 - exp(-R0 z) solved by Newton from 0.9; loss on the solution."""
    z = 0.9
    for _ in range(25):
        g = z - 1.0 + math.exp(-r0 * z)
        dg = 1.0 - r0 * math.exp(-r0 * z)
        z = z - g / dg
    return (z - 0.6) ** 2 + z


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


HEALTH = [
    ("epi_seir_age_vaccination", seir_age_vaccination, _vec(0.03, 0.3, 0.2), 0),
    ("epi_seir_age_fit", seir_age_fit, _vec(-3.5, -1.2, -1.6), 0),
    ("epi_next_generation_r0", next_generation_r0, _vec(0.05, 0.2), 0),
    ("epi_renewal_incidence", renewal_incidence, _vec(1.3, 1.25, 1.2, 1.1, 1.15, 1.05, 1.0), 0),
    ("epi_rt_gamma_posterior", rt_gamma_posterior, _vec(0.2, 0.25, 0.1, 0.05, 0.15, 0.0, 0.1), 0),
    ("epi_household_chain", household_chain_binomial, lambda rng: ([0.4, 1.1],), 0),
    ("surv_cox_accumulate", cox_partial_likelihood, _vec(0.4, -0.3), 0),
    ("surv_cox_risk_sets", cox_risk_sets_loop, _vec(0.4, -0.3), 0),
    ("surv_weibull_aft", weibull_aft_censored, _vec(1.1, 0.2, 0.3), 0),
    ("surv_log_logistic", log_logistic_survival, _vec(1.2, 0.4), 0),
    ("surv_piecewise_exponential", piecewise_exponential, _vec(-1.5, -1.2, -1.0), 0),
    ("epi_vaccine_efficacy", vaccine_efficacy_beta, _vec(1.4), 0),
    ("epi_final_size_newton", sir_final_size_newton, lambda rng: (2.2,), 0),
]
