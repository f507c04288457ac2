"""
Choosing a kernel on a 2-D set
==============================

:class:`dualsvm.SVC` with the four kernels on two interleaved half-moons: the
decision function's zero level (the boundary), its +1 and -1 levels (the margins)
and the support vectors. Each panel gives the duality gap of the model.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from dualsvm import SVC

X, y = make_moons(n_samples=200, noise=0.2, random_state=0)
grid = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 200))
points = np.column_stack([g.ravel() for g in grid])

kernels = {"linear": {}, "poly": dict(degree=3, coef0=1.0), "rbf": dict(gamma=2.0),
           "sigmoid": dict(gamma=0.5, coef0=-1.0)}
figure, axes = plt.subplots(1, 4, figsize=(14, 3.4), layout="constrained")
for ax, (kernel, options) in zip(axes, kernels.items()):
    model = SVC(kernel=kernel, C=1.0, **options).fit(X, y)
    values = model.decision_function(points).reshape(grid[0].shape)
    ax.contourf(*grid, values, levels=20, cmap="RdBu", alpha=0.5)
    ax.contour(*grid, values, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"])
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", edgecolors="k", s=15)
    sv = model.support_vectors_
    ax.scatter(sv[:, 0], sv[:, 1], facecolors="none", edgecolors="k", s=60)
    ax.set_title(f"{kernel}: accuracy {model.score(X, y):.2f}, gap {model.gap_[0]:.0e}")
plt.show()
