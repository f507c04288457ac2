"""Does a larger kernel cache ever make a fit slower? ``SVC()`` at several ``cache_size``.

RBF C-SVC at the tuned C and gamma (results/kernel_tuned_params.json), tol 1e-3 (the
stopping rule of all: maximal violating pair below 1e-3), on a9a, w7a, w8a and ijcnn1,
each at ``cache_size`` 100, 200, 500 and 1000 MB (``--cache-sizes``), the same for
dualsvm's default ``SVC()``, oneDAL (``sklearnex.svm.SVC``) and LIBSVM 3.37 (``-m``).
dualsvm runs with ``--threads`` threads and, with ``--one-thread``, also with one
(Numba's and BLAS's pools set to 1 around that fit), interleaved with the others.

Per case: fit seconds (best of ``--repeats``, interleaved; a fit over ``--once-above``
seconds runs once), dualsvm's ``solver_used_`` / ``solver_reason_`` and its history
counters (inner SMO steps, working sets, kernel entries computed, cache hits), each
peer's seconds and iterations, the number of support vectors, and dualsvm's dual
objective relative to LIBSVM's (from LIBSVM's printed objective and dualsvm's
certificate: both minimise the same f). ``--label`` names the code measured (e.g.
``before`` / ``after`` a change); the page shows every label's rows side by side, and
``--merge`` keeps the cases of the results file this run does not measure again.

    python benchmarks/bench_cache.py --threads 2 --one-thread --datasets w7a --merge
    python benchmarks/bench_cache.py --quick        # w7a's first 5000 rows, prints only
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from common import (RESULTS_DIR, best_of, cores_busy, fit_libsvm, fit_onedal, load, log, merge,
                    new_record, onedal_threads, page, thread_pools, threads_environment,
                    timed_fit, write_results)

SETS = ("a9a", "w7a", "w8a", "ijcnn1")
CACHE_SIZES = (100, 200, 500, 1000)
TOL = 1e-3
NAME = "cache"


def tuned_params(path):
    """{data set: (C, gamma)} from the search part of bench_kernel.py."""
    return {r["dataset"]: (float(r["C"]), float(r["gamma"]))
            for r in json.loads(Path(path).read_text())["results"]}


def fit_dualsvm(X, y, C, gamma, cache_mb, threads=None):
    """``SVC(C, gamma, cache_size)`` timed; ``threads``: Numba's and BLAS's threads for
    this fit (None: the pool's)."""
    import numba
    from threadpoolctl import threadpool_limits

    import dualsvm

    pool = numba.get_num_threads()
    numba.set_num_threads(threads or pool)
    try:
        with threadpool_limits(limits=threads, user_api="blas"):
            run = timed_fit(dualsvm.SVC(C=C, gamma=gamma, tol=TOL, cache_size=cache_mb), X, y)
    finally:
        numba.set_num_threads(pool)
    model = run["model"]
    last = model.history_[0][-1]
    return {**run, "solver_used": model.solver_used_, "solver_reason": model.solver_reason_,
            "iterations": int(last.get("iterations", model.n_iter_[0])),
            "outer_iterations": int(last.get("outer_iterations", model.n_iter_[0])),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "cache_hits": int(last["cache_hits"]), "dual": float(last["dual"]),
            "n_support": int(len(model.support_))}


def libsvm_options(C, gamma, cache_mb):
    return f"-t 2 -g {gamma!r} -c {C!r} -e {TOL} -m {cache_mb}"


def warm_up():
    """Compile (or load from the Numba cache) and make the peers' first calls."""
    start = time.perf_counter()
    X, y = load("w7a")
    X, y = X[:3000], y[:3000]
    for solver in ("smo", "ws"):
        import dualsvm
        dualsvm.SVC(C=16, gamma=2**-5, solver=solver).fit(X, y)
        dualsvm.SVC(C=16, gamma=2**-5, solver=solver, cache_size=1).fit(X, y)
    fit_libsvm(y, X, libsvm_options(1.0, 0.1, 100))
    fit_onedal(X, y, C=1.0, gamma=0.1, tol=TOL, cache_size=100)
    return time.perf_counter() - start


def strip(run):
    return {k: v for k, v in run.items() if k != "model"}


def run_case(label, name, X, y, C, gamma, cache_mb, options):
    fits = {"dualsvm": lambda: fit_dualsvm(X, y, C, gamma, cache_mb)}
    if options.one_thread:
        fits["dualsvm_1"] = lambda: fit_dualsvm(X, y, C, gamma, cache_mb, 1)
    if "onedal" in options.peers:
        fits["onedal"] = lambda: fit_onedal(X, y, C=C, gamma=gamma, tol=TOL,
                                            cache_size=cache_mb)
    if "libsvm" in options.peers:
        fits["libsvm"] = lambda: fit_libsvm(y, X, libsvm_options(C, gamma, cache_mb))
    log(f"{label} {name} (n = {X.shape[0]}) cache {cache_mb} MB: {options.repeats} x "
        f"({', '.join(fits)}) ...")
    runs = best_of(options.repeats, fits, log, once_above=options.once_above)
    case = {"label": label, "dataset": name, "n_samples": X.shape[0], "C": C, "gamma": gamma,
            "cache_mb": cache_mb}
    for solver, run in runs.items():
        if "error" in run:
            case[solver] = run
            continue
        run["cores_busy"] = cores_busy(run)
        case[solver] = strip(run)
    libsvm = case.get("libsvm", {})
    if libsvm.get("objectives"):
        f_libsvm = libsvm["objectives"][0]  # LIBSVM prints its minimised f(a)
        for solver in ("dualsvm", "dualsvm_1"):
            if "dual" in case.get(solver, {}):
                # dualsvm's dual is -f(a): relative to LIBSVM's, positive is higher
                case[solver]["dual_rel_libsvm"] = (case[solver]["dual"] + f_libsvm) / abs(f_libsvm)
    log("  best " + ", ".join(f"{s} {r['seconds']:.2f}" for s, r in case.items()
                              if isinstance(r, dict) and "seconds" in r) + " s")
    return case


def fastest_peer(case):
    peers = [(case[p]["seconds"], p) for p in ("onedal", "libsvm")
             if "seconds" in case.get(p, {})]
    return min(peers) if peers else (None, None)


def fmt(x, spec=".2f"):
    return "" if x is None else format(x, spec)


def cache_page(record):
    results = record["results"]
    labels = list(dict.fromkeys(r["label"] for r in results))
    threads = record.get("threads", {})
    lines = [
        f"RBF C-SVC at the tuned C and gamma (`results/kernel_tuned_params.json`), tol {TOL} "
        "(maximal violating pair, the same rule for all), the same `cache_size` for dualsvm's "
        "`SVC()`, oneDAL (`sklearnex.svm.SVC`) and LIBSVM (`-m`). Fit seconds: best of "
        f"{record['repeats']}, interleaved (a fit over {record['once_above']:g} s ran once: "
        "`all_seconds` in the JSON); data conversion outside the clock (LIBSVM's "
        "`svm_problem` built before it). Threads: dualsvm "
        f"{threads.get('numba')} (Numba) and, in the `1 thr` column, 1; oneDAL "
        f"{record.get('onedal_threads')} (TBB); LIBSVM's OpenMP {threads.get('openmp')}. "
        "Label: the code measured (`before` / `after` the measured cache policy; see "
        "reports/cache_policy.md).", ""]
    for label in labels:
        rows = [r for r in results if r["label"] == label]
        lines += [f"## {label}", "",
                  "| data | n | C | gamma | cache MB | SVC() s | SVC() 1 thr s | oneDAL s | "
                  "LIBSVM s | **SVC() / fastest peer** | SVC() / its 100 MB time | inner "
                  "iterations | sets | kernel entries | cache hits | nSV | dual rel. "
                  "LIBSVM | solver_reason_ |", "|---" * 18 + "|"]
        for r in rows:
            d, d1 = r.get("dualsvm", {}), r.get("dualsvm_1", {})
            peer, _ = fastest_peer(r)
            base = next((b for b in rows if b["dataset"] == r["dataset"]
                         and b["cache_mb"] == min(x["cache_mb"] for x in rows
                                                  if x["dataset"] == r["dataset"])), None)
            ratio_base = d.get("seconds", 0) / base["dualsvm"]["seconds"] \
                if base and "seconds" in base.get("dualsvm", {}) and "seconds" in d else None
            lines.append(
                f"| {r['dataset']} | {r['n_samples']} | {r['C']:g} | {r['gamma']:g} | "
                f"{r['cache_mb']} | {fmt(d.get('seconds'))} | {fmt(d1.get('seconds'))} | "
                f"{fmt(r.get('onedal', {}).get('seconds'))} | "
                f"{fmt(r.get('libsvm', {}).get('seconds'))} | "
                f"**{fmt(d['seconds'] / peer if peer and 'seconds' in d else None)}** | "
                f"{fmt(ratio_base)} | {d.get('iterations', '')} | "
                f"{d.get('outer_iterations', '')} | {fmt(d.get('kernel_evaluations'), '.3g')} | "
                f"{d.get('cache_hits', '')} | {d.get('n_support', '')} | "
                f"{fmt(d.get('dual_rel_libsvm'), '.1e')} | {d.get('solver_reason', '')} |")
        ok = [r for r in rows if "seconds" in r.get("dualsvm", {})]
        if ok:
            worst_cache = []
            for name in dict.fromkeys(r["dataset"] for r in ok):
                times = {r["cache_mb"]: r["dualsvm"]["seconds"] for r in ok
                         if r["dataset"] == name}
                worst_cache.append((max(times.values()) / times[min(times)], name))
            peers = [(r["dualsvm"]["seconds"] / fastest_peer(r)[0], r["dataset"], r["cache_mb"])
                     for r in ok if fastest_peer(r)[0]]
            lines += ["", f"Largest SVC() time at any cache size over its time at the smallest: "
                      f"**{max(worst_cache)[0]:.2f}** ({max(worst_cache)[1]})."]
            if peers:
                worst = max(peers)
                lines.append(f"SVC() / the fastest peer at the same cache size: median "
                             f"**{statistics.median(p[0] for p in peers):.2f}**, largest "
                             f"**{worst[0]:.2f}** ({worst[1]}, {worst[2]} MB).")
        lines.append("")
    return lines


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--cache-sizes", nargs="+", type=int, default=list(CACHE_SIZES))
    parser.add_argument("--peers", nargs="*", choices=["onedal", "libsvm"],
                        default=["onedal", "libsvm"])
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every solver (the script re-executes itself)")
    parser.add_argument("--one-thread", action="store_true",
                        help="also dualsvm with one thread, interleaved")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--once-above", type=float, default=8.0,
                        help="a fit slower than this runs once (LIBSVM on a9a, w8a)")
    parser.add_argument("--label", default="after", help="the code measured")
    parser.add_argument("--rows", type=int, default=None, help="the first ROWS rows only")
    parser.add_argument("--quick", action="store_true",
                        help="w7a's first 5000 rows, 100 and 1000 MB, 1 repeat, prints only")
    parser.add_argument("--merge", action="store_true")
    parser.add_argument("--output-dir", type=Path, default=RESULTS_DIR)
    parser.add_argument("--params", type=Path,
                        default=RESULTS_DIR / "kernel_tuned_params.json")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        threads_environment(args.threads)
    if args.quick:
        args.datasets, args.cache_sizes, args.repeats, args.rows = ["w7a"], [100, 1000], 1, 5000
    params = tuned_params(args.params)
    record = new_record(argv)
    record["warm_up_seconds"] = warm_up()
    record.update(repeats=args.repeats, once_above=args.once_above, threads=thread_pools(),
                  onedal_threads=onedal_threads() if "onedal" in args.peers else None)
    results = []
    for name in args.datasets:
        X, y = load(name)
        if args.rows:
            X, y = X[:args.rows], y[:args.rows]
        C, gamma = params[name]
        for cache_mb in args.cache_sizes:
            results.append(run_case(args.label, name, X, y, C, gamma, cache_mb, args))
    record["results"] = results
    if args.quick:
        print("\n".join(cache_page(record)))
        return
    path = args.output_dir / f"{NAME}.json"
    if args.merge:
        record = merge(path, record, lambda r: (r["label"], r["dataset"], r["cache_mb"]))
    record["results"].sort(key=lambda r: (r["label"] != "before", r["dataset"], r["cache_mb"]))
    text = page("Kernel fit time by cache_size: dualsvm SVC() vs oneDAL and LIBSVM", record,
                cache_page(record))
    write_results(args.output_dir, NAME, record, text)


if __name__ == "__main__":
    sys.exit(main())
