"""
Support vector regression
=========================

:class:`dualsvm.LinearSVR` fits a line with an epsilon-insensitive tube: rows inside
the tube (shaded) cost nothing, rows outside cost their distance to it (L1 loss) or
its square (L2 loss). The dual variables :math:`\\beta_i` are zero inside the tube,
so only the rows on or outside it shape the model. :class:`dualsvm.SVR` (LIBSVM's
epsilon-SVR) does the same with a kernel, here RBF, for a curve.
"""

import matplotlib.pyplot as plt
import numpy as np

from dualsvm import SVR, LinearSVR

rng = np.random.default_rng(0)
X = np.sort(rng.uniform(0, 5, 80))[:, None]
y = 0.8 * X[:, 0] + 0.5 + rng.normal(0, 0.3, 80)
y[::13] += 2.5  # a few outliers

grid = np.linspace(0, 5, 200)[:, None]
figure, axes = plt.subplots(1, 3, figsize=(15, 4), layout="constrained", sharey=True)
for ax, loss in zip(axes, ("epsilon_insensitive", "squared_epsilon_insensitive")):
    model = LinearSVR(C=1.0, epsilon=0.3, loss=loss, tol=1e-8, max_iter=10_000,
                      random_state=0).fit(X, y)
    line = model.predict(grid)
    ax.fill_between(grid[:, 0], line - 0.3, line + 0.3, alpha=0.2, label="tube")
    ax.plot(grid[:, 0], line, "k-", label="model")
    outside = np.abs(model.alpha_) > 1e-12
    ax.scatter(X[~outside, 0], y[~outside], s=12, label="beta = 0")
    ax.scatter(X[outside, 0], y[outside], s=30, marker="s", label="beta != 0")
    ax.set_title(f"{loss}: slope {model.coef_[0]:.2f}, gap {model.gap_[0]:.0e}")
    ax.legend(loc="upper left")
curve = np.sin(X[:, 0]) + rng.normal(0, 0.15, 80)
model = SVR(kernel="rbf", gamma=1.0, C=10.0, epsilon=0.2).fit(X, curve)
line = model.predict(grid)
ax = axes[2]
ax.fill_between(grid[:, 0], line - 0.2, line + 0.2, alpha=0.2, label="tube")
ax.plot(grid[:, 0], line, "k-", label="SVR, RBF kernel")
ax.scatter(X[:, 0], curve, s=12, label="rows")
ax.scatter(X[model.support_, 0], curve[model.support_], s=40, facecolors="none",
           edgecolors="k", label="support vectors")
ax.set_title(f"SVR: {len(model.support_)} support vectors, gap {model.gap_[0]:.0e}")
ax.legend(loc="upper left")
plt.show()
