"""
Training on data larger than the memory budget
==============================================

The breast-cancer data is written as svmlight text, converted into a directory of
compressed blocks (``dualsvm convert``), and trained with a memory budget of a
quarter of its size by block minimization, selective block minimization and dual
cached loops. Each pass reads the disk once and certifies a model; training stops at
a relative duality gap of 1e-3, the same rule in-memory training uses.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from sklearn.datasets import dump_svmlight_file, load_breast_cancer
from sklearn.preprocessing import StandardScaler

from dualsvm import LinearSVC
from dualsvm.outofcore import DiskDataset, fit
from dualsvm.outofcore import convert
from dualsvm.plotting import plot_convergence

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
folder = Path(tempfile.mkdtemp())
dump_svmlight_file(X, 2 * y - 1, str(folder / "cancer.svm"), zero_based=False)

size_mb = X.nbytes / 2**20
convert(str(folder / "cancer.svm"), str(folder / "blocks"), block_mb=size_mb / 64)
dataset = DiskDataset(str(folder / "blocks"))
print(f"{dataset.n_samples} rows in {len(dataset.blocks)} blocks; budget {size_mb / 4:.3f} MB")

fits = {method: fit(dataset, method=method, memory=size_mb / 4, C=1.0, loss="hinge",
                    gap_tol=1e-3, tol=1e-6, random_state=0)
        for method in ("bm", "sbm", "dcl")}
in_memory = LinearSVC(C=1.0, loss="hinge", tol=1e-6, max_iter=5000, random_state=0).fit(X, 2 * y - 1)
for method, result in fits.items():
    model = LinearSVC.from_fit(result)
    print(f"{method}: {model.n_iter_} passes, status {model.status_[0]!r}, gap {model.gap_[0]:.1e}, primal "
          f"{model.primal_[0]:.4f} (in memory: {in_memory.primal_[0]:.4f})")

ax = plot_convergence([LinearSVC.from_fit(r) for r in fits.values()], labels=list(fits),
                      x="epoch", y="gap")
ax.set_xlabel("passes over the disk")
plt.show()
