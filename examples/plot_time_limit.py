"""
Time limits and the certificate of an early stop
================================================

A model stopped early by ``max_iter``, ``time_limit`` or Ctrl-C is still usable, and
its duality gap says how good it is. Here the same problem is stopped after 1, 2, 5,
10, 20 and 50 epochs: the gap of each stop bounds its true distance to the optimum
(measured against a fit to a tight tolerance).
"""

import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from dualsvm import LinearSVC

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
optimum = LinearSVC(C=0.1, tol=1e-10, max_iter=10_000).fit(X, y).primal_[0]

budgets = [1, 2, 5, 10, 20, 50]
gaps, errors = [], []
for epochs in budgets:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LinearSVC(C=0.1, tol=1e-10, max_iter=epochs,
                          random_state=0).fit(X, y)
    gaps.append(model.gap_[0])
    errors.append((model.primal_[0] - optimum) / model.primal_[0])
    print(f"max_iter={epochs:3d}: status {model.status_[0]!r}, gap {gaps[-1]:.2e}, "
          f"true suboptimality {errors[-1]:.2e}")

figure, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.loglog(budgets, gaps, "o-", label="certified gap (P - D) / P")
ax.loglog(budgets, [max(e, 1e-12) for e in errors], "s--", label="true (P - P*) / P")
ax.set_xlabel("epochs allowed (max_iter)")
ax.legend()
plt.show()
