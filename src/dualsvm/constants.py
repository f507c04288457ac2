"""Names and numbers shared across layers: losses, bias modes, kernel codes, statuses.

Plain Python values only (compiled code reads the integers), so every layer may
import this module.
"""

#: The package version (``dualsvm.__version__``; model files record it).
VERSION = "0.1.0"

#: The two losses of every problem: L1-loss (LIBLINEAR ``-s 3``) and L2-loss (``-s 1``).
LOSSES = ("hinge", "squared_hinge")
#: The two losses of support vector regression: L1-loss (LIBLINEAR ``-s 13``) and
#: L2-loss (``-s 12``), scikit-learn's names.
REGRESSION_LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive")
#: The L1 losses (D_ii = 0, U_i = C_i in the dual); the others are L2 losses.
L1_LOSSES = ("hinge", "epsilon_insensitive")
#: How the bias is fitted (see :mod:`dualsvm.problems`).
BIAS_MODES = ("none", "augmented", "exact")

#: LIBLINEAR's ``-s`` numbers (its ``solver_type``) of LinearSVC's problems: the L2
#: penalty with the squared hinge in the dual and in the primal, the hinge in the dual,
#: Crammer and Singer's multi-class SVM, the L1 penalty with the squared hinge.
L2R_L2LOSS_SVC_DUAL, L2R_L2LOSS_SVC, L2R_L1LOSS_SVC_DUAL, MCSVM_CS, L1R_L2LOSS_SVC = 1, 2, 3, 4, 5

#: Kernel codes across the Python/Numba boundary: LIBSVM's ``-t`` numbers.
LINEAR, POLY, RBF, SIGMOID, PRECOMPUTED = 0, 1, 2, 3, 4
KERNELS = {"linear": LINEAR, "poly": POLY, "rbf": RBF, "sigmoid": SIGMOID,
           "precomputed": PRECOMPUTED}

#: The kernel models (LIBSVM's ``-s`` numbers): C-SVC, nu-SVC, one-class, epsilon-SVR, nu-SVR.
SVM_TYPES = {"c_svc": 0, "nu_svc": 1, "one_class": 2, "epsilon_svr": 3, "nu_svr": 4}
#: Those that classify (one-vs-one over classes); the others fit one model.
CLASSIFIER_TYPES = ("c_svc", "nu_svc")

#: LIBSVM's curvature floor for a non-positive second derivative (non-PSD kernels,
#: duplicate rows): one value for every kernel solver.
TAU = 1e-12

#: Why a binary problem stopped, from the best outcome to the worst: the solver's
#: own rule, the duality gap, the callback, then the limits and Ctrl-C.
STATUSES = ("converged", "gap", "callback", "max_iter", "time_limit", "interrupted")
#: Statuses that mean the model is as good as asked for.
FINISHED = STATUSES[:2]
#: Statuses that stop training before convergence without anyone asking to.
EARLY_STOPS = STATUSES[3:]

#: The largest feature index of a data file (1-based): scikit-learn's reader keeps
#: indices in a C int, and the on-disk blocks in int32.
MAX_INDEX = 2**31 - 1

#: The command line's defaults where LIBLINEAR's and LIBSVM's tools differ from the
#: estimators': LIBLINEAR's ``-e``, LIBSVM's ``-e`` and ``-m`` (MB).
LIBLINEAR_TOL = 0.1
#: LIBLINEAR's default -e for its one-class SVM (-s 21).
LIBLINEAR_ONE_CLASS_TOL = 0.01
LIBSVM_TOL = 1e-3
LIBSVM_CACHE_MB = 100.0
