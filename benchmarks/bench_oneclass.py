"""dualsvm.LinearOneClassSVM against LIBLINEAR 2.50's linear one-class SVM (-s 21), in one run.

Both solve min 1/2 a'Q a, 0 <= a_i <= 1, e'a = nu l (Q_ij = x_i'x_j) by the same
two-level coordinate descent (Chou et al., SDM 2020) with LIBLINEAR's stopping rule
(maximal violation below ``-e``, re-checked after shrinking) and its fixed cap of 1000
outer iterations. Timed: each fit from the same CSR matrix, its own conversion
included (LIBLINEAR: ``ll.problem`` + ``ll.train``; dualsvm: ``fit``), best of
``--repeats`` interleaved runs; dualsvm's Numba compilation is excluded (a warm-up
fit). Both objectives are 1/2 w'w of each side's returned w (LIBLINEAR prints the same).

Run from the repository root::

    python benchmarks/bench_oneclass.py              # writes benchmarks/results/oneclass.{json,md}
    python benchmarks/bench_oneclass.py --quick      # heart_scale only, one repeat, no files
"""

import argparse
import statistics

import numpy as np

import dualsvm

from common import (RESULTS_DIR, best_of, fit_liblinear, load, new_record, page, thread_pools,
                    timed_fit, write_results)

DATASETS = ("heart_scale", "a9a", "w8a", "ijcnn1")
NUS = (0.1, 0.5)
EPS = 0.01  # LIBLINEAR's default -e for -s 21
MAX_ITER = 1000  # LIBLINEAR's fixed cap of solve_oneclass_svm


def fit_ll(X, nu):
    run = fit_liblinear(np.ones(X.shape[0]), X, f"-s 21 -n {nu} -e {EPS}")
    w, minus_rho = run["model"].get_decfun()
    return {**run, "w": np.asarray(w), "rho": -minus_rho, "n_iter": run["iterations"]}


def fit_dualsvm(X, nu):
    run = timed_fit(dualsvm.LinearOneClassSVM(nu=nu, tol=EPS, max_iter=MAX_ITER), X)
    est = run["model"]
    return {**run, "w": est.coef_[0], "rho": float(est.offset_[0]), "n_iter": int(est.n_iter_)}


SOLVERS = {"dualsvm": fit_dualsvm, "liblinear": fit_ll}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    names = ["heart_scale"] if args.quick else list(DATASETS)
    repeats = 1 if args.quick else args.repeats
    record = new_record()
    rows = []
    for name in names:
        X, _ = load(name)
        fit_dualsvm(X, 0.5)  # compile (or load the cache)
        for nu in NUS:
            runs = best_of(repeats, {s: (lambda f=f: f(X, nu)) for s, f in SOLVERS.items()})
            row = {"dataset": name, "n": X.shape[0], "d": X.shape[1], "nu": nu}
            for solver, run in runs.items():
                w = run["w"]
                row[solver] = {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
                               "all_seconds": run["all_seconds"], "n_iter": run["n_iter"],
                               "objective": 0.5 * float(w @ w), "rho": run["rho"]}
            row["ratio"] = row["dualsvm"]["seconds"] / row["liblinear"]["seconds"]
            rows.append(row)
            print(f"{name} nu={nu}: dualsvm {row['dualsvm']['seconds']:.4f} s, "
                  f"LIBLINEAR {row['liblinear']['seconds']:.4f} s, ratio {row['ratio']:.2f}",
                  flush=True)
    record.update({"threads": thread_pools(),
                   "settings": {"eps": EPS, "repeats": repeats, "max_iter": MAX_ITER},
                   "rows": rows, "median_ratio": statistics.median(r["ratio"] for r in rows)})
    if not args.quick:
        write_results(RESULTS_DIR, "oneclass", record, markdown(record))


def markdown(results):
    s = results["settings"]
    lines = [
        f"Threads: {results['threads']}  ",
        f"Settings: -e {s['eps']} (LIBLINEAR's default for -s 21), at most {s['max_iter']} "
        f"outer iterations for both (LIBLINEAR's fixed cap), best of {s['repeats']} "
        "interleaved fits, each timed from the same CSR matrix, conversion included. Run "
        "under an exclusive CPU lock (no other benchmark or test at the same time).",
        "",
        "| dataset | n x d | nu | dualsvm s | LIBLINEAR s | dualsvm / LL | iterations dualsvm / LL "
        "| 1/2 w'w dualsvm | 1/2 w'w LL | rho dualsvm | rho LL |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in results["rows"]:
        d, ll = r["dualsvm"], r["liblinear"]
        lines.append(
            f"| {r['dataset']} | {r['n']} x {r['d']} | {r['nu']} | {d['seconds']:.4f} | "
            f"{ll['seconds']:.4f} | {r['ratio']:.2f} | {d['n_iter']} / {ll['n_iter']} | "
            f"{d['objective']:.10g} | {ll['objective']:.10g} | {d['rho']:.8g} | {ll['rho']:.8g} |")
    lines += ["", f"Median dualsvm / LIBLINEAR time ratio: **{results['median_ratio']:.2f}**."]
    return page("dualsvm.LinearOneClassSVM vs LIBLINEAR -s 21", results, lines)


if __name__ == "__main__":
    main()
