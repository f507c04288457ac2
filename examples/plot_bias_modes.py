"""
The three bias modes
====================

No bias forces the boundary through the origin; the augmented feature (LIBLINEAR's
``-B``) regularises the bias with the weights, so a large offset is paid for; the
exact bias (LIBSVM's, the dual's constraint y'a = 0) is free. On data far from the
origin the difference shows in the boundary and in the objective.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_blobs

from dualsvm import LinearSVC
from dualsvm.plotting import plot_decision_boundary

X, y = make_blobs(n_samples=200, centers=[[6, 6], [8, 8]], cluster_std=0.8, random_state=1)
settings = {"no bias": dict(fit_intercept=False),
            "augmented (B = 1)": dict(intercept_mode="augmented"),
            "exact": dict(intercept_mode="exact")}
figure, axes = plt.subplots(1, 3, figsize=(12, 4), layout="constrained")
for ax, (label, options) in zip(axes, settings.items()):
    model = LinearSVC(C=1.0, loss="hinge", gap_tol=1e-4, max_iter=20_000, random_state=0,
                      **options).fit(X, y)
    plot_decision_boundary(X, y, model.coef_[0], model.intercept_[0], ax=ax,
                           title=f"{label}: P = {model.primal_[0]:.1f}, "
                                 f"accuracy {model.score(X, y):.2f}")
plt.show()
