"""The red team's eighteenth wave: programs as users write them, in domains and idioms the earlier waves did not
use.  Audio and signal processing by hand (biquads, Goertzel, reverbs, compressors, LPC, DFT by matrices,
windows, mel filterbanks, wavelets, sinc interpolation, a PLL) in redteam_wave18_signal.py; optimisation inner
loops (AdaGrad, Adadelta, Lion, Adam with a state dict, lookahead, SAM, Polyak steps, golden section and
bisection to a tolerance, dogleg, Frank-Wolfe, lasso by coordinate descent and ADMM, a BFGS update) in
redteam_wave18_optim.py; finance (trinomial trees, Heston by fixed draws, SABR, Nelson-Siegel, curve
bootstrapping, short-rate bonds, GARCH, CVaR by sorting, Black-Litterman, risk parity, Margrabe, lookbacks) in
redteam_wave18_finance.py; graphics and geometry (ray casting, shading, Bezier and B-splines, signed distances,
sphere tracing, slerp, look-at, shoelace and Heron, haversine, dihedral angles, cotangent weights, the SO(3)
exponential) in redteam_wave18_geometry.py; losses and divergences (ArcFace, CosFace, pinball, Tweedie, robust
M-estimators, 1-D and sliced Wasserstein, MMD, sparsemax, Jensen-Shannon, Hellinger, Barlow Twins, VICReg,
asymmetric, Poly-1, IWAE) in redteam_wave18_losses.py; NumPy spellings (methods against functions, axis= /
keepdims= / where= / initial= / out=, ufunc methods, in-place slice and mask writes, 0-d arrays, walrus,
match, for / else, try / except, errstate, keyword-only helpers, a class-based model) in
redteam_wave18_idioms.py; library calls with their less common arguments (np.gradient with
coordinates, np.polyfit, np.roots, quantile methods, expm, cho_solve, norms with ord, logsumexp with
b=, scipy.stats with loc / scale) in redteam_wave18_library.py; smooth functions at points where their
spelling has a kink or a NaN in an untaken branch in redteam_wave18_points.py; maps R^n -> R^m for
jacobian / jvp / vjp in redteam_wave18_vector.py.

`WAVE18` holds all nine: ``(name, function, make, wrt)`` as in redteam_programs.py, every name ``w18_…``.
"""

from __future__ import annotations

from .redteam_wave18_finance import FINANCE18
from .redteam_wave18_geometry import GEOMETRY18
from .redteam_wave18_idioms import IDIOMS18
from .redteam_wave18_library import LIBRARY18
from .redteam_wave18_losses import LOSSES18
from .redteam_wave18_optim import OPTIM18
from .redteam_wave18_points import POINTS18
from .redteam_wave18_signal import SIGNAL18
from .redteam_wave18_vector import VECTOR18

WAVE18 = (SIGNAL18 + OPTIM18 + FINANCE18 + GEOMETRY18 + LOSSES18 + IDIOMS18 + LIBRARY18 + POINTS18
          + VECTOR18)
