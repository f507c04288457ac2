"""
Decision boundaries moving over epochs
======================================

Dual coordinate descent and Pegasos on two standardised features of the breast-cancer
data: the boundary (solid), the margins (dashed) and the support vectors after chosen
epochs. Dual CD settles within a few epochs; Pegasos' last iterate still moves.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from dualsvm import LinearSVC
from dualsvm.plotting import decision_boundary_grid

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X[:, [0, 1]])  # mean radius, mean texture

epochs = [1, 2, 5, 20]
for solver in ("dcd", "pegasos"):
    model = LinearSVC(C=1.0, loss="hinge", solver=solver, random_state=0)
    figure = decision_boundary_grid(model, X, y, epochs, ncols=4)
    figure.suptitle(f"solver = {solver!r}")
plt.show()
