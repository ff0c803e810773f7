"""``scipy.stats`` distributions as users call them: ``norm.logpdf(x, loc, scale)``,
``t.cdf(x, df)``, ``poisson.logpmf(k, mu)``, ``nbinom.logpmf(k, n, p)``, ``multivariate_normal.logpdf(x, mean, cov)``.

A rule is keyed on the bound method (``scipy.stats.norm.logpdf``; two reads of it are
equal).  Univariate laws broadcast (elementwise rules).  A location-scale family is written
once from its standard density: with ``z = (x - loc) / scale`` and ``l(z) = log f(z)``,

    d logpdf/dx = l'(z) / scale,  d/dloc = -l'(z) / scale,  d/dscale = -(l'(z) z + 1) / scale
    d cdf/dx = f(z) / scale,      d/dloc = -f(z) / scale,   d/dscale = -f(z) z / scale

and a shape parameter's derivative of the log density is written out (digamma terms).  The
cdf family has no closed form in a shape parameter: a shape that carries a gradient into a
``cdf`` is refused, never given a silent zero.  Integer arguments (counts ``k``, trials ``n``)
have no gradient either.
"""

import scipy.stats as st

from ..ir import shapes
from .table import rule

Z = "((x - loc) / scale)"
S = "scipy_special."
LOG_SQRT_2PI = "0.9189385332046727"


#: z where it is positive, 0 elsewhere (a Weibull law has no mass below its location: there its cdf is
#: a constant 0, so its derivatives are 0, never NaN of a negative number's power)
_WZ = "np.maximum(z, 0.0)"


#: the Weibull law's hazard c z ** (c - 1), 0 below its location (where a c < 1 would make it 0 ** -0.3)
_HAZARD = f"np.where(z > 0.0, c * {_WZ} ** (c - 1.0), 0.0)"


def _z(text: str) -> str:
    return text.replace("z", Z)


#: Why no distribution here has a sympy counterpart.
NOT_SYMBOLIC = "a SciPy distribution, checked against central differences only"


def family(name: str, params: tuple[str, ...], dlog: str, logf: str, shape_dlog: dict[str, str] | None = None,
           methods=("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), sympy: dict | None = None,
           shape_dcdf: dict[str, str] | None = None, exact: dict[str, dict[str, str]] | None = None):
    """The rules of ``scipy.stats.<name>`` with shape `params`: `dlog` is l'(z), `logf` is
    l(z), `shape_dlog` the derivative of l(z) in each shape parameter (templates over z and
    the shapes), `shape_dcdf` that of the standard cdf where it has a closed form (then the
    cdf family has a gradient to the shapes too), and `exact` a method's templates written
    out where the general form loses precision (``weibull_min.logsf`` is ``-z ** c``: no
    ``exp(-ans)`` that overflows)."""
    dist = getattr(st, name)
    dlog, logf = f"({_z(dlog)})", f"({_z(logf)})"
    shape_dlog = {p: f"({_z(t)})" for p, t in (shape_dlog or {}).items()}
    all_params = ("x", *params, "loc", "scale")
    log_density = {"x": f"g * {dlog} / scale", "loc": f"-g * {dlog} / scale",
                   "scale": f"-g * ({dlog} * {Z} + 1.0) / scale",
                   **{p: f"g * {t}" for p, t in shape_dlog.items()}}
    def by_density(f):  # the cdf's derivatives in x, loc and scale, the density spelled f
        return {"x": f"g * {f} / scale", "loc": f"-g * {f} / scale", "scale": f"-g * {f} * {Z} / scale"}

    shapes_cdf = {p: f"g * ({_z(t)})" for p, t in (shape_dcdf or {}).items()}
    cdf = {**by_density(f"np.exp({logf})"), **shapes_cdf}
    # the log of a tail probability: density / probability as one exponential, exp(log f - ans),
    # which stays finite far in the tail where both underflow (norm.logcdf(-40): f / cdf is 0 / 0)
    log_tail = by_density(f"np.exp({logf} - ans)")
    templates = {
        "logpdf": log_density,
        "pdf": {p: t.replace("g * ", "g * ans * ", 1) for p, t in log_density.items()},
        "cdf": cdf,
        "logcdf": {**log_tail, **{p: f"{t} * np.exp(-ans)" for p, t in shapes_cdf.items()}},
        "sf": {p: "-" + t for p, t in cdf.items()},
        "logsf": {**{p: "-" + t for p, t in log_tail.items()},
                  **{p: f"-{t} * np.exp(-ans)" for p, t in shapes_cdf.items()}},
    }
    for method, written in (exact or {}).items():
        templates[method] = {**templates[method], **{p: _z(t) for p, t in written.items()}}
    made = []
    for method in methods:
        note = "" if method in ("logpdf", "pdf") or not params or shape_dcdf else \
            f"no gradient to the shape {', '.join(params)} (no closed form)"
        made.append(rule(getattr(dist, method), all_params, templates[method], name=f"scipy.stats.{name}.{method}",
                         defaults={"loc": 0.0, "scale": 1.0}, elementwise=True, fresh=True, note=note,
                         not_symbolic=NOT_SYMBOLIC))
    return made


def discrete(name: str, params: tuple[str, ...], dlog: dict[str, str]):
    """``logpmf`` and ``pmf`` of a discrete law: the count k (less loc) has no gradient."""
    dist = getattr(st, name)
    all_params = ("k", *params, "loc")
    logpmf = {p: f"g * ({t})" for p, t in dlog.items()}
    pmf = {p: f"g * ans * ({t})" for p, t in dlog.items()}
    note = "no gradient to the count k or to integer parameters"
    return [rule(dist.logpmf, all_params, logpmf, name=f"scipy.stats.{name}.logpmf", defaults={"loc": 0.0},
                 elementwise=True, fresh=True, note=note, not_symbolic=NOT_SYMBOLIC),
            rule(dist.pmf, all_params, pmf, name=f"scipy.stats.{name}.pmf", defaults={"loc": 0.0},
                 elementwise=True, fresh=True, note=note, not_symbolic=NOT_SYMBOLIC)]


# ---- multivariate laws: the value's last (normal) or first (Dirichlet) axis holds the components ----

#: Σ⁻¹ (x - mean), row by row (x is (d,) or (n, d)), Σ the matrix SciPy reads: the lower triangle of
#: cov mirrored (SciPy's eigh reads no other, so a cov that is not symmetric is read as that one, and
#: the gradient must be of the same matrix); a scalar or diagonal cov divides
_SOLVE = "np.reshape(np.swapaxes(np.linalg.solve({sigma}, np.swapaxes(np.atleast_2d(x - mean), -1, -2)), -1, -2), " \
    "np.shape(x - mean))"
_MIRRORED = "np.tril({c}) + np.swapaxes(np.tril({c}, -1), -1, -2)"
_SOLVED = {2: _SOLVE.format(sigma=_MIRRORED.format(c="cov")), 1: "(x - mean) / cov", 0: "(x - mean) / cov"}


def _mvn_solved(operand_shapes) -> str | None:
    """``Sigma^-1 (x - mean)`` along x's last axis, for the cov's number of axes (None: refused)."""
    cov = operand_shapes["cov"]
    if cov.known and cov.ndim not in _SOLVED:
        return None
    if cov.known:
        return _SOLVED[cov.ndim]
    square = "(cov if np.ndim(cov) == 2 else np.diag(np.ones(np.shape(x)[-1]) * cov))"
    return _SOLVE.format(sigma=_MIRRORED.format(c=square))


def _mvn_templates(scaled: bool):
    def templates(static, operand_shapes):
        solved = _mvn_solved(operand_shapes)
        if solved is None:
            return {}  # refused where x or mean carries a gradient
        weight = "np.expand_dims(g * ans, -1)" if scaled else "np.expand_dims(g, -1)"
        out = {"x": f"-{weight} * {solved}", "mean": f"unbroadcast({weight} * {solved}, mean)"}
        return out  # no gradient to cov: SciPy reads one triangle of it, so its entries' derivatives are not
        # the symmetric formula; refused rather than given one that differs from central differences
    return templates


def _mvn_tangents(scaled: bool):
    """The adjoints' transposes, ``-sum(Sigma^-1 (x - mean) * (x_dot - mean_dot), axis=-1)`` (times the
    density for ``pdf``): forward mode (jvp, the Hessian's columns) takes the law too."""
    def tangents(static, operand_shapes):
        solved = _mvn_solved(operand_shapes)
        if solved is None:
            return {}
        weight = " * ans" if scaled else ""
        return {"x": f"-np.sum({solved} * x_dot, axis=-1){weight}",
                "mean": f"np.sum({solved} * mean_dot, axis=-1){weight}"}
    return tangents


def _dirichlet_templates(scaled: bool):
    def templates(static, operand_shapes):
        w = "g * ans" if scaled else "g"
        x = operand_shapes["x"]
        if not x.known:  # the components' axis is the first: alpha runs down it
            return {"x": f"{w} * np.reshape(alpha - 1.0, np.shape(alpha) + (1,) * (np.ndim(x) - 1)) / x"}
        log_x = "np.log(x)" if x.ndim == 1 else f"np.sum({w} * np.log(x), axis=-1)"
        total = w if x.ndim == 1 else f"np.sum({w})"
        alpha_down = "(alpha - 1.0)" if x.ndim == 1 else f"np.reshape(alpha - 1.0, (-1,{' 1,' * (x.ndim - 1)}))"
        return {"x": f"{w} * {alpha_down} / x",
                "alpha": f"{'' if x.ndim > 1 else w + ' * '}{log_x} - {total} * ({S}digamma(alpha) - "
                         f"{S}digamma(np.sum(alpha)))"}
    return templates


def _dirichlet_tangents(scaled: bool):
    """The adjoints transposed (components down x's first axis, alpha along them): forward mode
    (jvp, the Hessian's columns) takes the law too."""
    def tangents(static, operand_shapes):
        x = operand_shapes["x"]
        if not x.known:
            return {}
        weight = " * ans" if scaled else ""
        down = "" if x.ndim == 1 else f"(-1,{' 1,' * (x.ndim - 1)})"
        def col(v):  # a vector of the components, along x's first axis
            return f"({v})" if x.ndim == 1 else f"np.reshape({v}, {down})"
        over = "" if x.ndim == 1 else ", axis=0"
        score = f"np.log(x) - {col(f'{S}digamma(alpha) - {S}digamma(np.sum(alpha))')}"
        return {"x": f"np.sum({col('alpha - 1.0')} / x * x_dot{over}){weight}",
                "alpha": f"np.sum(({score}) * {col('alpha_dot')}{over}){weight}"}
    return tangents


def poisson_cumulative():
    """``poisson.cdf``/``sf``/``logcdf``/``logsf`` in mu: d cdf / d mu = -pmf(floor(k - loc), mu)."""
    n = "np.floor(k - loc)"
    pmf = f"np.where({n} >= 0.0, np.exp({S}xlogy({n}, mu) - mu - {S}gammaln({n} + 1.0)), 0.0)"
    templates = {"cdf": f"-g * {pmf}", "sf": f"g * {pmf}",
                 "logcdf": f"-g * {pmf} * np.exp(-ans)", "logsf": f"g * {pmf} * np.exp(-ans)"}
    return [rule(getattr(st.poisson, m), ("k", "mu", "loc"), {"mu": t}, name=f"scipy.stats.poisson.{m}",
                 defaults={"loc": 0.0}, elementwise=True, fresh=True, note="gradient to mu (the count k has none)",
                 not_symbolic=NOT_SYMBOLIC)
            for m, t in templates.items()]


def _mvn_shape(static, x, mean, cov):
    if not x.known:
        return shapes.UNKNOWN
    return shapes.SCALAR if x.ndim <= 1 else shapes.Shape(x.dims[:-1])


def _dirichlet_shape(static, x, alpha):
    if not x.known:
        return shapes.UNKNOWN
    return shapes.SCALAR if x.ndim <= 1 else shapes.Shape(x.dims[1:])


MVN_NOTE = "gradient to x and mean; cov (a matrix, a diagonal or a number) gets none: refused"

RULES = [
    *family("norm", (), dlog="-z", logf=f"-0.5 * z * z - {LOG_SQRT_2PI}"),
    *family("laplace", (), dlog="-np.sign(z)", logf="-np.abs(z) - 0.6931471805599453"),
    *family("cauchy", (), dlog="-2.0 * z / (1.0 + z * z)", logf="-np.log(np.pi * (1.0 + z * z))"),
    *family("logistic", (), dlog="-np.tanh(0.5 * z)", logf="-z - 2.0 * np.logaddexp(0.0, -z)"),  # no overflow
    *family("expon", (), dlog="-1.0 + 0.0 * z", logf="-z + np.log(z >= 0.0)"),
    *family("t", ("df",), dlog="-(df + 1.0) * z / (df + z * z)",
            logf=f"{S}gammaln(0.5 * (df + 1.0)) - {S}gammaln(0.5 * df) - 0.5 * np.log(df * np.pi) "
                 "- 0.5 * (df + 1.0) * np.log1p(z * z / df)",
            shape_dlog={"df": f"(0.5 * ({S}digamma(0.5 * (df + 1.0)) - {S}digamma(0.5 * df)) - 0.5 / df "
                              "- 0.5 * np.log1p(z * z / df) + 0.5 * (df + 1.0) * z * z / (df * (df + z * z)))"}),
    *family("gamma", ("a",), dlog="(a - 1.0) / z - 1.0",
            logf=f"(a - 1.0) * np.log(z) - z - {S}gammaln(a)",
            shape_dlog={"a": f"(np.log(z) - {S}digamma(a))"}),
    *family("chi2", ("df",), dlog="(0.5 * df - 1.0) / z - 0.5",
            logf=f"(0.5 * df - 1.0) * np.log(z) - 0.5 * z - 0.5 * df * 0.6931471805599453 - {S}gammaln(0.5 * df)",
            shape_dlog={"df": f"0.5 * (np.log(0.5 * z) - {S}digamma(0.5 * df))"}),
    *family("beta", ("a", "b"), dlog="(a - 1.0) / z - (b - 1.0) / (1.0 - z)",
            logf=f"(a - 1.0) * np.log(z) + (b - 1.0) * np.log1p(-z) - {S}betaln(a, b)",
            shape_dlog={"a": f"(np.log(z) - {S}digamma(a) + {S}digamma(a + b))",
                        "b": f"(np.log1p(-z) - {S}digamma(b) + {S}digamma(a + b))"}),
    *family("lognorm", ("s",), dlog="-(1.0 + np.log(z) / (s * s)) / z",
            logf=f"-np.log(s * z) - {LOG_SQRT_2PI} - 0.5 * np.log(z) ** 2 / (s * s)",
            shape_dlog={"s": "(-1.0 / s + np.log(z) ** 2 / (s * s * s))"}),
    # the Weibull law's standard cdf 1 - exp(-z ** c) has a closed form in c too; z <= 0 has no mass
    *family("weibull_min", ("c",), dlog=f"(c - 1.0) / z - c * {_WZ} ** (c - 1.0)",
            logf=f"np.log(c) + (c - 1.0) * np.log(np.where(z > 0.0, z, 1.0)) - {_WZ} ** c + np.log(z > 0.0)",
            shape_dlog={"c": f"(1.0 / c + np.log(z) - {S}xlogy({_WZ} ** c, {_WZ}))"},
            shape_dcdf={"c": f"np.exp(-{_WZ} ** c) * {S}xlogy({_WZ} ** c, {_WZ})"},
            exact={"logsf": {"x": f"-g * {_HAZARD} / scale", "loc": f"g * {_HAZARD} / scale",
                             "scale": f"g * c * {_WZ} ** c / scale", "c": f"-g * {S}xlogy({_WZ} ** c, {_WZ})"}}),
    *discrete("poisson", ("mu",), {"mu": "(k - loc) / mu - 1.0"}),
    *poisson_cumulative(),
    *discrete("binom", ("n", "p"), {"p": "(k - loc) / p - (n - k + loc) / (1.0 - p)"}),
    # log pmf = gammaln(k + n) - gammaln(n) - gammaln(k + 1) + n log p + k log(1 - p): n is real here
    *discrete("nbinom", ("n", "p"), {"n": f"{S}digamma(k - loc + n) - {S}digamma(n) + np.log(p)",
                                     "p": "n / p - (k - loc) / (1.0 - p)"}),
    *discrete("geom", ("p",), {"p": "1.0 / p - (k - loc - 1.0) / (1.0 - p)"}),  # k = 1, 2, ...
    rule(st.multivariate_normal.logpdf, ("x", "mean", "cov"), _mvn_templates(False),
         name="scipy.stats.multivariate_normal.logpdf", defaults={"mean": 0.0, "cov": 1.0}, shape=_mvn_shape,
         tangents=_mvn_tangents(False), fresh=True, note=MVN_NOTE, not_symbolic=NOT_SYMBOLIC),
    rule(st.multivariate_normal.pdf, ("x", "mean", "cov"), _mvn_templates(True),
         name="scipy.stats.multivariate_normal.pdf", defaults={"mean": 0.0, "cov": 1.0}, shape=_mvn_shape,
         tangents=_mvn_tangents(True), fresh=True, note=MVN_NOTE, not_symbolic=NOT_SYMBOLIC),
    rule(st.dirichlet.logpdf, ("x", "alpha"), _dirichlet_templates(False), name="scipy.stats.dirichlet.logpdf",
         shape=_dirichlet_shape, tangents=_dirichlet_tangents(False), fresh=True,
         note="x's first axis holds the components", not_symbolic=NOT_SYMBOLIC),
    rule(st.dirichlet.pdf, ("x", "alpha"), _dirichlet_templates(True), name="scipy.stats.dirichlet.pdf",
         shape=_dirichlet_shape, tangents=_dirichlet_tangents(True), fresh=True,
         note="x's first axis holds the components", not_symbolic=NOT_SYMBOLIC),
]
