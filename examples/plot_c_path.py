"""
Choosing C along a warm-started path
====================================

:class:`dualsvm.LinearSVCCV` fits, on every training fold, a whole path of C values,
each fit starting from the dual variables of the one before (scaled to the new
bounds); the cross-validation accuracy and the fit time are drawn against C. The
warm path costs about as much as a few cold fits, so a fine grid is cheap.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import dualsvm
from dualsvm.plotting import plot_c_search

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
Cs = np.logspace(-8, 6, 29, base=2)

start = time.perf_counter()
path = dualsvm.c_path(dualsvm.LinearSVC(loss="hinge", tol=1e-3, random_state=0), X, y, Cs)
warm = time.perf_counter() - start
start = time.perf_counter()
cold = [dualsvm.LinearSVC(C=C, loss="hinge", tol=1e-3, random_state=0).fit(X, y) for C in Cs]
print(f"{len(Cs)} values of C: warm path {warm:.2f} s, cold fits {time.perf_counter() - start:.2f} s; "
      f"epochs {sum(m.n_iter_ for m in path)} against {sum(m.n_iter_ for m in cold)}")

search = dualsvm.LinearSVCCV(Cs=Cs, cv=5, loss="hinge", tol=1e-3, random_state=0).fit(X, y)
print(f"best C = {search.C_:.4g}, CV accuracy {100 * search.best_score_:.2f}%")
ax = plot_c_search(search, title="breast cancer, hinge loss, 5-fold CV")
plt.show()
