"""The peers, called the same way from every test: LIBLINEAR 2.50 and LIBSVM 3.37."""

import numpy as np
import scipy.sparse as sp

from dualsvm.problem import DualProblem


def liblinear_weights(X, y, *, loss, C=1.0, eps=0.1, bias=-1.0, weights=None):
    """Train LIBLINEAR (-s 1 or -s 3) on binary data; return w for classes[1] positive."""
    from liblinear import liblinearutil as ll

    solver = {"squared_hinge": 1, "hinge": 3}[loss]
    options = f"-s {solver} -c {C} -e {eps} -B {bias} -q"
    for label, weight in (weights or {}).items():
        options += f" -w{label:g} {weight}"
    model = ll.train(ll.problem(y, sp.csr_matrix(X)), ll.parameter(options))
    n = model.get_nr_feature() + (bias > 0)
    w = np.array([model.w[k] for k in range(n)])
    positive = np.unique(y)[1]
    return w if model.get_labels()[0] == positive else -w


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


def primal(X, y, w, *, loss, C=1.0, bias="none", intercept=0.0, cost=None):
    """P(w) of the binary problem (classes[1] positive), the one formula for all."""
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    cost = np.full(len(y), C) if cost is None else cost
    problem = DualProblem(sp.csr_matrix(X), y_pm, cost, loss, bias, 1.0)
    return problem.primal(w, intercept)


def libsvm_kernel(X, y_pm, kernel, *, C=1.0, eps=1e-3, shrinking=True, cache_size=100):
    """LIBSVM C-SVC with a dualsvm Kernel on labels in {-1, +1}: (alpha, b, model).

    alpha is in the row order of X with y_pm's signs, b the bias (-rho) of the
    decision sum_j y_j alpha_j K(x_j, x) + b.
    """
    from libsvm import svmutil

    # float(): NumPy 2's repr of np.float64 is "np.float64(...)", which LIBSVM cannot parse
    options = (f"-t {kernel.code} -g {float(kernel.gamma)!r} -d {kernel.degree} "
               f"-r {float(kernel.coef0)!r} -c {float(C)!r} -e {float(eps)!r} "
               f"-h {int(shrinking)} -m {cache_size} -q")
    X = sp.csr_matrix(X) if kernel.name != "precomputed" else X
    if kernel.name == "precomputed":  # LIBSVM's format: a leading column of 1-based ids
        X = np.hstack([np.arange(1, len(X) + 1)[:, None], X])
    model = svmutil.svm_train(svmutil.svm_problem(list(y_pm), X, isKernel=kernel.name == "precomputed"),
                              svmutil.svm_parameter(options))
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    alpha = np.zeros(len(y_pm))
    support = np.array(model.get_sv_indices()) - 1
    alpha[support] = sign * np.array(model.get_sv_coef()).ravel() * y_pm[support]
    return alpha, -sign * model.rho[0], model


def libsvm_dual(problem, eps=1e-3):
    """LIBSVM's alpha and bias on a KernelDualProblem (one C for every row), and its
    dual objective by our formula: (alpha, b, dual)."""
    alpha, b, _ = libsvm_kernel(problem.X, problem.y, problem.kernel, C=float(problem.C[0]),
                                eps=eps)
    return alpha, b, problem.dual_from_gradient(alpha, problem.gradient(alpha))
