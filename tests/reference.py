"""The peers, called the same way from every test: LIBLINEAR 2.50 and LIBSVM 3.37, and the
objectives that score both sides of a comparison with them.

The objectives here are plain NumPy and scikit-learn's pairwise kernels, written from the
textbook formulas: they import nothing from dualsvm, so a wrong formula in dualsvm's own
objectives cannot make a comparison pass. libsvm_kernel checks the dual objective against
the one LIBSVM prints.
"""

import re

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import pairwise


def _signs(y):
    """Labels as +-1, classes[1] positive."""
    return np.where(y == np.unique(y)[1], 1.0, -1.0)


def primal(X, y, w, *, loss, C=1.0, bias="none", intercept_scaling=1.0, intercept=0.0,
           cost=None):
    """P(w, b) = w'w / 2 + sum_i C_i loss(1 - y_i (x_i'w + b)) of the binary problem,
    classes[1] positive; hinge loss max(0, t), squared hinge max(0, t)^2.

    bias="augmented": w has one more entry than X has columns, the weight of a constant
    feature intercept_scaling (LIBLINEAR's -B), and it is regularized; intercept: an
    unregularized b.
    """
    X = sp.csr_matrix(X)
    w = np.asarray(w, dtype=float)
    cost = np.full(X.shape[0], C) if cost is None else np.asarray(cost, dtype=float)
    if bias == "augmented":
        X = sp.hstack([X, np.full((X.shape[0], 1), intercept_scaling)], format="csr")
    slack = np.maximum(0.0, 1.0 - _signs(y) * (X @ w + intercept))
    losses = slack if loss == "hinge" else slack**2
    return 0.5 * w @ w + cost @ losses


def kernel_matrix(X, Z, name, **params):
    """K(X, Z) by scikit-learn's pairwise_kernels, the kernel named as in SVC with its
    gamma, coef0, degree."""
    return pairwise.pairwise_kernels(X, Z, metric=name, filter_params=True, **params)


def kernel_dual(X, y_pm, alpha, name, block=2000, **params):
    """D(alpha) = sum_i alpha_i - alpha'Q alpha / 2 with Q_ij = y_i y_j K(x_i, x_j), the dual
    of the hinge loss; in float64, by blocks of rows of the support."""
    support = np.flatnonzero(alpha)
    rows = X[support]
    signed = (y_pm * alpha)[support]
    quadratic = sum(signed[i:i + block] @ (kernel_matrix(rows[i:i + block], rows, name, **params)
                                           @ signed)
                    for i in range(0, len(support), block))
    return alpha.sum() - 0.5 * quadratic


def _numbers(kernel):
    """A dualsvm Kernel's name and parameters, for kernel_matrix."""
    return kernel.name, {"gamma": float(kernel.gamma), "coef0": float(kernel.coef0),
                         "degree": int(kernel.degree)}


def dual_objective(problem, alpha):
    """kernel_dual on a dualsvm KernelDualProblem's data (its X, y and kernel only)."""
    name, params = _numbers(problem.kernel)
    return kernel_dual(problem.X, problem.y, alpha, name, **params)


def one_vs_one_objectives(X, y, model, kernel, C, **params):
    """[(primal, dual)] of each one-vs-one problem of a fitted LIBSVM-layout model (a
    scikit-learn or dualsvm SVC: support_, n_support_, dual_coef_, intercept_), in LIBSVM's
    order of pairs, with kernel_matrix(..., kernel, **params).

    For classes a < b the problem has y = +1 on a, -1 on b (with two classes, +1 on b:
    scikit-learn flips LIBSVM's signs so that a positive decision means classes_[1]); its dual is
    sum |c| - c'Kc / 2 with c the y_i alpha_i of its support vectors, its primal
    c'Kc / 2 + C sum_i max(0, 1 - y_i f(x_i)) over the rows of a and b, f = K c + intercept.
    """
    classes = np.unique(y)
    starts = np.concatenate([[0], np.cumsum(model.n_support_)])
    dual_coef = sp.csr_matrix(model.dual_coef_).toarray()  # scikit-learn's is sparse on sparse X
    objectives = []
    for k, (a, b) in enumerate((a, b) for a in range(len(classes)) for b in range(a + 1, len(classes))):
        of_a, of_b = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
        coef = np.concatenate([dual_coef[b - 1, of_a], dual_coef[a, of_b]])
        support = X[np.concatenate([model.support_[of_a], model.support_[of_b]])]
        rows = np.flatnonzero((y == classes[a]) | (y == classes[b]))
        y_pm = np.where(y[rows] == classes[a if len(classes) > 2 else b], 1.0, -1.0)
        quadratic, decision = 0.0, np.full(len(rows), model.intercept_[k])
        if len(coef):  # a solver stopped at alpha = 0 has no support vectors
            quadratic = coef @ kernel_matrix(support, support, kernel, **params) @ coef
            decision += kernel_matrix(X[rows], support, kernel, **params) @ coef
        objectives.append((0.5 * quadratic + C * np.maximum(0.0, 1.0 - y_pm * decision).sum(),
                           np.abs(coef).sum() - 0.5 * quadratic))
    return objectives


def liblinear_model_weights(model, positive):
    """w of a binary LIBLINEAR model (the bias feature's weight last when its bias > 0),
    with the label `positive` on the positive side."""
    w = np.array([model.w[k] for k in range(model.get_nr_feature() + (model.bias > 0))])
    return w if model.get_labels()[0] == positive else -w


def liblinear_weights(X, y, *, loss, C=1.0, eps=0.1, bias=-1.0, weights=None):
    """Train LIBLINEAR (-s 1 or -s 3) on binary data; return w for classes[1] positive."""
    from liblinear import liblinearutil as ll

    solver = {"squared_hinge": 1, "hinge": 3}[loss]
    options = f"-s {solver} -c {C} -e {eps} -B {bias} -q"
    for label, weight in (weights or {}).items():
        options += f" -w{label:g} {weight}"
    model = ll.train(ll.problem(y, sp.csr_matrix(X)), ll.parameter(options))
    return liblinear_model_weights(model, np.unique(y)[1])


def libsvm_linear(X, y, *, C=1.0, eps=1e-3):
    """LIBSVM with a linear kernel (exact bias): (w, b) for classes[1] positive."""
    from libsvm import svmutil

    model = svmutil.svm_train(svmutil.svm_problem(y, sp.csr_matrix(X)),
                              svmutil.svm_parameter(f"-t 0 -c {C} -e {eps} -q"))
    support = np.array(model.get_sv_indices()) - 1
    coef = np.array(model.get_sv_coef()).ravel()
    w = np.asarray(sp.csr_matrix(X)[support].T @ coef).ravel()
    b = -model.rho[0]
    positive = np.unique(y)[1]
    sign = 1.0 if model.get_labels()[0] == positive else -1.0
    return sign * w, sign * b


def libsvm_kernel(X, y_pm, kernel, *, C=1.0, eps=1e-3, shrinking=True, cache_size=100):
    """LIBSVM C-SVC with a dualsvm Kernel on labels in {-1, +1}: (alpha, b, dual).

    alpha is in the row order of X with y_pm's signs, b the bias (-rho) of the decision
    sum_j y_j alpha_j K(x_j, x) + b, and dual = kernel_dual of LIBSVM's alpha, checked
    against the objective LIBSVM prints (obj = -dual).
    """
    from libsvm import svmutil
    from libsvm.svm import PRINT_STRING_FUN

    # float(): NumPy 2's repr of np.float64 is "np.float64(...)", which LIBSVM cannot parse
    options = (f"-t {kernel.code} -g {float(kernel.gamma)!r} -d {kernel.degree} "
               f"-r {float(kernel.coef0)!r} -c {float(C)!r} -e {float(eps)!r} "
               f"-h {int(shrinking)} -m {cache_size}")
    parameter = svmutil.svm_parameter(options)
    printed = []
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    model = svmutil.svm_train(svmutil.svm_problem(list(y_pm), sp.csr_matrix(X)), parameter)
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    alpha = np.zeros(len(y_pm))
    support = np.array(model.get_sv_indices()) - 1
    alpha[support] = sign * np.array(model.get_sv_coef()).ravel() * y_pm[support]
    name, params = _numbers(kernel)
    dual = kernel_dual(X, y_pm, alpha, name, **params)
    objective = float(re.search(r"obj = (\S+),", "".join(printed)).group(1))
    # LIBSVM's figure comes from its gradient, kept with float32 kernel columns
    assert abs(dual + objective) <= 1e-5 * max(1.0, abs(objective)), (dual, objective)
    return alpha, -sign * model.rho[0], dual


def libsvm_dual(problem, eps=1e-3):
    """libsvm_kernel on a dualsvm KernelDualProblem's data (one C for every row)."""
    return libsvm_kernel(problem.X, problem.y, problem.kernel, C=float(problem.C[0]), eps=eps)


#: LIBSVM's -s of each kind of dualsvm kernel model.
SVM_TYPE = {"c_svc": 0, "nu_svc": 1, "one_class": 2, "epsilon_svr": 3, "nu_svr": 4}


def libsvm_family(X, target, kind, kernel, *, C=1.0, nu=0.5, epsilon=0.1, eps=1e-3,
                  shrinking=True, cache_size=100):
    """LIBSVM (-s 1..4) with a dualsvm Kernel: (model, [obj printed per problem], text).

    Labels (nu_svc) are passed as given; targets for regression; ignored for one-class.
    """
    from libsvm import svmutil
    from libsvm.svm import PRINT_STRING_FUN

    options = (f"-s {SVM_TYPE[kind]} -t {kernel.code} -g {float(kernel.gamma)!r} "
               f"-d {kernel.degree} -r {float(kernel.coef0)!r} -c {float(C)!r} "
               f"-n {float(nu)!r} -p {float(epsilon)!r} -e {float(eps)!r} "
               f"-h {int(shrinking)} -m {cache_size}")
    parameter = svmutil.svm_parameter(options)
    printed = []
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    problem = svmutil.svm_problem(list(target), sp.csr_matrix(X))
    model = svmutil.svm_train(problem, parameter)
    # the model's support vectors point into the problem's nodes: keep them alive as long
    # as the model (svm_predict read freed memory, a bus error, without this)
    model.kept_problem = problem
    text = "".join(printed)
    return model, [float(v) for v in re.findall(r"obj = (\S+),", text)], text


def libsvm_single_model(model, n):
    """(coefficient of every training row, intercept -rho) of a one-class or regression
    LIBSVM model."""
    coef = np.zeros(n)
    coef[np.array(model.get_sv_indices()) - 1] = np.array(model.get_sv_coef()).ravel()
    return coef, -model.rho[0]


def family_dual(kind, X, coef, kernel_name, *, target=None, epsilon=0.1, nu=0.5, **params):
    """The dual objective (maximisation form) of a one-class or regression model from
    its coefficient of every row, in LIBSVM's formulation, textbook formulas only:

    epsilon-SVR  -(beta'K beta / 2 + eps sum |beta| - z'beta)   (a a* = 0 at the optimum)
    nu-SVR       -(beta'K beta / 2 - z'beta)
    one-class    -a'K a / 2
    """
    support = np.flatnonzero(coef)
    c = coef[support]
    quadratic = c @ kernel_matrix(X[support], X[support], kernel_name, **params) @ c
    if kind == "one_class":
        return -0.5 * quadratic
    linear = float(np.asarray(target)[support] @ c)
    if kind == "epsilon_svr":
        return -(0.5 * quadratic + epsilon * np.abs(c).sum() - linear)
    return -(0.5 * quadratic - linear)


def nu_svc_dual(X, coef_by_row, nu, kernel_name, **params):
    """The dual of nu-SVC's unscaled problem, -a'Q a / 2, from a model's scaled coefficients
    c_i = y_i a_i / rho of one binary problem (by row, over the problem's rows): e'a = nu n
    gives rho = nu n / sum |c|, so -a'Q a / 2 = -rho^2 c'K c / 2."""
    rho = nu * len(coef_by_row) / np.abs(coef_by_row).sum()
    support = np.flatnonzero(coef_by_row)
    c = coef_by_row[support]
    return -0.5 * rho**2 * (c @ kernel_matrix(X[support], X[support], kernel_name, **params) @ c)
def svr_primal(X, y, w, *, loss, C=1.0, epsilon=0.0, bias="none", intercept_scaling=1.0,
               cost=None):
    """P(w) = w'w / 2 + sum_i C_i loss(y_i - x_i'w) of linear SVR: epsilon-insensitive loss
    max(0, |r| - epsilon) ('epsilon_insensitive') or its square. bias="augmented": w has one
    more entry, the weight of a constant feature intercept_scaling (regularized)."""
    X = sp.csr_matrix(X)
    w = np.asarray(w, dtype=float)
    cost = np.full(X.shape[0], C) if cost is None else np.asarray(cost, dtype=float)
    if bias == "augmented":
        X = sp.hstack([X, np.full((X.shape[0], 1), intercept_scaling)], format="csr")
    slack = np.maximum(0.0, np.abs(np.asarray(y, dtype=float) - X @ w) - epsilon)
    losses = slack if loss == "epsilon_insensitive" else slack**2
    return 0.5 * w @ w + cost @ losses


def liblinear_svr(X, y, *, loss, C=1.0, epsilon=0.1, eps=0.1, bias=-1.0):
    """LIBLINEAR -s 13 (epsilon_insensitive) or -s 12 (squared): (w, iterations, objective).

    w has the bias feature's weight last when bias > 0; objective is the dual objective
    LIBLINEAR prints (its minimisation form, so -D); iterations what it prints (300 is
    its limit for these solvers).
    """
    from liblinear import liblinearutil as ll
    from liblinear.liblinear import PRINT_STRING_FUN

    solver = {"squared_epsilon_insensitive": 12, "epsilon_insensitive": 13}[loss]
    parameter = ll.parameter(f"-s {solver} -c {float(C)!r} -p {float(epsilon)!r} "
                             f"-e {float(eps)!r} -B {float(bias)!r}")
    printed = []
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    model = ll.train(ll.problem(np.asarray(y, dtype=float), sp.csr_matrix(X)), parameter)
    text = "".join(printed)
    w = np.array([model.w[k] for k in range(model.get_nr_feature() + (model.bias > 0))])
    iterations = int(re.search(r"#iter = (\d+)", text).group(1))
    objective = float(re.search(r"Objective value = (\S+)", text).group(1))
    return w, iterations, objective


def platt_sigmoid(dec, labels):
    """(A, B) minimising Platt's regularised-target log-likelihood, by scipy's trust-region
    Newton method with exact derivatives to a 1e-13 gradient: the optimum that LIBSVM's
    sigmoid_train approximates (an independent solver of the same problem)."""
    from scipy.optimize import minimize

    dec = np.asarray(dec, dtype=float)
    positive = np.asarray(labels) > 0
    n1, n0 = positive.sum(), (~positive).sum()
    t = np.where(positive, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))
    F = np.column_stack([dec, np.ones_like(dec)])

    def f(v):
        z = F @ v
        return float(np.sum(t * z + np.logaddexp(0.0, -z)))

    def grad(v):
        p = 1.0 / (1.0 + np.exp(F @ v))  # = 1 - sigmoid(-z)
        return F.T @ (t - p)

    def hess(v):
        z = F @ v
        d = np.exp(-np.logaddexp(0.0, z) - np.logaddexp(0.0, -z))  # p (1 - p)
        return F.T @ (F * d[:, None])

    start = np.array([0.0, np.log((n0 + 1.0) / (n1 + 1.0))])
    result = minimize(f, start, jac=grad, hess=hess, method="trust-exact",
                      options={"gtol": 1e-13})
    return tuple(result.x)


def libsvm_probability(X, y, options):
    """LIBSVM -b 1 on binary data with the C library's rand() reset (srand(1)): returns
    (labels, perm, probA, probB), perm being the permutation LIBSVM's
    svm_binary_svc_probability draws for its five folds over the rows grouped by class
    (labels[0]'s rows first, each class in file order; labels[0] is the positive class:
    the first label of the file, except that LIBSVM puts +1 first for labels -1/+1)."""
    import ctypes

    from libsvm import svmutil

    libc = ctypes.CDLL(None)
    n = len(y)
    libc.srand(1)
    perm = list(range(n))
    for i in range(n):
        j = i + libc.rand() % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    libc.srand(1)
    model = svmutil.svm_train(svmutil.svm_problem(list(map(float, y)), sp.csr_matrix(X)),
                              svmutil.svm_parameter(options + " -b 1 -q"))
    return model.get_labels(), np.array(perm), model.probA[0], model.probB[0]


def crammer_singer_primal(X, y, W, *, cost, bias=-1.0):
    """P(W) = 1/2 sum_m ||w_m||^2 + sum_i C_i max_m (e_i^m + w_m'x_i - w_{y_i}'x_i) of
    Crammer and Singer's problem; W (n_features [+ 1], n_classes) with the columns in
    np.unique(y)'s order, the last row the weights of a constant feature of value ``bias``
    when bias > 0 (regularised, as LIBLINEAR's -B)."""
    X = sp.csr_matrix(X)
    if bias > 0:
        X = sp.hstack([X, np.full((X.shape[0], 1), bias)], format="csr")
    labels = np.searchsorted(np.unique(y), y)
    scores = np.asarray(X @ W)
    rows = np.arange(len(y))
    margins = 1.0 + scores - scores[rows, labels][:, None]
    margins[rows, labels] = 0.0
    return 0.5 * float(np.sum(W * W)) + float(np.asarray(cost) @ margins.max(axis=1))


def l1_primal(X, y, w, *, cost, bias=-1.0):
    """P(w) = ||w||_1 + sum_i C_i max(0, 1 - y_i x_i'w)^2 (LIBLINEAR's -s 5), classes[1]
    positive; with bias > 0 the last entry of w weighs a constant feature of that value
    (penalised too)."""
    X = sp.csr_matrix(X)
    if bias > 0:
        X = sp.hstack([X, np.full((X.shape[0], 1), bias)], format="csr")
    slack = np.maximum(0.0, 1.0 - _signs(y) * (X @ w))
    return float(np.abs(w).sum()) + float(np.asarray(cost) @ slack**2)


def liblinear_train(X, y, options):
    """LIBLINEAR 2.50 trained with ``options`` (a string of its train flags): (model,
    printed text, W) with W (n_weights, nr_w) in np.unique(y)'s class order (its
    columns as LIBLINEAR stores them: one for two classes unless -s 4)."""
    from liblinear import liblinearutil as ll
    from liblinear.liblinear import PRINT_STRING_FUN

    printed = []
    parameter = ll.parameter(options)
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    model = ll.train(ll.problem(y, sp.csr_matrix(X)), parameter)
    n_weights = model.get_nr_feature() + (model.bias > 0)
    k = model.get_nr_class()
    nr_w = 1 if k == 2 and model.param.solver_type != 4 else k
    W = np.array([[model.w[j * nr_w + m] for m in range(nr_w)] for j in range(n_weights)])
    if nr_w > 1:
        W = W[:, np.argsort(model.get_labels())]
    return model, "".join(printed), W
