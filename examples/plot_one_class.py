"""
One-class SVM: outlier detection
================================

:class:`dualsvm.OneClassSVM` (LIBSVM's ``-s 2``, Scholkopf et al.) learns a region
holding most of the training rows: ``nu`` bounds the share of training rows left
outside (and is at most the share of support vectors). Trained on the inliers only, it
flags new points outside the learned boundary as outliers.
"""

import matplotlib.pyplot as plt
import numpy as np

from dualsvm import OneClassSVM

rng = np.random.default_rng(0)
train = np.vstack([rng.normal([-2, -2], 0.6, (100, 2)), rng.normal([2, 2], 0.6, (100, 2))])
new_inliers = np.vstack([rng.normal([-2, -2], 0.6, (20, 2)), rng.normal([2, 2], 0.6, (20, 2))])
outliers = rng.uniform(-5, 5, (20, 2))

grid = np.meshgrid(np.linspace(-5, 5, 200), np.linspace(-5, 5, 200))
points = np.column_stack([g.ravel() for g in grid])
figure, axes = plt.subplots(1, 2, figsize=(11, 5), layout="constrained")
for ax, nu in zip(axes, (0.05, 0.3)):
    model = OneClassSVM(nu=nu, kernel="rbf", gamma=0.5).fit(train)
    values = model.decision_function(points).reshape(grid[0].shape)
    ax.contourf(*grid, values, levels=np.linspace(values.min(), 0, 7), cmap="Blues_r")
    ax.contour(*grid, values, levels=[0], colors="darkred", linewidths=2)
    ax.scatter(*train.T, s=10, c="white", edgecolors="k", label="training")
    ax.scatter(*new_inliers.T, s=20, c="blueviolet", edgecolors="k", label="new inliers")
    ax.scatter(*outliers.T, s=20, c="gold", edgecolors="k", label="new outliers")
    errors_train = np.mean(model.predict(train) == -1)
    missed = np.mean(model.predict(outliers) == 1)
    ax.set_title(f"nu = {nu}: {errors_train:.0%} of training outside, "
                 f"{missed:.0%} of outliers missed, gap {model.gap_[0]:.0e}")
    ax.legend(loc="upper left")
plt.show()
