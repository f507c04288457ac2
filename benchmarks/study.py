"""Convergence study: dual coordinate descent against primal SGD, LIBLINEAR and scikit-learn.

Every method minimises the same L1-loss SVM objective without a bias (C = 1),

    P(w) = 1/2 w'w + C sum_i max(0, 1 - y_i w'x_i),

and every model it produces on the way is scored by one function
(:meth:`dualsvm.problems.linear.DualProblem.primal`): relative suboptimality
(P(w) - P*)/P* against seconds and epochs, and test accuracy against seconds.

Methods (``METHODS``): dualsvm's DCD (random permutation or cyclic order, with
or without shrinking), Pegasos and implicit updates (lambda = 1/(C n)),
LIBLINEAR 2.50 ``-s 3`` run for each eps of a ladder (each eps is one point: its
fit time, best of 3, its epochs, its w), and scikit-learn's SGDClassifier (hinge,
alpha = 1/(C n), no intercept, default 'optimal' step sizes, one ``partial_fit``
per epoch). A second part compares the three bias treatments of DCD (none,
augmented feature, exact bias through the constraint y'a = 0), each against the
optimum of its own problem, and a third dual against primal on subsamples of the
Cleveland heart-disease data (n = 30 and 300).

Timing: the solver's work is timed with its setup, for every method alike
(building the problem and the solver, ``epoch()``; ``partial_fit``, which
validates its input every call; ``ll.problem`` + ``ll.train``); after each epoch
on a log-spaced grid (epochs 1-10, then every ~20 %, and the last) the model is
copied and scored outside the clock. Every trajectory runs ``--repeats`` times
(default 3, interleaved across methods; seeded, so the same epochs) and each
point keeps its fastest time; each LIBLINEAR eps is likewise the best of
``--repeats`` runs. Numba compilation is excluded by a warm-up on heart_scale.
All methods run single-threaded (dualsvm's linear and primal kernels have no
parallel region; LIBLINEAR and SGDClassifier are serial); the tables give CPU /
wall of every run.

Stopping, the same for all: each trajectory runs until ``--time-cap`` seconds
of solver time or ``--max-epochs`` epochs (the exact bias gets ``--exact-cap``);
the dual CD runs also end when their own rule at tol 1e-8 holds, at the optimum
(below every target). A LIBLINEAR point is one run stopped by its eps (or its 300
epochs); the ladder stops after the first point slower than the time cap. P* of
each problem: a DCD run at tol 1e-8 (at most 20000 epochs, 30 s; for the exact
bias the capped run itself) or the lowest objective any method reached, whichever
is lower; its duality gap is reported, and suboptimalities below it are not
resolved.

Run from the repository root (``pip install -e .[bench]`` first), under the lock
that keeps benchmarks from overlapping::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/study.py            # about 12 min
    python benchmarks/study.py --quick --output-dir /tmp/study           # smoke test

Writes ``benchmarks/results/study.json`` (every record), ``study.md`` (tables)
and the figures ``docs/figures/study_*.png``.
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier

from dualsvm.problems.linear import DualProblem
from dualsvm.solvers import DualCD, ImplicitSGD, PairCD, Pegasos, Stopping, run_epochs

from bench_linear import fit_ll  # the same peer call as the speed benchmark
from common import DATA_DIR, REPO, Clock, load, new_record, page, plus_minus, write_results
from common import DATASETS as PUBLIC_SETS

SEED = 0
C = 1.0
LOSS = "hinge"
#: The public sets (common.DATASETS); w8a has no test file: a held-out split of its rows.
DATASETS = ("a9a", "w8a", "ijcnn1", "reuters")
HOLDOUT = 0.2
LIBLINEAR_EPS = (10.0, 3.0, 1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001)
TARGETS = (1e-1, 1e-2, 1e-3, 1e-4)
METHODS = {  # label -> (kind, options)
    "DCD random, shrinking": ("dcd", {"shuffle": True, "shrinking": True}),
    "DCD cyclic, shrinking": ("dcd", {"shuffle": False, "shrinking": True}),
    "DCD random, no shrinking": ("dcd", {"shuffle": True, "shrinking": False}),
    "DCD cyclic, no shrinking": ("dcd", {"shuffle": False, "shrinking": False}),
    "Pegasos": ("pegasos", {}),
    "implicit updates": ("implicit", {}),
    "LIBLINEAR -s 3 (eps ladder)": ("liblinear", {}),
    "sklearn SGDClassifier": ("sgdclassifier", {}),
}
BIAS_METHODS = {"no bias": "none", "augmented bias (B = 1)": "augmented",
                "exact bias (y'a = 0)": "exact"}
STYLE = {  # label -> matplotlib line options
    "DCD random, shrinking": {"color": "tab:blue"},
    "DCD cyclic, shrinking": {"color": "tab:blue", "linestyle": "--"},
    "DCD random, no shrinking": {"color": "tab:cyan"},
    "DCD cyclic, no shrinking": {"color": "tab:cyan", "linestyle": "--"},
    "Pegasos": {"color": "tab:red"},
    "implicit updates": {"color": "tab:orange"},
    "LIBLINEAR -s 3 (eps ladder)": {"color": "k", "marker": "x", "linestyle": "none"},
    "sklearn SGDClassifier": {"color": "tab:purple"},
}


def log(*parts):
    print(*parts, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- data

def load_split(name, quick=False):
    """(X, y, X_test, y_test, note): CSR data, labels in {-1, +1}."""
    X, y = load(name)
    y = plus_minus(y)
    try:
        Xt, yt = load(name, "test")
        yt = plus_minus(yt)
        note = f"test file {PUBLIC_SETS[name][1]}"
    except ValueError:  # no test file
        order = np.random.default_rng(SEED).permutation(len(y))
        cut = int(round(len(y) * (1 - HOLDOUT)))
        X, y, Xt, yt = X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]
        note = f"no test file: a random {HOLDOUT:.0%} of the rows held out (seed {SEED})"
    if quick:
        X, y = X[:5000], y[:5000]
        note += "; --quick: first 5000 training rows"
    return X, y, Xt, yt, note


def load_cleveland(n, seed=SEED):
    """A random subsample of n rows of the UCI Cleveland file, and the remaining rows.

    Label: disease = column 14 > 0 -> +1. The 6 missing values ('?', in the
    columns ca and thal) are replaced by the median of that column over the
    subsample's rows; features are standardised with the subsample's mean and
    standard deviation (the other rows get the same transformation).
    """
    rows = [line.split(",") for line in
            (DATA_DIR / "processed.cleveland.data").read_text().splitlines() if line.strip()]
    data = np.array([[np.nan if v.strip() == "?" else float(v) for v in r] for r in rows])
    X, label = data[:, :13], data[:, 13]
    y = np.where(label > 0, 1.0, -1.0)
    order = np.random.default_rng(seed).permutation(len(y))
    train, rest = order[:n], order[n:]
    median = np.nanmedian(X[train], axis=0)
    X = np.where(np.isnan(X), median, X)
    mean, std = X[train].mean(axis=0), X[train].std(axis=0)
    X = (X - mean) / np.where(std > 0, std, 1.0)
    return (np.ascontiguousarray(X[train]), y[train], np.ascontiguousarray(X[rest]), y[rest],
            int(np.isnan(data[:, :13]).sum()))


# ------------------------------------------------------------------- trajectories

def on_grid(epoch):
    """Score epochs 1-10, then about every 20 %."""
    return epoch <= 10 or int(np.log(epoch) / np.log(1.2)) != int(np.log(epoch - 1) / np.log(1.2))


def trajectory(step, score, max_epochs, time_cap, setup):
    """Run ``step()`` (timed; returns True when converged) epoch by epoch and
    ``score()`` (untimed) on the grid and at the end: list of records. The clock
    starts with the ``setup`` Clock's seconds (building the problem and solver)."""
    records = []
    elapsed, cpu = setup.seconds, setup.cpu_seconds
    for epoch in range(1, max_epochs + 1):
        with Clock() as clock:
            converged = step()
        elapsed += clock.seconds
        cpu += clock.cpu_seconds
        last = converged or elapsed >= time_cap or epoch == max_epochs
        if on_grid(epoch) or last:
            records.append({"epoch": epoch, "seconds": elapsed, "cpu_seconds": cpu, **score()})
        if last:
            break
    return records


def fastest(trials, key="epoch"):
    """One run from repeated ones: the points of the run that got furthest, each the
    fastest record with its ``key`` (epoch; eps for the LIBLINEAR ladder) among all runs.

    The trajectories are seeded, so a given epoch has the same model in every run.
    """
    best = {}
    for records in trials:
        for r in records:
            if r[key] not in best or r["seconds"] < best[r[key]]["seconds"]:
                best[r[key]] = r
    furthest = max(trials, key=len if key == "eps" else lambda records: records[-1]["epoch"])
    return [best[r[key]] for r in furthest]


def scorer(problem, X_test, y_test, model):
    """score() for a model() -> (w including any augmented entry, intercept)."""
    def score():
        w, intercept = model()
        coef, b = problem.coef_intercept(w, intercept)
        accuracy = None
        if X_test is not None:
            accuracy = float(np.mean(np.where(X_test @ coef + b > 0, 1.0, -1.0) == y_test))
        return {"primal": problem.primal(w, intercept), "accuracy": accuracy}
    return score


def run_method(kind, options, X, y, X_test, y_test, bias, caps):
    """Records of one run of a method on one problem (for LIBLINEAR: one ladder)."""
    rng = np.random.default_rng(SEED)
    if kind in ("dcd", "pegasos", "implicit"):
        with Clock() as setup:
            problem = DualProblem(X, y, np.full(len(y), C), LOSS, bias)
            if kind == "dcd":
                cls = PairCD if bias == "exact" else DualCD
                solver = cls(problem, 1e-8, random_state=rng, **options)
            else:
                solver = (Pegasos if kind == "pegasos" else ImplicitSGD)(problem, random_state=rng)
        if bias == "exact":
            model = lambda: (solver.w, problem.evaluate(solver.alpha, solver.w)[3])  # noqa: E731
        else:
            model = lambda: (solver.w, 0.0)  # noqa: E731
        return trajectory(solver.epoch, scorer(problem, X_test, y_test, model), *caps, setup)
    problem = DualProblem(X, y, np.full(len(y), C), LOSS, bias)  # scores the peers' models
    if kind == "sgdclassifier":
        with Clock() as setup:
            sgd = SGDClassifier(loss="hinge", alpha=1.0 / (C * len(y)), fit_intercept=False,
                                random_state=SEED)

        def step():
            sgd.partial_fit(X, y, classes=[-1.0, 1.0])
            return False
        return trajectory(step, scorer(problem, X_test, y_test, lambda: (sgd.coef_[0], 0.0)),
                          *caps, setup)
    if kind == "liblinear":
        records = []
        for eps in LIBLINEAR_EPS:
            run = fit_ll(X, y, LOSS, eps)
            records.append({"eps": eps, "epoch": run["n_iter"], "seconds": run["seconds"],
                            "cpu_seconds": run["cpu_seconds"], "status": run["status"],
                            **scorer(problem, X_test, y_test, lambda: (run["w"], 0.0))()})
            if run["seconds"] > caps[1]:
                break
        return records
    raise ValueError(kind)


def repeated(repeats, methods, X, y, X_test, y_test):
    """{label: fastest(runs)} of ``repeats`` runs of every (label, kind, options,
    bias, caps) in ``methods``, interleaved across methods."""
    trials = {method[0]: [] for method in methods}
    for _ in range(repeats):
        for label, kind, options, bias, caps in methods:
            trials[label].append(run_method(kind, options, X, y, X_test, y_test, bias, caps))
    return {label: fastest(trials[label], "eps" if kind == "liblinear" else "epoch")
            for label, kind, _, _, _ in methods}


def reference(X, y, bias, warm=None):
    """P* candidate of one bias mode: its primal, dual and the run's w and alpha.

    DCD at tol 1e-8 (at most 20000 epochs, 30 s); for the exact bias, the pair
    solver at tol 1e-8 (20 s), started from ``warm``, the augmented reference
    (its alpha rescaled to y'a = 0), whose (w, b) is also a candidate.
    """
    problem = DualProblem(X, y, np.full(len(y), C), LOSS, bias)
    if bias == "exact":
        solver = PairCD(problem, 1e-8, alpha=warm["alpha"].copy())
        limits = Stopping(max_iter=100_000, time_limit=20.0, monitor=False)
    else:
        solver = DualCD(problem, 1e-8, random_state=np.random.default_rng(SEED))
        limits = Stopping(max_iter=20000, time_limit=30.0, monitor=False)
    result = run_epochs(solver, problem, limits)
    ref = {"primal": result.primal, "dual": result.dual, "gap": result.gap,
           "epochs": result.n_iter, "status": result.status,
           "solver": "pair DCD, warm" if bias == "exact" else "DCD", "alpha": result.alpha}
    if bias == "exact":  # the augmented optimum is a feasible (w, b) of the exact problem
        d = X.shape[1]
        ref["primal"] = min(ref["primal"], problem.primal(warm["w"][:d], warm["w"][d]))
    else:
        ref["w"] = result.w
    return ref


def optimum_of(ref, runs):
    """P* = the lowest objective seen; its certificate (P* - D_ref)/P* bounds its error."""
    optimum = min([ref["primal"]] + [r["primal"] for records in runs for r in records])
    return optimum, (optimum - ref["dual"]) / optimum


def public(ref):
    return {k: v for k, v in ref.items() if k not in ("alpha", "w")}


def first_reach(records, optimum, target):
    """(seconds, epoch) of the fastest record within ``target`` relative suboptimality
    (the first one of a trajectory; of a ladder of separate runs, the quickest)."""
    reached = [(r["seconds"], r["epoch"]) for r in records
               if (r["primal"] - optimum) / optimum <= target]
    return min(reached) if reached else None


def summarise(runs, optimum):
    return {label: {"reach": {str(t): first_reach(records, optimum, t) for t in TARGETS},
                    "final_suboptimality": (records[-1]["primal"] - optimum) / optimum,
                    "final_accuracy": records[-1].get("accuracy"),
                    "seconds": records[-1]["seconds"], "epochs": records[-1]["epoch"],
                    "cores_busy": records[-1]["cpu_seconds"] / records[-1]["seconds"]}
            for label, records in runs.items()}


# ------------------------------------------------------------------------- figures

def suboptimality_records(records, optimum):
    """Records with 'primal' replaced so that plot_convergence's y='suboptimality' with
    this optimum draws them; the floor 1e-7 (the bottom of the plots) keeps points at P* visible."""
    return [{**r, "primal": max(r["primal"], optimum * (1 + 1e-7))} for r in records]


def figure_dataset(name, runs, optimum, note, path):
    import matplotlib.pyplot as plt

    from dualsvm.plotting import plot_convergence

    figure, axes = plt.subplots(1, 3, figsize=(16, 4.6), layout="constrained")
    labels = list(runs)
    for ax, x in zip(axes[:2], ("seconds", "epoch")):
        for label in labels:
            plot_convergence(suboptimality_records(runs[label], optimum), labels=[label],
                             x=x, y="suboptimality", optimum=optimum, ax=ax, **STYLE[label])
        ax.set_ylim(bottom=1e-7)
        ax.set_xscale("log")
        ax.get_legend().remove()
    for label in labels:
        records = runs[label]
        axes[2].plot([r["seconds"] for r in records], [100 * r["accuracy"] for r in records],
                     label=label, **{"marker": ".", **STYLE[label]})
    axes[2].set_xscale("log")
    axes[2].set_xlabel("seconds")
    axes[2].set_ylabel("test accuracy (%)")
    axes[2].grid(True, alpha=0.3)
    accuracies = [100 * r["accuracy"] for rs in runs.values() for r in rs]
    top = max(accuracies)
    axes[2].set_ylim(max(min(accuracies), top - 10), top + 0.5)
    axes[2].legend(fontsize="small", loc="lower right")
    figure.suptitle(f"{name}: L1-loss SVM, no bias, C = 1, P* = {optimum:.8g} ({note})",
                    fontsize="medium")
    figure.savefig(path, dpi=90)
    plt.close(figure)


def figure_panels(panels, path, title, x="seconds"):
    """One suboptimality panel per (title, runs, optimum)."""
    import matplotlib.pyplot as plt

    from dualsvm.plotting import plot_convergence

    figure, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.0),
                                layout="constrained", squeeze=False)
    for ax, (panel_title, runs, optimum) in zip(axes[0], panels):
        for label, records in runs.items():
            optimum_k = optimum[label] if isinstance(optimum, dict) else optimum
            plot_convergence(suboptimality_records(records, optimum_k), labels=[label], x=x,
                             y="suboptimality", optimum=optimum_k, ax=ax,
                             **STYLE.get(label, {}))
        ax.set_ylim(bottom=1e-7)
        ax.set_xscale("log")
        ax.set_title(panel_title, fontsize="medium")
        ax.legend(fontsize="x-small")
    figure.suptitle(title, fontsize="medium")
    figure.savefig(path, dpi=90)
    plt.close(figure)


def boundary_figures(figures_dir):
    """The moving hyperplane: Pegasos and DCD on two Cleveland features (no timing).

    Age and maximum heart rate (columns 1 and 8), standardised, all 303 rows.
    """
    import matplotlib.pyplot as plt

    from dualsvm import LinearSVC
    from dualsvm.plotting import capture_epochs, decision_boundary_gif, decision_boundary_grid

    X, y, _, _, _ = load_cleveland(303)
    X = X[:, [0, 7]]
    epochs = [1, 2, 3, 5, 10, 20, 50, 100]
    for solver in ("pegasos", "dcd"):
        model = LinearSVC(solver=solver, loss="hinge", random_state=SEED, tol=1e-6)
        frames = capture_epochs(model, X, y, epochs)
        figure = decision_boundary_grid(model, X, y, epochs, ncols=4, frames=frames)
        figure.suptitle(f"{solver}: hinge loss, C = 1, augmented bias; Cleveland, "
                        "standardised age (x) and maximum heart rate (y)", fontsize="medium")
        figure.savefig(figures_dir / f"boundary_{solver}.png", dpi=70)
        plt.close(figure)
        decision_boundary_gif(model, X, y, epochs, figures_dir / f"boundary_{solver}.gif",
                              frames=frames, dpi=60)


# ---------------------------------------------------------------------------- main

def warm_up():
    """Compile (or load) every kernel on heart_scale, outside all timings."""
    X, y = load("heart_scale")
    y = plus_minus(y)
    for kind, options in [("dcd", {"shuffle": True, "shrinking": True}), ("pegasos", {}),
                          ("implicit", {})]:
        for bias in ("none", "augmented"):
            run_method(kind, options, X, y, X, y, bias, (3, 10.0))
            run_method(kind, options, X.toarray(), y, X.toarray(), y, bias, (3, 10.0))
    run_method("dcd", {}, X, y, X, y, "exact", (3, 10.0))
    run_method("sgdclassifier", {}, X, y, X, y, "none", (3, 10.0))  # the peers' first calls
    run_method("liblinear", {}, X, y, X, y, "none", (3, 10.0))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--time-cap", type=float, default=5.0,
                        help="solver seconds per run (default 5)")
    parser.add_argument("--exact-cap", type=float, default=15.0,
                        help="solver seconds of the exact-bias run (default 15)")
    parser.add_argument("--max-epochs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per method, each point's fastest kept (default 3, 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="a9a's first 5000 rows, 1 s caps, writes nothing unless --output-dir")
    parser.add_argument("--report", type=Path, metavar="JSON",
                        help="only rewrite study.md next to this study.json")
    parser.add_argument("--boundary-only", action="store_true",
                        help="only draw the decision-boundary figures (no timing)")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="results directory (default benchmarks/results/, figures in docs/figures/)")
    args = parser.parse_args(argv)
    if args.report:
        text = markdown(json.loads(args.report.read_text()))
        (args.report.parent / "study.md").write_text(text)
        print(text)
        return
    if args.quick:
        args.datasets, args.time_cap, args.exact_cap = ["a9a"], 1.0, 2.0
    repeats = args.repeats or (1 if args.quick else 3)
    write = not args.quick or args.output_dir is not None
    results_dir = args.output_dir or REPO / "benchmarks" / "results"
    figures_dir = args.output_dir or REPO / "docs" / "figures"
    if write:
        results_dir.mkdir(parents=True, exist_ok=True)
        figures_dir.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    if write:
        boundary_figures(figures_dir)
    if args.boundary_only:
        return
    start = time.perf_counter()
    results = {**new_record(argv),
               "settings": {"C": C, "loss": LOSS, "time_cap": args.time_cap,
                            "exact_cap": args.exact_cap, "max_epochs": args.max_epochs,
                            "liblinear_eps": LIBLINEAR_EPS, "seed": SEED,
                            "repeats": repeats},
               "datasets": {}, "bias": {}, "cleveland": {}}
    log("warm-up (JIT) ...")
    warm_up()
    caps = (args.max_epochs, args.time_cap)
    for name in args.datasets:
        X, y, X_test, y_test, note = load_split(name, args.quick)
        log(f"{name}: n = {X.shape[0]}, d = {X.shape[1]}, nnz = {X.nnz}, test n = {len(y_test)}")
        runs = repeated(repeats, [(label, kind, options, "none", caps)
                                  for label, (kind, options) in METHODS.items()],
                        X, y, X_test, y_test)
        for label, records in runs.items():
            last = records[-1]
            log(f"  {label}: {last['epoch']} epochs, {last['seconds']:.2f} s, P = {last['primal']:.10g}")
        ref = reference(X, y, "none")
        optimum, certified = optimum_of(ref, runs.values())
        log(f"  P* = {optimum:.10g} (certified to {certified:.1e}; {public(ref)})")
        results["datasets"][name] = {"n": X.shape[0], "d": X.shape[1], "nnz": int(X.nnz),
                                     "n_test": len(y_test), "test": note, "optimum": optimum,
                                     "certified": certified, "reference": public(ref),
                                     "runs": runs,
                                     "summary": summarise(runs, optimum)}
        if write:
            figure_dataset(name, runs, optimum, note, figures_dir / f"study_{name}.png")

        # bias treatments, each against its own optimum
        bias_runs = repeated(
            repeats, [(label, "dcd", {}, bias,
                       (args.max_epochs * 10, args.exact_cap) if bias == "exact" else caps)
                      for label, bias in BIAS_METHODS.items() if bias != "none"],
            X, y, X_test, y_test)
        bias_runs = {label: runs["DCD random, shrinking"] if bias == "none" else bias_runs[label]
                     for label, bias in BIAS_METHODS.items()}
        bias_optimum, bias_refs, bias_certified = {}, {}, {}
        previous = None
        for label, bias in BIAS_METHODS.items():
            records = bias_runs[label]
            ref = ref if bias == "none" else reference(X, y, bias, warm=previous)
            previous = ref
            bias_refs[label] = public(ref)
            extra = runs.values() if bias == "none" else [records]
            bias_optimum[label], bias_certified[label] = optimum_of(ref, extra)
            log(f"  bias {bias}: {records[-1]['epoch']} epochs, {records[-1]['seconds']:.2f} s, "
                f"P* = {bias_optimum[label]:.10g} (certified to {bias_certified[label]:.1e})")
        results["bias"][name] = {
            "optimum": bias_optimum, "certified": bias_certified, "reference": bias_refs,
            "runs": bias_runs,
            "summary": {label: summarise({label: bias_runs[label]}, bias_optimum[label])[label]
                        for label in bias_runs}}
        log(f"  elapsed {time.perf_counter() - start:.0f} s")
    if write and results["bias"]:
        figure_panels([(name, b["runs"], b["optimum"]) for name, b in results["bias"].items()],
                      figures_dir / "study_bias.png",
                      "DCD with no bias, an augmented bias feature and the exact bias "
                      "(each against its own P*), L1 loss, C = 1")

    # dual against primal on small data: Cleveland heart disease
    if not args.quick:
        panels = []
        for n in (30, 300):
            X, y, X_test, y_test, missing = load_cleveland(n)
            if len(y_test) < 30:  # n = 300 leaves 3 rows: no test accuracy
                X_test = y_test = None
            runs = repeated(repeats, [(label, *METHODS[label], "augmented", caps) for label in
                                      ("DCD random, shrinking", "Pegasos", "implicit updates")],
                            X, y, X_test, y_test)
            ref = reference(X, y, "augmented")
            optimum, certified = optimum_of(ref, runs.values())
            results["cleveland"][str(n)] = {"n": n, "n_test": 0 if y_test is None else len(y_test), "missing_values": missing,
                                            "optimum": optimum, "certified": certified,
                                            "reference": public(ref), "runs": runs,
                                            "summary": summarise(runs, optimum)}
            panels.append((f"Cleveland, n = {n}", runs, optimum))
            log(f"cleveland n = {n}: P* = {optimum:.10g}")
        if write:
            for x in ("seconds", "epoch"):
                figure_panels(panels, figures_dir / f"study_cleveland_{x}.png",
                              "Cleveland heart disease: dual CD against primal SGD "
                              "(L1 loss, augmented bias, C = 1)", x=x)
    results["total_seconds"] = time.perf_counter() - start
    text = markdown(results)
    print(text)
    if write:
        write_results(results_dir, "study", results, text)
    log(f"total {results['total_seconds']:.0f} s")


def _reach(cell):
    return "—" if cell is None else f"{cell[0]:.3g} s / {cell[1]}"


def _seconds(summary, label, target):
    cell = summary[label]["reach"][str(target)]
    return None if cell is None else cell[0]


def _versus(summary, slow, fast, target):
    """'a s vs b s (x r)': seconds of ``fast`` and ``slow`` to ``target`` and their ratio."""
    a, b = _seconds(summary, fast, target), _seconds(summary, slow, target)
    text = lambda v: "not reached" if v is None else f"{v:.3g} s"  # noqa: E731
    ratio = f" (x {b / a:.1f})" if a and b else ""
    return f"{text(a)} vs {text(b)}{ratio}"


def claims(results):
    """The claims of the issue, with the numbers of this run: seconds to a target."""
    rows = []
    for name, data in results["datasets"].items():
        s = data["summary"]
        for target in (1e-2, 1e-3):
            rows.append(("DCD faster than Pegasos (DCD random+shrinking vs Pegasos)", name, target,
                         _versus(s, "Pegasos", "DCD random, shrinking", target)))
            rows.append(("... and than implicit updates", name, target,
                         _versus(s, "implicit updates", "DCD random, shrinking", target)))
        for target in (1e-3, 1e-4):
            rows.append(("random permutation speeds CD up (random vs cyclic, shrinking)", name,
                         target, _versus(s, "DCD cyclic, shrinking", "DCD random, shrinking", target)))
            rows.append(("... without shrinking", name, target,
                         _versus(s, "DCD cyclic, no shrinking", "DCD random, no shrinking", target)))
            rows.append(("shrinking pays off (random: shrinking vs none)", name, target,
                         _versus(s, "DCD random, no shrinking", "DCD random, shrinking", target)))
    for name, data in results["bias"].items():
        s = data["summary"]
        labels = list(s)
        for target in (1e-3, 1e-4):
            rows.append(("CD without a bias faster than with y'a = 0 (no bias vs exact)", name,
                         target, _versus(s, labels[2], labels[0], target)))
            rows.append(("... augmented bias vs exact", name, target,
                         _versus(s, labels[2], labels[1], target)))
    for name, data in results["cleveland"].items():
        s = data["summary"]
        for target in (1e-2, 1e-3):
            rows.append(("dual wins on small data (DCD vs Pegasos)", f"Cleveland n = {name}", target,
                         _versus(s, "Pegasos", "DCD random, shrinking", target)))
            rows.append(("... DCD vs implicit", f"Cleveland n = {name}", target,
                         _versus(s, "implicit updates", "DCD random, shrinking", target)))
    for name, data in results["datasets"].items():
        rows.append(("primal wins on larger data? (DCD vs implicit, low accuracy)", name, 1e-1,
                     _versus(data["summary"], "implicit updates", "DCD random, shrinking", 1e-1)))
    lines = ["", "## The claims, in numbers", "",
             "Seconds of solver time to reach the relative suboptimality, first method vs "
             "second (x ratio second / first; above 1: the first is faster).", "",
             "| claim | data | target | first vs second |", "|---|---|---:|---|"]
    lines += [f"| {claim} | {name} | {target:g} | {text} |" for claim, name, target, text in rows]
    return lines


def markdown(results):
    lines = [
        f"Total {results['total_seconds']:.0f} s.  ",
        f"Stopping, the same for every trajectory: {results['settings']['time_cap']} s of "
        f"solver time or {results['settings']['max_epochs']} epochs (exact bias: "
        f"{results['settings']['exact_cap']} s), dual CD also at its own tol 1e-8 (the "
        "optimum); each LIBLINEAR point is one run stopped by its eps.  ",
        f"Timed, for every method: its setup (problem and solver; `ll.problem`; "
        f"`partial_fit`'s validation) and its epochs, not the scoring; best of "
        f"{results['settings']['repeats']} runs per point, interleaved across methods.  ",
        "Threads: 1 for every method (no parallel region in dualsvm's linear and primal "
        "kernels; LIBLINEAR and SGDClassifier are serial); CPU / wall of the final point "
        "in the last column.",
        "",
        "Cells: solver seconds / epochs at which the relative primal suboptimality "
        "(P - P*)/P* first fell to the target (— = not within the caps).",
    ]
    for part, title in (("datasets", "no bias"), ("bias", "bias treatments, own P*"),
                        ("cleveland", "Cleveland, augmented bias")):
        for name, data in results[part].items():
            optimum = data["optimum"]
            head = (f"P* = {optimum:.10g}" if not isinstance(optimum, dict) else
                    "P* = " + ", ".join(f"{k}: {v:.10g}" for k, v in optimum.items()))
            extra = ""
            if part == "datasets":
                extra = f"; n = {data['n']}, d = {data['d']}, {data['test']}"
            if part == "cleveland":
                extra = (f"; test: the other {data['n_test']} rows" if data["n_test"] else
                         "; no test rows left (303 - 300 = 3): no test accuracy")
            heading = f"n = {name}" if part == "cleveland" else name
            lines += ["", f"## {heading}: {title}", "", head + extra, "",
                      "| method | " + " | ".join(f"to {t:g}" for t in TARGETS)
                      + " | final subopt. | test acc. | run | threads (CPU / wall) |",
                      "|---|" + "---:|" * (len(TARGETS) + 4)]
            for label, s in data["summary"].items():
                accuracy = "-" if s["final_accuracy"] is None else f"{100 * s['final_accuracy']:.2f} %"
                lines.append(f"| {label} | " + " | ".join(_reach(s["reach"][str(t)]) for t in TARGETS)
                             + f" | {s['final_suboptimality']:.1e} | {accuracy} | "
                             f"{s['seconds']:.3g} s / {s['epochs']} | 1 ({s['cores_busy']:.2f}) |")
            references = data["reference"]
            certified = data["certified"]
            if not isinstance(certified, dict):
                references, certified = {"": references}, {"": certified}
            for label, ref in references.items():
                lines.append(f"\nP* {label}: reference run {ref['solver']} at tol 1e-8, "
                             f"{ref['epochs']} epochs ({ref['status']}); P* is certified to "
                             f"{certified[label]:.1e} relative ((P* - D_ref)/P*).")
    if results["datasets"]:
        lines += claims(results)
    return page("Convergence study (L1-loss SVM, C = 1)", results, lines)


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        main()
