"""Does ``SVC(solver='auto')`` pick the fastest kernel solver? Measured on a grid.

For every case of the grid (a data set, its first n rows, dense or CSR input, C,
gamma; RBF, tol 1e-3, cache 100 MB, two threads) every C-SVC solver that solves
the same problem with the exact bias ('smo', 'ws') is timed, best of ``--repeats``
fits interleaved, and 'auto' is scored by the solver it chose
(``choose_solver`` is a rule of the problem's shape and parameters, made
before training: its fit is that solver's fit, so it is not timed again; the
choice and its reason are recorded). Reported: how often auto chose the fastest,
its ratio to the fastest in every case, the largest, and the duals (every
solver's, scored by the same formula, relative to the best).

    python benchmarks/bench_auto.py --datasets a9a w8a ijcnn1 --sizes 1000 5000 20000

Writes ``results/auto.md`` and ``results/auto.json`` (``--merge``: adds to the cases
already there, so that the grid can be run in parts).
"""

import argparse
import json

import numpy as np
import scipy.sparse as sp

import dualsvm
from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem
from dualsvm.training.config import KernelTraining
from dualsvm.training.kernel import choose_solver

from common import (RESULTS_DIR, Clock, best_of, load, load_average, machine_lines, new_record,
                    thread_pools)

#: The public sets of the grid (the tuned gammas of issue 28 are 2^-5 for a9a, 2^-1
#: for w7a / w8a, 2 for ijcnn1: 4 to 150 / d)
DATASETS = ("a9a", "w8a", "ijcnn1")
SOLVERS = ("smo", "ws")
CACHE_MB = 100
TOL = 1e-3
GAMMA_FACTORS = (1, 8, 64)  # gamma = factor / n_features
CS = (1, 32, 256)


def fit(X, y, C, gamma, solver):
    model = dualsvm.SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB, solver=solver)
    with Clock() as clock:
        model.fit(X, y)
    return {**clock.timing, "model": model, "n_iter": int(model.n_iter_[0]),
            "n_support": int(len(model.support_)), "solver_used": model.solver_used_}


def dual(X, y, C, gamma, model):
    """The dual objective of a binary model's coefficients, by one formula (float64)."""
    coef = model.dual_coef_
    coef = np.ravel(coef.toarray() if sp.issparse(coef) else coef)
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(coef)
    problem = KernelDualProblem(X, y_pm, np.full(len(y), float(C)), "hinge", "exact",
                                make_kernel("rbf", gamma=gamma), CACHE_MB)
    return problem.dual_from_gradient(alpha, problem.gradient(alpha))


def run_case(name, n, layout, C, factor, X, y, repeats, log):
    d = X.shape[1]
    gamma = factor / d
    case = {"dataset": name, "n": n, "layout": layout, "C": C, "gamma": gamma,
            "gamma_factor": factor}
    runs = best_of(repeats, {s: (lambda s=s: fit(X, y, C, gamma, s)) for s in SOLVERS})
    duals = {s: dual(X, y, C, gamma, r["model"]) for s, r in runs.items() if "model" in r}
    best_dual = max(duals.values())
    case["solvers"] = {s: {"seconds": r["seconds"], "cpu_seconds": r["cpu_seconds"],
                           "all_seconds": r["all_seconds"], "n_iter": r["n_iter"],
                           "n_support": r["n_support"], "dual": duals[s],
                           "dual_rel_diff": (duals[s] - best_dual) / abs(best_dual)}
                       for s, r in runs.items() if "model" in r}
    score_choice(case)
    times = {s: v["seconds"] for s, v in case["solvers"].items()}
    log(f"{name}[:{n}] {layout} C={C} gamma={factor}/d: "
        + ", ".join(f"{s} {t:.2f}s" for s, t in times.items())
        + f"; auto -> {case['auto']} ({case['auto_ratio']:.2f} x the fastest)")
    return case


def score_choice(case):
    """Record in ``case`` the solver ``choose_solver`` picks for it, why, and that
    solver's time over the fastest's (the fits are timed once; the rule is not)."""
    params = dualsvm.SVC(C=case["C"], gamma=case["gamma"], cache_size=CACHE_MB).get_params()
    choice = choose_solver(KernelTraining.of(params), case["n"])
    times = {s: v["seconds"] for s, v in case["solvers"].items()}
    fastest = min(times, key=times.get)
    case.update(auto=choice.name, auto_reason=choice.reason, fastest=fastest,
                auto_ratio=times[choice.name] / times[fastest])


def markdown(cases, meta):
    lines = ["# Does solver='auto' pick the fastest kernel solver?", "",
             f"Command: `{meta['command']}`  ", f"Date: {meta['date']}  ",
             *machine_lines(meta["machine"]),
             f"Load average (1, 5, 15 min) at start: {meta['machine']['load_average_at_start']}"
             f", at end: {meta['load_average_at_end']}  ",
             f"Threads: {meta['threads']}  ",
             *([f"auto's choice scored by the rule at git {meta['rescored']['git']} "
                f"(`{meta['rescored']['command']}`, {meta['rescored']['date']}); the times "
                "are the runs'.  "] if "rescored" in meta else []),
             "",
             f"RBF C-SVC, tol {TOL}, cache {CACHE_MB} MB, gamma = factor / n_features; "
             f"best of {meta['repeats']} fits per solver, interleaved; seconds of "
             "`SVC.fit` (validation included). auto: the solver `choose_solver` picked "
             "(its fit is that solver's). Duals by one float64 formula, relative to the "
             "best of the case.", ""]
    hits = sum(c["auto"] == c["fastest"] for c in cases)
    ratios = np.array([c["auto_ratio"] for c in cases])
    worst = cases[int(np.argmax(ratios))] if cases else None
    if cases:
        lines += [f"auto chose the fastest in **{hits} of {len(cases)}** cases; its ratio "
                  f"to the fastest: median {np.median(ratios):.2f}, largest "
                  f"**{ratios.max():.2f}** ({worst['dataset']}[:{worst['n']}] "
                  f"{worst['layout']}, C = {worst['C']}, gamma = {worst['gamma_factor']}/d); "
                  f"lowest dual relative to the case's best: "
                  f"{min(v['dual_rel_diff'] for c in cases for v in c['solvers'].values()):.1e}.",
                  ""]
    header = ["data", "n", "layout", "C", "gamma", *[f"{s} s" for s in SOLVERS],
              "nSV", "auto", "auto / fastest", "auto's reason"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for c in cases:
        s = c["solvers"]
        cells = [c["dataset"], str(c["n"]), c["layout"], f"{c['C']:g}",
                 f"{c['gamma_factor']}/d",
                 *[f"{s[v]['seconds']:.3f}" if v in s else "-" for v in SOLVERS],
                 str(next(iter(s.values()))["n_support"]), c["auto"],
                 f"{c['auto_ratio']:.2f}", c["auto_reason"]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 5000, 20000, 50000])
    parser.add_argument("--layouts", nargs="+", default=["csr", "dense"],
                        choices=["csr", "dense"])
    parser.add_argument("--C", nargs="+", type=float, default=list(CS))
    parser.add_argument("--gamma-factors", nargs="+", type=float, default=list(GAMMA_FACTORS))
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--merge", action="store_true",
                        help="add to the cases of results/auto.json (same command line rules)")
    parser.add_argument("--rescore", action="store_true",
                        help="time nothing: score auto's choice in results/auto.json by "
                             "today's choose_solver (after a change of the rule)")
    parser.add_argument("--output", default=str(RESULTS_DIR / "auto"))
    args = parser.parse_args(argv)
    if args.rescore:
        return rescore(args.output, argv)
    meta = {**new_record(argv), "threads": thread_pools(), "repeats": args.repeats}
    rng = np.random.default_rng(0)
    warm_X = sp.csr_matrix(rng.random((600, 5)) * (rng.random((600, 5)) < 0.5))
    warm_y = np.where(warm_X[:, 0].toarray()[:, 0] > 0.3, 1.0, -1.0)
    for solver in SOLVERS:  # compile (or load from Numba's cache) before timing; a
        for X in (warm_X, warm_X.toarray()):  # cache of 8 columns: 'ws' goes fused too
            dualsvm.SVC(solver=solver, cache_size=0.01).fit(X, warm_y)
    cases = []
    if args.merge:
        try:
            previous = json.loads(open(args.output + ".json").read())
            cases = previous["cases"]
            meta["command"] = previous["meta"]["command"] + "; " + meta["command"]
        except FileNotFoundError:
            pass
    for name in args.datasets:
        X_all, y_all = load(name)
        for n in args.sizes:
            if n > X_all.shape[0]:
                continue
            for layout in args.layouts:
                X = X_all[:n] if layout == "csr" else X_all[:n].toarray()
                for C in args.C:
                    for factor in args.gamma_factors:
                        cases.append(run_case(name, n, layout, C, factor, X, y_all[:n],
                                              args.repeats, print))
    meta["load_average_at_end"] = load_average()
    write(args.output, {"meta": meta, "cases": cases})


def write(output, record):
    """results/auto.json and its page."""
    with open(output + ".json", "w") as f:
        json.dump(record, f, indent=1, default=float)
    with open(output + ".md", "w") as f:
        f.write(markdown(record["cases"], record["meta"]))


def rescore(output, argv):
    """Score the recorded cases by today's ``choose_solver`` and rewrite the page."""
    with open(output + ".json") as f:
        record = json.load(f)
    for case in record["cases"]:
        score_choice(case)
    now = new_record(argv)
    record["meta"]["rescored"] = {"command": now["command"], "date": now["date"],
                                  "git": now["machine"]["git"]}
    write(output, record)


if __name__ == "__main__":
    main()
