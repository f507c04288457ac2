"""Serving a trained model: predictions per second, and what a float32 ONNX graph loses.

Models (trained once, untimed): LinearSVC on a9a (C = 1), SVC RBF on a9a (C = 1,
gamma = 1/123, LIBSVM's default) and on ijcnn1 (C = 10, gamma = 1/22). Each predicts
rows of its test file, dense float64 (float32 for the float32 graph, converted outside
the clock), in batches of 1, 100 and 10,000 rows, through

* dualsvm: ``model.predict``;
* onnxruntime: the graph of ``dualsvm.onnx.to_onnx``, float32 and float64 inputs
  (``session.run`` of all outputs: labels and decision values);
* scikit-learn: ``predict`` of ``model.to_sklearn()`` (its libsvm / liblinear code).

A batch is repeated until 0.2 s have passed (its mean time per call is the run's),
best of ``--repeats`` runs interleaved over the four; predictions per second = rows /
seconds per call. Threads: ``--threads`` for Numba, BLAS and onnxruntime's intra-op
pool; scikit-learn's libsvm predict is serial C.

Precision (untimed): on the whole test file, each graph's decision values against
dualsvm's: the largest absolute difference, relative to the largest |decision value|,
and the labels that differ; and for a9a RBF trained with probability=True, the
largest difference of the probabilities.

Run from the repository root, on a quiet machine::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_serving.py  # results/serving.{json,md}
    python benchmarks/bench_serving.py --quick     # ijcnn1's first 2000 rows, no files
"""

import argparse
import json
import time
import warnings
from importlib.metadata import version

import numpy as np
import onnxruntime
from threadpoolctl import threadpool_limits

import dualsvm
import dualsvm.onnx

from common import RESULTS_DIR, load, load_average, machine_lines, new_record, thread_pools

BATCHES = (1, 100, 10_000)
MIN_SECONDS = 0.2
PATHS = ("dualsvm", "onnxruntime float32", "onnxruntime float64", "scikit-learn")


def models(quick):
    """{name: (unfitted estimator, public set, rows or None)}."""
    if quick:
        return {"ijcnn1[:2000] RBF": (dualsvm.SVC(C=10, gamma=1 / 22), "ijcnn1", 2000)}
    return {
        "a9a linear (LinearSVC)": (dualsvm.LinearSVC(C=1.0), "a9a", None),
        "a9a RBF (SVC)": (dualsvm.SVC(C=1.0, gamma=1 / 123), "a9a", None),
        "ijcnn1 RBF (SVC)": (dualsvm.SVC(C=10.0, gamma=1 / 22), "ijcnn1", None),
    }


def load_dense(name, rows):
    """A public set's training rows (X, y) and test rows, dense; the first ``rows`` of
    each when given."""
    (X, y), (X_test, _) = load(name), load(name, "test")
    if rows:
        X, y, X_test = X[:rows], y[:rows], X_test[:rows]
    return X.toarray(), y, X_test.toarray()


def session(model, dtype, threads):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    onx = dualsvm.onnx.to_onnx(model, np.zeros((1, model.n_features_in_), dtype=dtype),
                               options={id(model): {"zipmap": False}})
    return onnxruntime.InferenceSession(onx.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


def predictors(model, threads):
    """{path: predict(X64, X32) -> (labels, decision values or None)}."""
    exported = model.to_sklearn()
    s32, s64 = session(model, np.float32, threads), session(model, np.float64, threads)
    return {
        "dualsvm": lambda X, X32: (model.predict(X), None),
        "onnxruntime float32": lambda X, X32: tuple(s32.run(None, {"X": X32})),
        "onnxruntime float64": lambda X, X32: tuple(s64.run(None, {"X": X})),
        "scikit-learn": lambda X, X32: (exported.predict(X), None),
    }


def seconds_per_call(predict, X, X32, n):
    """Mean seconds of predict on batches of n rows, repeated for MIN_SECONDS (batches
    taken in turn from X so that a single row is not the same every call)."""
    starts = range(0, X.shape[0] - n + 1, n) if n < X.shape[0] else [0]
    calls, start_time = 0, time.perf_counter()
    for start in _cycle(starts):
        predict(X[start:start + n], X32[start:start + n])
        calls += 1
        elapsed = time.perf_counter() - start_time
        if elapsed >= MIN_SECONDS:
            return elapsed / calls


def _cycle(values):
    while True:
        yield from values


def timings(model, X, threads, repeats):
    """{batch: {path: predictions per second (best of repeats)}}."""
    X32 = X.astype(np.float32)
    paths = predictors(model, threads)
    for predict in paths.values():  # warm up: compilation, first calls
        predict(X[:100], X32[:100])
    result = {}
    for n in BATCHES:
        n_rows = min(n, X.shape[0])
        best = {}
        for _ in range(repeats):
            for path, predict in paths.items():
                t = seconds_per_call(predict, X, X32, n_rows)
                best[path] = min(best.get(path, np.inf), t)
        result[n] = {path: n_rows / t for path, t in best.items()}
        print(f"  {n} rows: " + ", ".join(f"{p} {v:,.0f}/s" for p, v in result[n].items()),
              flush=True)
    return result


def decision_columns(model, X):
    """dualsvm's decision values in the layout of the graph's second output."""
    dec = model.decision_function(X)
    if dec.ndim == 1 and isinstance(model, dualsvm.SVC):
        return np.column_stack([-dec, dec])
    return dec.reshape(len(dec), -1)


def precision(model, X, threads, probability=False):
    """How each graph's outputs differ from dualsvm's on X."""
    labels = model.predict(X)
    expected = model.predict_proba(X) if probability else decision_columns(model, X)
    scale = float(np.max(np.abs(expected)))
    out = {"rows": X.shape[0]}
    for dtype in (np.float32, np.float64):
        got_labels, got = session(model, dtype, threads).run(None, {"X": X.astype(dtype)})
        error = np.abs(got.astype(np.float64) - expected)
        out[np.dtype(dtype).name] = {
            "max_abs_error": float(error.max()), "max_abs_value": scale,
            "max_relative_error": float(error.max() / scale),
            "labels_differing": int(np.sum(got_labels != labels))}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    record = new_record()
    rows, accuracy = [], {}
    for name, (model, dataset, n) in models(args.quick).items():
        X, y, X_test = load_dense(dataset, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        n_sv = int(model.support_.shape[0]) if hasattr(model, "support_") else None
        print(f"{name}: {X.shape[0]} x {X.shape[1]}, {n_sv or 'linear'} SVs", flush=True)
        row = {"model": name, "n_train": X.shape[0], "n_features": X.shape[1], "n_SV": n_sv,
               "n_test": X_test.shape[0], "precision": precision(model, X_test, max(args.threads)),
               "predictions_per_second": {}}
        for threads in args.threads:
            import numba

            numba.set_num_threads(threads)
            with threadpool_limits(threads):
                print(f" threads {threads}", flush=True)
                row["predictions_per_second"][threads] = timings(model, X_test, threads,
                                                                 args.repeats)
        rows.append(row)
        if name.startswith("a9a RBF"):  # the probability model: precision only
            prob = dualsvm.SVC(C=1.0, gamma=1 / 123, probability=True, random_state=0).fit(X, y)
            accuracy["a9a RBF (SVC, probability=True)"] = precision(prob, X_test, max(args.threads),
                                                                    probability=True)
    results = {**record, "threads": thread_pools(),
        "versions": {p: version(p) for p in ("onnxruntime", "onnx", "skl2onnx")},
        "settings": {"batches": BATCHES, "min_seconds": MIN_SECONDS, "repeats": args.repeats,
                     "threads": args.threads},
        "rows": rows, "probability_precision": accuracy,
        "load_average_at_end": load_average()}
    text = markdown(results)
    print(text)
    if not args.quick:
        RESULTS_DIR.mkdir(exist_ok=True)
        (RESULTS_DIR / "serving.json").write_text(json.dumps(results, indent=1))
        (RESULTS_DIR / "serving.md").write_text(text)
        speed, accuracy = rst_tables(results)  # included by docs/user_guide/deploying.rst
        (RESULTS_DIR / "serving_speed.rst").write_text(speed)
        (RESULTS_DIR / "serving_precision.rst").write_text(accuracy)


def rst_tables(results):
    """The docs' two tables (reStructuredText): predictions per second with the most
    threads, and the graphs' precision."""
    threads = max(results["settings"]["threads"])
    speed = [["model", "rows per call", *PATHS]]
    for r in results["rows"]:
        by_threads = {int(t): by_batch for t, by_batch in r["predictions_per_second"].items()}
        for n, rates in by_threads[threads].items():
            speed.append([r["model"], f"{int(n):,}", *(f"{rates[p]:,.0f}" for p in PATHS)])
    precision_rows = [["model", "test rows", "float32: max error / max value",
                       "float32: labels differing", "float64: max error / max value",
                       "float64: labels differing"]]
    precisions = [(r["model"], r["precision"]) for r in results["rows"]]
    precisions += list(results["probability_precision"].items())
    for name, p in precisions:
        f32, f64 = p["float32"], p["float64"]
        precision_rows.append([name, f"{p['rows']:,}", f"{f32['max_relative_error']:.1e}",
                               str(f32["labels_differing"]), f"{f64['max_relative_error']:.1e}",
                               str(f64["labels_differing"])])
    return _list_table(speed, f"{threads} threads; {results['date']}"), \
        _list_table(precision_rows, results["date"])


def _list_table(rows, caption):
    lines = [f".. list-table:: {caption}", "   :header-rows: 1", ""]
    for row in rows:
        lines += [f"   * - {row[0]}"] + [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines) + "\n"


def markdown(results):
    s = results["settings"]
    v = results["versions"]
    lines = [
        "# Serving: predictions per second, and what a float32 ONNX graph loses",
        "",
        f"Command: `{results['command']}`  ",
        f"Date: {results['date']}  ",
        *machine_lines(results["machine"]),
        f"Load average (1, 5, 15 min) at end: {results['load_average_at_end']}  ",
        f"onnxruntime {v['onnxruntime']}, onnx {v['onnx']}, skl2onnx {v['skl2onnx']}  ",
        f"Settings: dense float64 rows of the test file (float32 for the float32 graph, "
        f"converted outside the clock); each batch repeated for {s['min_seconds']} s, best of "
        f"{s['repeats']} interleaved runs; threads: Numba, BLAS and onnxruntime's intra-op "
        "pool (scikit-learn's libsvm predict is serial). Run under an exclusive CPU lock.",
        "",
        "## Predictions per second",
        "",
        "| model | SVs | threads | rows per call | " + " | ".join(PATHS) +
        " | onnxruntime float32 / dualsvm | scikit-learn / dualsvm |",
        "|---|---:|---:|---:|" + "---:|" * (len(PATHS) + 2),
    ]
    for r in results["rows"]:
        for threads, by_batch in r["predictions_per_second"].items():
            for n, rates in by_batch.items():
                cells = " | ".join(f"{rates[p]:,.0f}" for p in PATHS)
                lines.append(
                    f"| {r['model']} | {r['n_SV'] or '-'} | {threads} | {int(n):,} | {cells} | "
                    f"{rates['onnxruntime float32'] / rates['dualsvm']:.2f} | "
                    f"{rates['scikit-learn'] / rates['dualsvm']:.2f} |")
    lines += [
        "",
        "## Precision of the ONNX graphs (whole test file)",
        "",
        "Largest |graph - dualsvm| over the decision values (probabilities for the last "
        "model), relative to the largest |value|; labels that differ from dualsvm's.",
        "",
        "| model | test rows | float32: max error / max value | float32: labels differing | "
        "float64: max error / max value | float64: labels differing |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    precisions = [(r["model"], r["precision"]) for r in results["rows"]]
    precisions += list(results["probability_precision"].items())
    for name, p in precisions:
        f32, f64 = p["float32"], p["float64"]
        lines.append(
            f"| {name} | {p['rows']:,} | {f32['max_relative_error']:.1e} | "
            f"{f32['labels_differing']} ({f32['labels_differing'] / p['rows']:.4%}) | "
            f"{f64['max_relative_error']:.1e} | {f64['labels_differing']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
