"""
Imbalanced classes and class weights
====================================

With 20 times more rows of one class, the unweighted SVM pushes the boundary into the
small class. ``class_weight='balanced'`` multiplies each row's C by
n_samples / (n_classes * count of its class), which moves it back.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from dualsvm import LinearSVC
from dualsvm.plotting import plot_decision_boundary

X, y = make_blobs(n_samples=[1000, 50], centers=[[0, 0], [2, 2]], cluster_std=[1.5, 0.5],
                  random_state=0)
figure, axes = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
for ax, weight in zip(axes, (None, "balanced")):
    model = LinearSVC(C=0.1, class_weight=weight, random_state=0).fit(X, y)
    recall = np.mean(model.predict(X[y == 1]) == 1)
    plot_decision_boundary(X, y, model.coef_[0], model.intercept_[0], ax=ax,
                           title=f"class_weight={weight!r}: recall of the small class {recall:.2f}")
plt.show()
