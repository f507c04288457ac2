"""
A kernel SVM on a Dask cluster
==============================

:class:`dualsvm.dask.SVC` trains LIBSVM's C-SVC with the rows on the workers: here a
LocalCluster of two workers (threads of this process, as a gallery script needs;
``processes=True`` or a real cluster's ``Client("tcp://HOST:8786")`` change nothing
else), two interleaved moons split into three row chunks. Each iteration the client
picks the working set from the workers' candidates and solves it; the workers update
their part of the gradient. The model is in-memory :class:`dualsvm.SVC`'s (the same
dual objective), and the decision values over a grid are computed lazily on the
workers, the model sent to each once.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster
from sklearn.datasets import make_moons

from dualsvm import SVC
from dualsvm.dask import SVC as DaskSVC

X, y = make_moons(n_samples=600, noise=0.2, random_state=0)
grid = np.stack(np.meshgrid(np.linspace(-1.5, 2.5, 120), np.linspace(-1, 1.5, 100)), -1)

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                  dashboard_address=None) as cluster, Client(cluster):
    model = DaskSVC(C=10.0, gamma=2.0).fit(da.from_array(X, chunks=(200, 2)), y)
    records = model.history_[0]  # one per iteration (working set)
    decision = model.decision_function(da.from_array(grid.reshape(-1, 2), chunks=(4000, 2)))
    decision = decision.compute().reshape(grid.shape[:2])  # computed on the workers
local = SVC(C=10.0, gamma=2.0).fit(X, y)
print(f"dual: cluster {model.dual_[0]:.8g}, in memory {local.dual_[0]:.8g}; gap "
      f"{model.gap_[0]:.1e} after {model.n_iter_[0]} iterations, "
      f"{np.mean([r['bytes'] for r in records]) / 1e3:.0f} KB per iteration")

figure, ax = plt.subplots(figsize=(6, 4), layout="constrained")
ax.contourf(grid[..., 0], grid[..., 1], decision, levels=20, cmap="RdBu", alpha=0.6)
ax.contour(grid[..., 0], grid[..., 1], decision, levels=[-1, 0, 1], colors="k",
           linestyles=["--", "-", "--"])
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", s=8, edgecolors="none")
ax.scatter(*model.support_vectors_.T, s=30, facecolors="none", edgecolors="k",
           linewidths=0.5, label=f"{len(model.support_)} support vectors")
ax.set_title("dualsvm.dask.SVC, RBF, on a LocalCluster of 2 workers")
ax.legend(loc="lower right")
plt.show()
