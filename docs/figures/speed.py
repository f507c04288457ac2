"""Draw docs/figures/speed.png, the README's figure, from the committed benchmark results.

Usage: ``python docs/figures/speed.py`` (matplotlib; reads ``benchmarks/results/linear.json``
and ``kernel.json``, measures nothing). Rerun it after either benchmark is rerun.

Left: linear SVMs (squared hinge, C = 1, eps 0.01, one thread) beside LIBLINEAR 2.50
and scikit-learn. Right: RBF kernel SVMs (C = 1, tol 1e-3, two threads) beside LIBSVM
3.37, ThunderSVM and any other peer the kernel benchmark recorded (each solver's entry
with a ``seconds`` field, the one-thread runs left out).
"""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
OUTPUT = Path(__file__).resolve().parent / "speed.png"

#: Legend names of the solvers the benchmarks record (others show their key).
NAMES = {"dualsvm": "dualsvm", "liblinear": "LIBLINEAR 2.50", "sklearn": "scikit-learn",
         "libsvm": "LIBSVM 3.37", "thundersvm": "ThunderSVM (CPU)", "onedal": "oneDAL",
         "sklearnex": "oneDAL (sklearnex)"}
LINEAR_DATASETS = ("a9a", "w8a", "ijcnn1", "reuters")
KERNEL_DATASETS = ("a9a", "w8a", "ijcnn1", "w7a")


def linear_seconds():
    """{solver: [seconds per data set]}: squared hinge, eps 0.01."""
    runs = json.loads((RESULTS / "linear.json").read_text())["datasets"]
    seconds = {}
    for name in LINEAR_DATASETS:
        case = next(c for c in runs[name]["cases"]
                    if c["loss"] == "squared_hinge" and c["eps"] == 0.01)
        for solver in ("dualsvm", "liblinear", "sklearn"):
            seconds.setdefault(solver, []).append(case[solver]["seconds"])
    return seconds


def kernel_seconds():
    """{solver: [seconds per data set]}: RBF, C = 1, the full sets, same threads."""
    results = json.loads((RESULTS / "kernel.json").read_text())["results"]
    cases = [next(r for r in results
                  if r["dataset"] == name and r["kernel"] == "rbf" and r["C"] == 1.0)
             for name in KERNEL_DATASETS]
    solvers = [key for key, value in cases[0].items()
               if isinstance(value, dict) and "seconds" in value and not key.endswith("_1")]
    return {solver: [case[solver]["seconds"] if solver in case else float("nan")
                     for case in cases] for solver in solvers}


def bars(axis, datasets, seconds, title):
    width = 0.8 / len(seconds)
    for k, (solver, values) in enumerate(seconds.items()):
        x = [i + (k - (len(seconds) - 1) / 2) * width for i in range(len(datasets))]
        drawn = axis.bar(x, values, width, label=NAMES.get(solver, solver))
        axis.bar_label(drawn, labels=[f"{v:.2g}" for v in values], fontsize=7, padding=1)
    axis.set_xticks(range(len(datasets)), datasets)
    axis.set_yscale("log")
    axis.set_ylabel("fit seconds (log scale)")
    axis.set_title(title, fontsize=10)
    top = max(max(values) for values in seconds.values())
    axis.set_ylim(top=top * 12)  # room for the legend above the bars
    axis.legend(fontsize=8, loc="upper center", ncol=2)


def main():
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    bars(left, LINEAR_DATASETS, linear_seconds(),
         "linear SVM, squared hinge, C = 1, eps 0.01, 1 thread")
    bars(right, KERNEL_DATASETS, kernel_seconds(),
         "RBF kernel SVM, C = 1, tol 1e-3, 2 threads")
    figure.suptitle("Fit time on a 2-core machine, best of 3 (benchmarks/results/linear.md, "
                    "kernel.md)", fontsize=10)
    figure.tight_layout()
    figure.savefig(OUTPUT, dpi=110)
    print(OUTPUT)


if __name__ == "__main__":
    main()
