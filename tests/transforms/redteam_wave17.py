"""The red team's seventeenth wave: programs as users write them, in domains and idioms the earlier waves
did not use.  The life and chemical sciences (SIR / SEIR compartments, pharmacokinetics, Ricker, Leslie,
Michaelis-Menten by ``while t < T``, Bateman's decay chain, Hill curves, Morse / Buckingham potentials,
FitzHugh-Nagumo, Wright-Fisher) in redteam_wave17_science.py; numerical methods by hand (Thomas, Doolittle,
Cholesky and Gram-Schmidt by loops writing into their arrays, Gauss-Seidel, power iteration with a
tolerance, Halley, secant, Simpson, Gauss-Legendre, Romberg's table, Lagrange and Newton interpolation,
Clenshaw, continued fractions, Heun, Adams-Bashforth, implicit Euler by Newton) in
redteam_wave17_numerics.py; images and robots (bilinear sampling by np.floor and integer indices, Sobel,
a separable blur, TV energy, SSIM, chamfer, homographies, lens distortion, soft rasterising, planar arms,
Denavit-Hartenberg chains, damped least-squares IK, odometry, an SE(2) pose graph, a cart-pole rollout) in
redteam_wave17_vision.py; what is handed to srcdiff when it is not a plain def (bound, static and class
methods, partials, lambdas, callable instances, factory closures, decorated functions) and Python's
containers (deque, defaultdict, Counter, heapq, list.pop / insert, setdefault, map / filter, deepcopy,
chained ``a = b = np.zeros(n)``, rows written through, ``.flat`` / np.put / ``.shape =`` writes) in
redteam_wave17_callables.py; argument kinds (0-d arrays, NumPy scalars, lists of floats, tuples,
float32 beside float64), complex arithmetic in a real function, rounding functions with a derivative
almost everywhere, booleans as numbers and exact zeros of smooth functions written with kinks in
redteam_wave17_points.py; log-likelihoods written out by hand (Student-t, negative binomial, von Mises,
zero-inflated Poisson, hurdle, ordinal logistic, Dirichlet, beta regression, Tobit, censored Weibull,
generalised Poisson) and estimators differentiated through in redteam_wave17_stats.py; economics and games
(CES, logit demand, Bertrand and Cournot fixed points, value iteration, Elo, Bradley-Terry, newsvendor,
Erlang C, (s, S) inventory, a loan paid off by ``while balance > 0``, Gini, replicator dynamics, quantal
response) in redteam_wave17_econ.py; graphs, text and recommendations (PageRank to a tolerance, GCN, graph
attention, message passing by np.add.at, matrix factorisation by index arrays, BPR, factorisation
machines, skip-gram, a CRF's forward recursion, a character RNN over one-hot rows, TF-IDF, bigrams) in
redteam_wave17_graphs.py; maps R^n -> R^m for jacobian / jvp / vjp in redteam_wave17_vector.py.

`WAVE17` holds all nine: ``(name, function, make, wrt)`` as in redteam_programs.py, every name ``w17_…``.
"""

from __future__ import annotations

from .redteam_wave17_callables import CALLABLES17
from .redteam_wave17_econ import ECON17
from .redteam_wave17_graphs import GRAPHS17
from .redteam_wave17_numerics import NUMERICS17
from .redteam_wave17_points import POINTS17
from .redteam_wave17_science import SCIENCE17
from .redteam_wave17_stats import STATS17
from .redteam_wave17_vector import VECTOR17
from .redteam_wave17_vision import VISION17

WAVE17 = SCIENCE17 + NUMERICS17 + VISION17 + CALLABLES17 + POINTS17 + STATS17 + ECON17 + GRAPHS17 + VECTOR17
