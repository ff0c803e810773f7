"""Spec rows of rules/numpy_calculus.py, numpy_statistics.py and numpy_complex_real.py (and
the SciPy rules added with them), in the form of tests/rules/test_numpy_rules.py's `SPECS`
(``Spec(rule name, expression, **inputs)``); that file checks each against central
differences."""

from rules.spec_kinds import EITHER, Sym


def calc_specs(S, REAL, POS, UNIT, NONZERO, sampler):
    WIDE = sampler(-3.0, 3.0)
    CH = "srcdiff.rules.calculus_helpers"
    return [
        # ---- differences ----
        S("numpy.diff", "np.diff(x, n=2, axis=0)", x=((5, 3), REAL)),
        S("numpy.diff", "np.diff(x, n=3)", x=((6,), REAL)),
        S("numpy.diff", "np.diff(x, axis=0)", x=((1, 3), REAL)),  # an empty difference
        S("numpy.diff", "np.diff(x, prepend=y, append=1.5)", x=((4,), REAL), y=(None, REAL)),
        S("numpy.diff", "np.diff(x, n=2, axis=1, prepend=y)", x=((2, 4), REAL), y=((2, 2), REAL)),
        # n and axis written in NumPy's positions (an n of 0 is x itself)
        S("numpy.diff", "np.diff(x, 2)", x=((6,), REAL)),
        S("numpy.diff", "np.diff(x, 0)", x=((4,), REAL)),
        S("numpy.diff", "np.diff(x, 1, 0)", x=((4, 2), REAL)),
        S("numpy.ediff1d", "np.ediff1d(x)", x=((2, 3), REAL), sym=Sym("np.sum(np.sin(np.ediff1d(x * y)))", "V, W")),
        S("numpy.ediff1d", "np.ediff1d(x, to_begin=1.0, to_end=(2.0, 3.0))", x=((4,), REAL)),
        S("numpy.gradient", "np.gradient(x)", x=((6,), REAL)),
        S("numpy.gradient", "np.gradient(x, 0.5, axis=1, edge_order=2)", x=((3, 5), REAL)),
        S("numpy.gradient", "np.gradient(x, axis=0)[1:] * np.gradient(x, axis=-1)[:-1]", x=((4, 3, 2), REAL)),
        S("numpy.gradient", "np.gradient(x, 2.0, axis=(0,))", x=((3, 2), REAL)),
        S(f"{CH}.gradient_adjoint", "gradient_adjoint(x * y, 0.5, 0, 1)", x=((4, 2), REAL), y=((4, 2), REAL)),
        S(f"{CH}.gradient_adjoint", "gradient_adjoint(np.sin(x), 1.0, 1, 2)", x=((2, 5), REAL)),
        # ---- evenly spaced values ----
        S("numpy.linspace", "np.linspace(x, y, 5)", x=(None, REAL), y=(None, REAL)),
        S("numpy.linspace", "np.linspace(x, 2.0 * x, 4, endpoint=False)", x=(None, REAL)),
        S("numpy.linspace", "np.linspace(x, y, 1)", x=(None, REAL), y=(None, REAL)),
        S("numpy.geomspace", "np.geomspace(x, y, 5)", x=(None, POS), y=(None, POS)),
        S("numpy.geomspace", "np.geomspace(-x, -y, 3)", x=(None, POS), y=(None, POS)),
        # ---- scans, integrals, polynomials, interpolation ----
        S("numpy.cumprod", "np.cumprod(x)", x=((2, 3), REAL), sym=Sym("np.sum(np.sin(np.cumprod(x * y)))", "V, W")),
        S("numpy.cumprod", "np.cumprod(x, axis=1)", x=((2, 4), REAL)),
        S("numpy.cumprod", "np.cumprod(x * np.array([1.0, 0.0, 1.0, 1.0]), axis=0)", x=((4,), REAL)),  # a zero
        S("numpy.trapezoid", "np.trapezoid(x)", x=((5,), REAL), sym=Sym("np.sin(np.trapezoid(x * x, y))", "V, W")),
        S("numpy.trapezoid", "np.trapezoid(x, dx=0.3, axis=0)", x=((4, 3), REAL)),
        S("numpy.trapezoid", "np.trapezoid(x, y)", x=((5,), REAL), y=((5,), REAL)),
        S("numpy.trapezoid", "np.trapezoid(x, y, axis=1)", x=((2, 4), REAL), y=((2, 4), REAL)),
        S("numpy.trapezoid", "np.trapezoid(x, np.cumsum(np.ones(4)), axis=0)", x=((4, 2), REAL)),
        S("numpy.polyval", "np.polyval(x, y)", x=((4,), REAL), y=((3,), REAL),
          sym=Sym("np.sum(np.sin(np.polyval(x, y)))", "V, W")),
        S("numpy.polyval", "np.polyval(x, y)", x=((1,), REAL), y=(None, REAL)),
        S("numpy.interp", "np.interp(x, np.array([0.0, 1.0, 1.5, 3.0]), y)", x=((5,), WIDE), y=((4,), REAL)),
        S("numpy.interp", "np.interp(1.3, np.array([0.0, 1.0, 1.5, 3.0]), y)", y=((4,), REAL)),
        S(f"{CH}.interp_adjoint", "interp_adjoint(x * x, np.array([0.1, 0.7, 1.9]), np.array([0.0, 1.0, 2.0]), 3)",
          x=((3,), REAL)),
        S(f"{CH}.interp_slope", "interp_slope(x, np.array([0.0, 1.0, 1.5, 3.0]), y * y)", x=((5,), WIDE),
          y=((4,), REAL)),
        # ---- reading by index ----
        S("numpy.bincount", "np.bincount(np.array([0, 2, 2, 1]), weights=x * x, minlength=4)", x=((4,), REAL)),
        S("numpy.bincount", "np.bincount(np.array([3, 0, 3]), np.sin(x))", x=((3,), REAL)),
        S("numpy.take", "np.take(x, [2, 0, 2], axis=1)", x=((2, 3), REAL),
          sym=Sym("np.sum(np.sin(np.take(x * y, [2, 0, 2])))", "V, W")),
        S("numpy.take", "np.take(x * x, np.array([[0, 3], [3, 1]]))", x=((2, 2), REAL)),
        S(f"{CH}.take_adjoint", "take_adjoint(x * y, np.ones((2, 3)), np.array([0, 2, 0]), 1)", x=((2, 3), REAL),
          y=((2, 3), REAL)),
        S("numpy.take_along_axis", "np.take_along_axis(x, np.array([[1, 1], [0, 2]]), axis=1)", x=((2, 3), REAL),
          sym=Sym("np.sum(np.sin(np.take_along_axis(x * y, np.array([1, 1, 0]), axis=0)))", "V, W")),
        S(f"{CH}.take_along_axis_adjoint",
          "take_along_axis_adjoint(np.sin(x), np.ones((2, 3)), np.array([[1, 1], [0, 2]]), 1)", x=((2, 2), REAL)),
        # ---- sort and partition ----
        S("numpy.sort", "np.sort(x)", x=((5,), REAL)),
        S("numpy.sort", "np.sort(x, axis=0)", x=((4, 3), REAL)),
        S("numpy.sort", "np.sort(x, axis=None)", x=((2, 3), REAL)),
        S("numpy.partition", "np.partition(x, 2)", x=((5,), REAL)),
        S("numpy.partition", "np.partition(x, (0, 2), axis=0)", x=((4, 2), REAL)),
        S("numpy.argpartition", "x[np.argpartition(x, 1)]", x=((4,), REAL)),
        # ---- statistics ----
        S("numpy.average", "np.average(x, axis=1)", x=((2, 3), REAL)),
        S("numpy.average", "np.average(x, weights=y)", x=((2, 3), REAL), y=((2, 3), POS)),
        S("numpy.average", "np.average(x, axis=0, weights=y)", x=((4, 3), REAL), y=((4,), POS)),
        S("numpy.average", "np.average(x, 0, y)", x=((4, 3), REAL), y=((4,), POS)),  # NumPy's positions
        S("numpy.average", "np.average(x, axis=1, weights=y, keepdims=True)", x=((2, 3), REAL), y=((2, 3), POS)),
        S("numpy.cov", "np.cov(x)", x=((3, 5), REAL)),
        S("numpy.cov", "np.cov(x, rowvar=False, bias=True)", x=((5, 2), REAL)),
        S("numpy.cov", "np.cov(x, ddof=0)", x=((6,), REAL)),
        S("numpy.cov", "np.cov(x)", x=((1, 4), REAL)),
        S("numpy.corrcoef", "np.corrcoef(x)", x=((3, 5), REAL)),
        S("numpy.corrcoef", "np.corrcoef(x, rowvar=False)", x=((6, 2), REAL)),
        # of a join whose number of axes lowering does not track (NumPy's rows, np.atleast_2d), of two arrays
        S("numpy.cov", "np.cov(np.stack([x, x * y]), ddof=0)", x=((5,), REAL), y=((5,), REAL)),
        S("numpy.cov", "np.cov(x, y)", x=((2, 5), REAL), y=((5,), REAL)),
        S("numpy.corrcoef", "np.corrcoef(np.stack([x, np.sin(y)]))", x=((6,), REAL), y=((6,), REAL)),
        S("numpy.corrcoef", "np.corrcoef(x, y=y)", x=((6,), REAL), y=((6,), REAL)),
        # ---- complex functions of real values, conversions ----
        S("numpy.conjugate", "np.conjugate(x) * np.conj(x)", x=((3,), REAL),
          sym=Sym("np.sum(np.conjugate(x * y) * y)", "V, W", EITHER)),
        S("numpy.conjugate", "x.conj() * y", x=((3,), REAL), y=((2, 3), REAL)),
        S("numpy.imag", "np.imag(x) + x * x.imag + x.real", x=((3,), REAL),
          sym=Sym("np.sum(x * y) + np.sum(np.imag(x))", "V, W", EITHER)),
        S("numpy.angle", "np.angle(x) * x + np.angle(x, deg=True)", x=((4,), NONZERO)),
        S("srcdiff.rules.runtime.real_part", "real_part(x * y, y)", x=((3,), REAL), y=((3,), REAL)),
        S("numpy.real_if_close", "np.real_if_close(x) ** 2", x=((3,), REAL)),
        S("numpy.nan_to_num", "np.nan_to_num(np.log(x)) * x", x=((4,), POS)),
        S("numpy.nan_to_num", "np.nan_to_num(x / y) + y", x=((3,), REAL), y=((3,), NONZERO)),
        S("numpy.float64", "np.float64(x) * y", x=(None, REAL), y=((3,), REAL)),
        S("numpy.float64", "np.float64(x) ** 2", x=((3,), REAL)),
        # float32 rounds: central differences of its operand would measure the rounding, so
        # here it converts a value without gradient (test_calculus_reach.py checks its gradient)
        S("numpy.float32", "np.float64(np.float32(np.floor(y))) * x", x=((3,), REAL), y=((3,), sampler(0.2, 0.8))),
        S("ndarray.item", "np.sin(x).item() * y", x=((1, 1), REAL), y=((3,), REAL)),
        S("ndarray.tolist", "np.sum(x * x).tolist() * y", x=((3,), REAL), y=((2,), REAL)),
        S("math.pow", "math.pow(x, y)", x=(None, POS), y=(None, REAL), sym=Sym("math.pow(x, y)", "0.7, 1.3", EITHER)),
        S("math.pow", "math.pow(x, 3.0)", x=(None, REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, 3)", x=((4,), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, ord=-np.inf, axis=1)", x=((2, 3), REAL)),
        S("numpy.linalg.norm", "np.linalg.norm(x, 0.5)", x=((3,), NONZERO)),
        S("numpy.linalg.norm", "np.linalg.norm(x, 0) * x", x=((3,), REAL)),
        # ---- SciPy ----
        S("scipy.special.gammasgn", "sc.gammasgn(x) * x", x=((4,), sampler(-2.7, -2.2))),
        *[S(f"scipy.stats.poisson.{m}", f"stats.poisson.{m}(np.array([0.0, 1.0, 3.0, 6.0]), x)", x=((4,), POS))
          for m in ("cdf", "sf", "logcdf", "logsf")],
        S("scipy.stats.poisson.cdf", "stats.poisson.cdf(np.array([[2.0], [-1.0]]), x, loc=0.5)", x=((3,), POS)),
        S("scipy.stats.dirichlet.logpdf", "stats.dirichlet.logpdf(x / np.sum(x, axis=0), np.array([1.5, 2.0, 3.0]))",
          x=((3, 4), POS)),
    ]


def calc_calls():
    """How tests/rules/test_rule_facts.py calls each of these rules on its sample arrays x, y (2 x 2)."""
    import math

    import numpy as np

    from srcdiff.rules import calculus_helpers as ch
    from srcdiff.rules.numpy_complex_real import item, tolist
    return {
        "math.pow": lambda x, y: math.pow(abs(x[0, 0]), y[0, 0]),
        "ndarray.tolist": lambda x, y: tolist(np.sum(x)),
        "ndarray.item": lambda x, y: item(x[:1, :1]),
        "numpy.angle": lambda x, y: np.angle(x),
        "numpy.argpartition": lambda x, y: np.argpartition(x, 0),
        "numpy.average": lambda x, y: np.average(x, weights=y),
        "numpy.diff": lambda x, y: np.diff(x),
        "numpy.gradient": lambda x, y: np.gradient(x, axis=0),
        "numpy.interp": lambda x, y: np.interp(x, np.array([0.0, 1.0]), y[0]),
        "numpy.partition": lambda x, y: np.partition(x, 0),
        "numpy.take": lambda x, y: np.take(x, [0, 1]),
        "numpy.take_along_axis": lambda x, y: np.take_along_axis(x, np.array([[0, 1], [1, 0]]), axis=1),
        "srcdiff.rules.calculus_helpers.gradient_adjoint": lambda x, y: ch.gradient_adjoint(x, 1.0, 0, 1),
        "srcdiff.rules.calculus_helpers.cumprod_adjoint": lambda x, y: ch.cumprod_adjoint(y, x, 0),
        "srcdiff.rules.calculus_helpers.interp_adjoint":
            lambda x, y: ch.interp_adjoint(y[0], x[0], np.array([0.0, 1.0]), 2),
        "srcdiff.rules.calculus_helpers.interp_slope": lambda x, y: ch.interp_slope(x, np.array([0.0, 1.0]), y[0]),
        "srcdiff.rules.calculus_helpers.take_adjoint": lambda x, y: ch.take_adjoint(y, x, np.array([0, 1]), 0),
        "srcdiff.rules.calculus_helpers.take_along_axis_adjoint":
            lambda x, y: ch.take_along_axis_adjoint(y, x, np.array([[0, 1], [1, 0]]), 1),
    }
