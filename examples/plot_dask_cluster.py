"""
Training on a Dask cluster
==========================

:class:`dualsvm.dask.LinearSVC` trains by CoCoA+ on a cluster: here a LocalCluster of
two workers, the rows of a dask array split into partitions that stay on the
workers. Every round certifies the model (primal, dual and gap summed across the
workers); the curves show the gap per round for 1, 2 and 4 partitions.
"""

import dask.array as da
import matplotlib.pyplot as plt
from distributed import Client, LocalCluster
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from dualsvm.dask import LinearSVC

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)

figure, ax = plt.subplots(figsize=(6, 4), layout="constrained")
with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                  dashboard_address=None) as cluster, Client(cluster):
    for partitions in (1, 2, 4):
        chunks = (-(-len(y) // partitions), X.shape[1])
        model = LinearSVC(C=1.0, loss="hinge", gap_tol=1e-3,  # local_epochs='auto'
                          random_state=0).fit(da.from_array(X, chunks=chunks), y)
        rounds = [record["epoch"] for record in model.history_]  # one record per round
        gaps = [record["gap"] for record in model.history_]
        ax.semilogy(rounds, gaps, "o-", label=f"K = {partitions}")
        print(f"K = {partitions}: {model.n_rounds_} rounds, gap {model.gap_[0]:.1e}, "
              f"accuracy {model.score(X, y):.3f}")
ax.set_xlabel("round")
ax.set_ylabel("relative duality gap")
ax.legend()
plt.show()
