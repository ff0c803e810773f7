"""Spec rows of the SciPy rules and of rules/numpy_more.py, in the form of
tests/rules/test_numpy_rules.py's `SPECS` (``Spec(rule name, expression, **inputs)``); that file
checks each against central differences.  Expressions may use ``sc`` (scipy.special) and
``stats`` (scipy.stats)."""

from rules.spec_kinds import EITHER, REFUSED, Sym


def more_specs(S, REAL, POS, UNIT, ABOVE1, NONZERO, sampler, SPD):
    PROB = sampler(0.1, 0.9)
    BIG = sampler(1.5, 4.0)
    return [
        # ---- scipy.special ----
        *[S(f"scipy.special.{n}", f"sc.{n}(x)", x=((3,), domain)) for n, domain in [
            ("gammaln", POS), ("digamma", POS), ("gamma", POS), ("rgamma", POS), ("erf", REAL), ("erfc", REAL),
            ("erfcx", REAL), ("erfinv", UNIT), ("erfcinv", sampler(0.2, 1.8)), ("ndtr", REAL), ("log_ndtr", REAL),
            ("ndtri", PROB),
            ("expit", REAL), ("logit", PROB), ("log_expit", REAL), ("entr", POS), ("i0", REAL), ("i1", REAL),
            ("i0e", NONZERO), ("i1e", NONZERO), ("j0", REAL), ("j1", REAL), ("y0", POS), ("y1", POS)]],
        S("scipy.special.gammaln", "sc.gammaln(x)", x=(None, POS)),
        S("scipy.special.polygamma", "sc.polygamma(1, x)", x=((3,), POS)),
        S("scipy.special.beta", "sc.beta(x, y)", x=((3,), POS), y=((3,), POS)),
        S("scipy.special.betaln", "sc.betaln(x, y)", x=((2, 3), POS), y=((3,), POS)),
        S("scipy.special.gammainc", "sc.gammainc(2.5, x)", x=((3,), POS)),
        S("scipy.special.gammaincc", "sc.gammaincc(2.5, x)", x=((3,), POS)),
        S("scipy.special.xlogy", "sc.xlogy(x, y)", x=((3,), REAL), y=((3,), POS)),
        S("scipy.special.xlog1py", "sc.xlog1py(x, y)", x=((3,), REAL), y=((3,), POS)),
        S("scipy.special.rel_entr", "sc.rel_entr(x, y)", x=((3,), POS), y=((3,), POS)),
        S("scipy.special.iv", "sc.iv(1.5, x)", x=((3,), POS)),
        S("scipy.special.ive", "sc.ive(1.5, x)", x=((3,), NONZERO)),
        S("scipy.special.jv", "sc.jv(2.5, x)", x=((3,), POS)),
        S("scipy.special.yv", "sc.yv(1.5, x)", x=((3,), POS)),
        S("scipy.special.yn", "sc.yn(2, x)", x=((3,), BIG)),
        S("scipy.special.logsumexp", "sc.logsumexp(x)", x=((2, 3), REAL)),
        S("scipy.special.logsumexp", "sc.logsumexp(x, axis=1)", x=((2, 3), REAL)),
        S("scipy.special.logsumexp", "sc.logsumexp(x, axis=0, keepdims=True)", x=((2, 3), REAL)),
        S("scipy.special.softmax", "sc.softmax(x, axis=1)", x=((2, 3), REAL)),
        S("scipy.special.softmax", "sc.softmax(x)", x=((4,), REAL)),
        S("scipy.special.log_softmax", "sc.log_softmax(x, axis=0)", x=((2, 3), REAL)),
        # ---- scipy.stats: value, location, scale and shapes ----
        *[S(f"scipy.stats.norm.{m}", f"stats.norm.{m}(x, m, s)", x=((3,), REAL), m=(None, REAL), s=(None, POS))
          for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
        *[S(f"scipy.stats.{d}.{m}", f"stats.{d}.{m}(x, m, s)", x=((3,), NONZERO), m=(None, UNIT), s=(None, POS))
          for d in ("laplace", "cauchy", "logistic") for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
        *[S(f"scipy.stats.expon.{m}", f"stats.expon.{m}(x, 0.1, s)", x=((3,), POS), s=(None, POS))
          for m in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
        *[S(f"scipy.stats.t.{m}", f"stats.t.{m}(x, df, m, s)", x=((3,), REAL), df=(None, BIG), m=(None, UNIT),
            s=(None, POS)) for m in ("logpdf", "pdf")],
        *[S(f"scipy.stats.t.{m}", f"stats.t.{m}(x, 3.5, m, s)", x=((3,), REAL), m=(None, UNIT), s=(None, POS))
          for m in ("cdf", "logcdf", "sf", "logsf")],
        *[S(f"scipy.stats.{d}.{m}", f"stats.{d}.{m}(x, a)", x=((3,), BIG), a=((3,), BIG))
          for d in ("gamma", "chi2", "lognorm") for m in ("logpdf", "pdf")],
        *[S(f"scipy.stats.{d}.{m}", f"stats.{d}.{m}(x, 2.5, 0.1, s)", x=((3,), BIG), s=(None, POS))
          for d in ("gamma", "chi2", "lognorm") for m in ("cdf", "logcdf", "sf", "logsf")],
        *[S(f"scipy.stats.beta.{m}", f"stats.beta.{m}(x, a, b)", x=((3,), PROB), a=((3,), BIG), b=(None, BIG))
          for m in ("logpdf", "pdf")],
        *[S(f"scipy.stats.beta.{m}", f"stats.beta.{m}(x, 2.0, 3.0)", x=((3,), PROB))
          for m in ("cdf", "logcdf", "sf", "logsf")],
        S("scipy.stats.poisson.logpmf", "stats.poisson.logpmf(np.arange(3), x)", x=((3,), BIG)),
        S("scipy.stats.poisson.pmf", "stats.poisson.pmf(np.arange(3), x)", x=((3,), BIG)),
        S("scipy.stats.binom.logpmf", "stats.binom.logpmf(np.arange(3), 5, x)", x=((3,), PROB)),
        S("scipy.stats.binom.pmf", "stats.binom.pmf(np.arange(3), 5, x)", x=((3,), PROB)),
        *[S(f"scipy.stats.nbinom.{m}", f"stats.nbinom.{m}(np.arange(3), n, p)", n=((3,), BIG), p=(None, PROB))
          for m in ("logpmf", "pmf")],
        # np.put_along_axis's indices, checked when run (lower/in_place_calls.py): integers, no gradient
        S("srcdiff.rules.write_helpers.along_axis_indices", "x[along_axis_indices(np.array([2, 0, 1]), x)] * x",
          x=((3,), REAL)),
        *[S(f"scipy.stats.geom.{m}", f"stats.geom.{m}(np.arange(1, 4), p)", p=((3,), PROB)) for m in ("logpmf", "pmf")],
        S("scipy.stats.multivariate_normal.logpdf", "stats.multivariate_normal.logpdf(x, m, 2.0)",
          x=((4, 3), REAL), m=((3,), REAL)),
        S("scipy.stats.multivariate_normal.logpdf",
          "stats.multivariate_normal.logpdf(x, m, np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.0]]))",
          x=((3,), REAL), m=((3,), REAL)),
        S("scipy.stats.multivariate_normal.pdf", "stats.multivariate_normal.pdf(x, m, np.diag([1.5, 2.0, 0.7]))",
          x=((2, 3), UNIT), m=((3,), UNIT)),
        S("scipy.stats.dirichlet.logpdf", "stats.dirichlet.logpdf(x / np.sum(x), a)", x=((3,), POS), a=((3,), BIG)),
        S("scipy.stats.dirichlet.pdf", "stats.dirichlet.pdf(x / np.sum(x), a)", x=((3,), POS), a=((3,), BIG)),
        # ---- more NumPy ----
        S("numpy.remainder", "np.remainder(x, y)", x=((3,), sampler(0.1, 0.9)), y=((3,), sampler(1.1, 1.5)),
          sym=Sym("np.sum(np.remainder(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", REFUSED)),
        S("numpy.fmod", "np.fmod(x, y)", x=((3,), sampler(2.1, 2.9)), y=((3,), sampler(1.1, 1.3)),
          sym=Sym("np.sum(np.fmod(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", REFUSED)),
        S("operator.mod", "x % y", x=((3,), sampler(2.1, 2.9)), y=(None, sampler(1.1, 1.3)),
          sym=Sym("(x % y) * x", "0.7, 1.3", REFUSED)),
        S("numpy.deg2rad", "np.deg2rad(x)", x=((3,), REAL), sym=Sym("np.sum(np.deg2rad(x) * y)", "V, W", EITHER)),
        S("numpy.rad2deg", "np.rad2deg(x)", x=((3,), REAL), sym=Sym("np.sum(np.rad2deg(x) * y)", "V, W", EITHER)),
        S("numpy.degrees", "np.degrees(x)", x=((3,), REAL), sym=Sym("np.sum(np.degrees(x) * y)", "V, W", EITHER)),
        S("numpy.radians", "np.radians(x)", x=((3,), REAL), sym=Sym("np.sum(np.radians(x) * y)", "V, W", EITHER)),
        S("numpy.fabs", "np.fabs(x)", x=((3,), NONZERO), sym=Sym("np.sum(np.fabs(x) * y)", "V, W", EITHER)),
        S("numpy.logaddexp2", "np.logaddexp2(x, y)", x=((2, 3), REAL), y=((3,), REAL),
          sym=Sym("np.sum(np.logaddexp2(x, y) * x)", "V, np.array([1.2, 0.4, 0.6])", EITHER)),
        S("numpy.sinc", "np.sinc(x)", x=((3,), NONZERO), sym=Sym("np.sum(np.sinc(x) * y)", "V, W", EITHER)),
        S("numpy.cross", "np.cross(x, y)", x=((4, 3), REAL), y=((4, 3), REAL)),
        S("numpy.cross", "np.cross(x, y, axisa=0, axisb=0)", x=((3, 2), REAL), y=((3, 2), REAL)),
        S("numpy.kron", "np.kron(x, y)", x=((2, 3), REAL), y=((3, 2), REAL)),
        S("numpy.kron", "np.kron(x, y)", x=((3,), REAL), y=((2, 2), REAL)),
        S("numpy.tril", "np.tril(x, -1)", x=((3, 3), REAL)),
        S("numpy.triu", "np.triu(x)", x=((3, 4), REAL)),
        S("numpy.diagonal", "np.diagonal(x)", x=((3, 4), REAL),
          sym=Sym("np.sum(np.sin(np.diagonal(x @ y)))", "A, B.T")),
        S("numpy.diagonal", "np.diagonal(x, -1)", x=((4, 3), REAL)),
        S("numpy.diagonal", "x.diagonal(2)", x=((3, 5), REAL)),
        S("numpy.diff", "np.diff(x)", x=((5,), REAL), sym=Sym("np.sum(np.sin(np.diff(x * y, n=2)))", "V, W")),
        S("numpy.diff", "np.diff(x, axis=0)", x=((3, 4), REAL)),
        S("numpy.rollaxis", "np.rollaxis(x, 2)", x=((2, 3, 4), REAL)),
        S("numpy.fliplr", "np.fliplr(x)", x=((2, 3), REAL)),
        S("numpy.flipud", "np.flipud(x)", x=((2, 3), REAL)),
    ]
