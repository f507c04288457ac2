"""
Convergence of the solvers side by side
=======================================

The relative suboptimality (P(w) - P*) / P* after every epoch for dual coordinate
descent (random and cyclic order, with and without shrinking) and the two primal
solvers, on the breast-cancer data, with P* from a fit to a tight tolerance.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from dualsvm import LinearSVC
from dualsvm.plotting import plot_convergence

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)

settings = {
    "DCD": dict(solver="dcd"),
    "DCD, cyclic order": dict(solver="dcd", shuffle=False),
    "DCD, no shrinking": dict(solver="dcd", shrinking=False),
    "Pegasos": dict(solver="pegasos"),
    "implicit updates": dict(solver="implicit"),
}
optimum = LinearSVC(C=0.1, tol=1e-10, max_iter=10_000).fit(X, y).primal_[0]
models = [LinearSVC(C=0.1, tol=1e-10, max_iter=100, monitor=True,
                    random_state=0, **options).fit(X, y)
          for options in settings.values()]
for label, model in zip(settings, models):
    print(f"{label:20s} epochs {model.n_iter_:4d}  gap {model.gap_[0]:.1e}")

ax = plot_convergence(models, labels=list(settings), x="epoch", y="suboptimality",
                      optimum=optimum)
ax.set_title("breast cancer, squared hinge, C = 0.1")
plt.show()
