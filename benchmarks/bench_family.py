"""The rest of LIBSVM's kernel family: dualsvm's SMO beside LIBSVM 3.37, in one run.

SVR (epsilon-SVR, -s 3), NuSVR (-s 4), NuSVC (-s 1) and OneClassSVM (-s 2), and
probabilities (``SVC(probability=True)`` beside C-SVC ``-b 1``: Platt's sigmoid on 5-fold
decision values, so six trainings each), RBF kernel,
gamma = 1 / n_features, the same stopping rule (LIBSVM's -e = 1e-3, which dualsvm's tol
is), the same 100 MB kernel cache, shrinking on, on housing_scale (506 rows, the
regression set), the first 5000 rows of a9a and the first 10000 of ijcnn1 (their labels
+-1 as regression targets for SVR and NuSVR; probabilities on heart_scale, a9a and
ijcnn1, C = 1). Per case: fit seconds, best of
``--repeats`` fits per solver interleaved, each from the same CSR matrix with its own
conversion (LIBSVM: ``svm_problem`` + ``svm_train``); the objective LIBSVM prints and
dualsvm's (the same quantity: the minimised dual f(a) of LIBSVM's formulation; for
nu-SVC LIBSVM prints f(a) / rho^2 and dualsvm's is scaled alike here: rho is known only
to the stopping rule's precision, so at -e 1e-3 these differ by up to 2e-2 although the
unscaled duals agree), SMO steps, nSV.

    python benchmarks/bench_family.py                    # all 14 cases, writes results/family.*
    python benchmarks/bench_family.py --kinds SVR --datasets housing --repeats 1   # prints only
"""

import argparse
import statistics
import sys

import numpy as np
import scipy.sparse as sp

import dualsvm

from common import (RESULTS_DIR, best_of, cores_busy, fit_libsvm, load, new_record, page,
                    thread_pools, timed_fit, write_results)

#: name -> (public set, its first rows: None for all)
DATASETS = {"housing": ("housing_scale", None), "heart": ("heart_scale", None),
            "a9a": ("a9a", 5000), "ijcnn1": ("ijcnn1", 10000)}
#: estimator, LIBSVM's -s, parameters (estimator names; LIBSVM flags below), per data set
#: (nu-SVC's nu must not exceed twice the smaller class's share: a9a 24%, ijcnn1 10%)
KINDS = {
    "SVR": (dualsvm.SVR, 3, lambda name: {"C": 1.0, "epsilon": 0.1}),
    "NuSVR": (dualsvm.NuSVR, 4, lambda name: {"C": 1.0, "nu": 0.5}),
    "NuSVC": (dualsvm.NuSVC, 1, lambda name: {"nu": 0.1 if name == "ijcnn1" else 0.3}),
    "OneClassSVM": (dualsvm.OneClassSVM, 2, lambda name: {"nu": 0.1}),
    "SVC-proba": (dualsvm.SVC, 0, lambda name: {"C": 1.0, "probability": True}),
}
#: the data sets of each kind (housing: a regression set; heart: a small classification one)
KIND_DATASETS = {kind: ("housing", "a9a", "ijcnn1") for kind in KINDS}
KIND_DATASETS["NuSVC"] = ("a9a", "ijcnn1")
KIND_DATASETS["SVC-proba"] = ("heart", "a9a", "ijcnn1")
FLAGS = {"C": "-c", "epsilon": "-p", "nu": "-n", "probability": "-b"}
CACHE_MB = 100
TOL = 1e-3


def load_rows(name):
    data, rows = DATASETS[name]
    X, y = load(data)
    return X[:rows], y[:rows]


def fit_dualsvm(cls, params, X, y):
    if params.get("probability"):
        params = {**params, "random_state": 0}  # the folds' permutation
    run = timed_fit(cls(gamma=1.0 / X.shape[1], tol=TOL, cache_size=CACHE_MB, **params), X, y)
    model = run["model"]
    last = model.history_[0][-1]
    return {**run, "iterations": int(np.sum(model.n_iter_)),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "status": model.status_[0], "gap": float(model.gap_[0]),
            "n_support": int(len(model.support_))}


def fit_libsvm_family(svm_type, params, X, y):
    options = (f"-s {svm_type} -t 2 -g {1.0 / X.shape[1]!r} -e {TOL} -m {CACHE_MB} "
               + " ".join(f"{FLAGS[k]} {int(v) if isinstance(v, bool) else v!r}"
                          for k, v in params.items()))
    run = fit_libsvm(y, X, options, convert_in_clock=True)
    del run["model"]
    # the last objective: the final model's (with -b 1 the folds' come first)
    return {**run, "iterations": sum(run["iterations"]), "obj": run.pop("objectives")[-1]}


def our_objective(kind, model, params, n):
    """dualsvm's minimised dual f(a) = -dual_, as LIBSVM prints it (nu-SVC: / rho^2,
    rho = nu n / sum |coef| of its one binary problem)."""
    f = -float(model.dual_[0])
    if kind == "NuSVC":
        rho = params["nu"] * n / np.abs(model.dual_coef_).sum()
        f /= rho**2
    return f


def warm_up():
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((200, 5)))
    y = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    for kind, (cls, svm_type, params) in KINDS.items():
        fit_dualsvm(cls, params("heart"), X, y)
        fit_libsvm_family(svm_type, params("heart"), X, y)


def run_case(kind, name, X, y, repeats, log):
    cls, svm_type, make = KINDS[kind]
    params = make(name)
    log(f"{kind} on {name} ({X.shape[0]} rows) {params}: {repeats} x (dualsvm, LIBSVM) ...")
    runs = best_of(repeats, {"dualsvm": lambda: fit_dualsvm(cls, params, X, y),
                             "libsvm": lambda: fit_libsvm_family(svm_type, params, X, y)}, log)
    for solver in runs:
        if "error" in runs[solver]:
            raise RuntimeError(f"{kind} {name}: {solver}: {runs[solver]['error']}")
    model = runs["dualsvm"].pop("model")
    runs["dualsvm"].pop("converged")
    ours = our_objective(kind, model, params, X.shape[0])
    case = {"kind": kind, "dataset": name, "n_samples": X.shape[0], "params": params,
            "dualsvm": {**runs["dualsvm"], "obj": ours,
                        "cores_busy": cores_busy(runs["dualsvm"])},
            "libsvm": {**runs["libsvm"], "cores_busy": cores_busy(runs["libsvm"])}}
    case["ratio"] = runs["dualsvm"]["seconds"] / runs["libsvm"]["seconds"]
    case["obj_rel_diff"] = (ours - runs["libsvm"]["obj"]) / abs(runs["libsvm"]["obj"])
    log(f"  {runs['dualsvm']['seconds']:.3f} / {runs['libsvm']['seconds']:.3f} s, ratio "
        f"{case['ratio']:.3f}, objective rel. diff {case['obj_rel_diff']:.1e}")
    return case


def markdown(results, meta):
    pools = meta["thread_pools"]
    lines = [
        "Run under `flock -x /tmp/dualsvm-cpu.lock`. "
        f"RBF kernel, gamma = 1/n_features, cache {CACHE_MB} MB, shrinking, the same stopping "
        f"rule for both (maximal violation below -e = tol = {TOL}). Fit seconds: best of "
        f"{meta['repeats']}, interleaved; each fit from the same CSR matrix with its own "
        "conversion. dualsvm's compilation excluded (warm-up). Threads: dualsvm's kernel "
        f"columns in Numba's pool ({pools['numba']} threads), BLAS "
        f"({pools.get('blas', 1)}); LIBSVM's wheel links OpenMP ({pools.get('openmp', 1)}). "
        "Objective: the minimised dual LIBSVM prints (obj; for nu-SVC f(a) / rho^2) and "
        "dualsvm's same quantity from its certificate. a9a: first 5000 rows; ijcnn1: first "
        "10000; SVR and NuSVR fit their +-1 labels as targets. SVC-proba: "
        "`SVC(probability=True, random_state=0)` beside `-s 0 -b 1` (five fold models and "
        "the final one each; the objective is the final model's, the steps LIBSVM's are "
        "summed over its six trainings, dualsvm's are the final model's).", "",
        "| model | data | n | parameters | dualsvm s | LIBSVM s | ratio | CPU/wall dualsvm; "
        "LIBSVM | obj dualsvm | obj LIBSVM | rel. diff | steps dualsvm | steps LIBSVM | "
        "nSV dualsvm / LIBSVM | gap dualsvm |",
        "|" + "---|" * 15,
    ]
    for r in results:
        d, v = r["dualsvm"], r["libsvm"]
        params = ", ".join(f"{k}={x:g}" for k, x in r["params"].items())
        lines.append(
            f"| {r['kind']} | {r['dataset']} | {r['n_samples']} | {params} | {d['seconds']:.3f} | "
            f"{v['seconds']:.3f} | {r['ratio']:.3f} | {d['cores_busy']:.2f}; "
            f"{v['cores_busy']:.2f} | {d['obj']:.8g} | {v['obj']:.8g} | "
            f"{r['obj_rel_diff']:.1e} | {d['iterations']} | {v['iterations']} | "
            f"{d['n_support']} / {v['n_support']} | {d['gap']:.1e} |")
    lines.append("")
    for kind in KINDS:
        ratios = [r["ratio"] for r in results if r["kind"] == kind]
        if ratios:
            lines.append(f"- {kind}: median ratio dualsvm/LIBSVM **{statistics.median(ratios):.3f}**"
                         f" ({len(ratios)} cases)")
    every = [r["ratio"] for r in results]
    lines.append(f"- all: median {statistics.median(every):.3f}; largest objective difference "
                 f"{max(abs(r['obj_rel_diff']) for r in results):.1e}")
    return page("The kernel family: dualsvm SMO vs LIBSVM 3.37 (SVR, NuSVR, NuSVC, "
                "OneClassSVM)", meta, lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output-dir", help="where family.md / family.json go (default "
                        "benchmarks/results/ for the full run, else print only)")
    args = parser.parse_args(argv)
    full = set(args.kinds) == set(KINDS) and set(args.datasets) == set(DATASETS)
    out_dir = args.output_dir or (RESULTS_DIR if full else None)

    def log(text):
        print(text, file=sys.stderr, flush=True)

    warm_up()
    meta = {**new_record(argv), "tol": TOL, "cache_mb": CACHE_MB, "repeats": args.repeats,
            "thread_pools": thread_pools()}
    data = {name: load_rows(name) for name in args.datasets}
    meta["results"] = [run_case(kind, name, *data[name], args.repeats, log)
                       for kind in args.kinds for name in args.datasets
                       if name in KIND_DATASETS[kind]]
    text = markdown(meta["results"], meta)
    print(text)
    if out_dir is not None:
        write_results(out_dir, "family", meta, text)


if __name__ == "__main__":
    main()
