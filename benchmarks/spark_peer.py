"""Spark MLlib's LinearSVC as a peer: train it on an svmlight file, time the fit.

Objective equivalence
---------------------
dualsvm (and LIBLINEAR ``-s 3``) with ``loss='hinge'`` and no bias minimise

    P(w) = 1/2 ||w||^2 + C sum_i max(0, 1 - y_i w'x_i).

Spark's ``LinearSVC`` minimises, in the primal with OWL-QN (L-BFGS here, since
its L1 part is zero),

    S(w, b) = (1/n) sum_i max(0, 1 - y_i (w'x_i + b)) + (regParam/2) ||w||^2.

With ``regParam = 1/(C n)``, ``S = P / (n C)`` when b = 0: the objectives are
proportional and have the same minimiser. Spark's intercept is unregularised
while ours is an augmented (regularised) feature, so the two are only compared
without one: ``fitIntercept=False`` here, ``fit_intercept=False`` in dualsvm.
``standardization=False`` keeps the penalty on w itself (Spark still trains in
a scaled space internally, with the penalty rescaled to match). Spark wants
labels in {0, 1}: the larger of the file's two labels becomes 1 (our +1).

Caveats, from Spark's source: a column with zero standard deviation gets
coefficient 0 (a constant non-zero column would have a non-zero coefficient in
P's minimiser; :func:`spark_linear_svc` counts such columns in its notes), and
the hinge loss is not differentiable, so L-BFGS may stop on a failed line
search well before ``max_iter``. Spark's objective history is S; multiply by
n C for P's scale (:func:`hinge_primal` computes P from the model instead).

Indices: svmlight files are 1-based; Spark's ``libsvm`` reader and
:func:`load_svmlight` (``zero_based=False``) both shift them to 0-based, so
Spark's coefficient j is column j of ``X``.

Setup (JVM start, reading, label mapping, caching and counting) is outside the
clock; only ``LinearSVC.fit`` is timed, which includes Spark's own per-fit work
(feature statistics pass, blocking of the instances) as any Spark user pays it.

Manual check::

    python benchmarks/spark_peer.py /path/to/a9a.bz2 --C 1 --max-iter 100 --tol 1e-6
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# pyspark 4.x needs Java 17+; 3.5 is the last line that runs on Java 8 and 11.
PYSPARK_FOR_JAVA17 = "4.0.5"
PYSPARK_FOR_OLD_JAVA = "3.5.9"


def java_version(java):
    """Major version of the Java runtime ``java`` (e.g. 17), or None if it does not run."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if out.returncode != 0 or match is None:
        return None
    major, minor = int(match.group(1)), match.group(2)
    return int(minor) if major == 1 and minor else major  # "1.8.0" is Java 8


def _find_java():
    home = os.environ.get("JAVA_HOME")
    candidates = [str(Path(home) / "bin" / "java")] if home else []
    candidates.append(shutil.which("java"))
    for java in filter(None, candidates):
        if java_version(java) is not None:
            return os.path.realpath(java)
    return None


def ensure_java():
    """Path of a working ``java``; installs Debian's ``default-jre-headless`` if none.

    Sets ``JAVA_HOME`` when unset so that pyspark launches the same runtime.
    Idempotent: an existing runtime is reused.

    Returns
    -------
    str
        Resolved path of the ``java`` executable.
    """
    java = _find_java()
    if java is None:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-q"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-q", "default-jre-headless"],
                       check=True, env=env)
        java = _find_java()
        if java is None:
            raise RuntimeError("default-jre-headless installed but no java runs")
    os.environ.setdefault("JAVA_HOME", str(Path(java).parent.parent))
    return java


def ensure_pyspark(java=None):
    """Import pyspark, pip-installing a version that runs on the Java found if needed.

    Parameters
    ----------
    java : str, optional
        Java executable; by default :func:`ensure_java`'s.

    Returns
    -------
    str
        The pyspark version.
    """
    major = java_version(java or ensure_java())
    try:
        import pyspark
    except ImportError:
        pin = PYSPARK_FOR_JAVA17 if major and major >= 17 else PYSPARK_FOR_OLD_JAVA
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"pyspark=={pin}"],
                       check=True)
        import pyspark
    if int(pyspark.__version__.split(".")[0]) >= 4 and major is not None and major < 17:
        raise RuntimeError(f"pyspark {pyspark.__version__} needs Java 17+, found Java {major}")
    return pyspark.__version__


_SESSION = {}   # threads -> SparkSession
_DATA = {}      # (path, n_features, threads) -> prepared data, one entry


def _log4j_config():
    # Spark logs INFO/WARN lines while the JVM starts, before setLogLevel can act.
    path = Path(tempfile.gettempdir()) / "spark_peer_log4j2.properties"
    if not path.exists():
        path.write_text("rootLogger.level = error\n"
                        "rootLogger.appenderRef.stderr.ref = console\n"
                        "appender.console.type = Console\n"
                        "appender.console.name = console\n"
                        "appender.console.target = SYSTEM_ERR\n"
                        "appender.console.layout.type = PatternLayout\n"
                        "appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n")
    return path


def _driver_memory(path):
    """2 GiB plus ~10x the data's text size (40x for .bz2), at most half the RAM."""
    size = os.path.getsize(path) * (40 if str(path).endswith(".bz2") else 10)
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{max(2048, min(2048 + size // 2**20, ram // 2**21))}m"


def spark_session(threads=2, driver_memory="2g"):
    """A SparkSession on ``local[threads]``, quiet, UI off, bound to the loopback.

    Reused across calls; a different ``threads`` stops the old session. The JVM
    outlives a stopped session, so ``driver_memory`` only acts on the first start.
    """
    if threads in _SESSION:
        return _SESSION[threads]
    ensure_java()
    ensure_pyspark()
    from pyspark.sql import SparkSession

    for old in list(_SESSION):
        _SESSION.pop(old).stop()
        _DATA.clear()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    log = f"-Dlog4j2.configurationFile=file:{_log4j_config()}"
    spark = (SparkSession.builder.master(f"local[{threads}]").appName("dualsvm-spark-peer")
             .config("spark.driver.memory", driver_memory)
             .config("spark.driver.extraJavaOptions", log)
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", str(threads))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    _SESSION[threads] = spark
    return spark


def _jvm_cpu_seconds(spark):
    try:
        import psutil

        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        times = psutil.Process(pid).cpu_times()
        return times.user + times.system
    except Exception:  # noqa: BLE001 - CPU time is optional information
        return float("nan")


def _prepared(spark, path, n_features, threads):
    """The file as a cached (label in {0,1}, features) DataFrame, with its facts."""
    key = (os.path.realpath(path), n_features, threads)
    if key in _DATA:
        return _DATA[key]
    from pyspark.ml.stat import Summarizer
    from pyspark.sql import functions as F

    for old in _DATA.values():
        old["df"].unpersist()
    _DATA.clear()
    reader = spark.read.format("libsvm")
    if n_features is not None:
        reader = reader.option("numFeatures", int(n_features))
    raw = reader.load(str(path))
    labels = sorted(r[0] for r in raw.select("label").distinct().collect())
    if len(labels) != 2:
        raise ValueError(f"LinearSVC is binary; {path} has labels {labels}")
    # One partition per thread, so local[threads] keeps every thread busy.
    df = (raw.select(F.when(F.col("label") == labels[1], 1.0).otherwise(0.0).alias("label"),
                     "features")
          .repartition(threads).cache())
    n = df.count()
    stats = df.select(Summarizer.metrics("mean", "std").summary(F.col("features"))
                      .alias("s")).first()["s"]
    mean, std = stats["mean"].toArray(), stats["std"].toArray()
    prepared = {"df": df, "n": n, "d": len(mean), "labels": labels,
                "constant_nonzero": int(np.sum((std == 0) & (mean != 0)))}
    _DATA[key] = prepared
    return prepared


def spark_linear_svc(path, C, *, max_iter=100, tol=1e-6, n_features=None, threads=2,
                     driver_memory=None):
    """Train Spark's LinearSVC (hinge, no intercept) on an svmlight file; time the fit.

    Parameters
    ----------
    path : str or Path
        svmlight/LIBSVM file (Spark reads ``.bz2`` directly).
    C : float
        Our C; Spark gets ``regParam = 1 / (C n)``.
    max_iter, tol : int, float
        Spark's ``maxIter`` and ``tol`` (L-BFGS: relative change of the objective).
    n_features : int, optional
        Number of columns (``numFeatures``), so that Spark's and our widths agree.
    threads : int
        Spark master ``local[threads]``; also the number of partitions.
    driver_memory : str, optional
        JVM heap, e.g. "4g"; by default sized from the file.

    Returns
    -------
    dict
        ``seconds`` (wall time of ``fit`` alone), ``cpu_seconds`` (JVM and this
        process over the fit), ``coef`` (ndarray, column j = our column j),
        ``intercept`` (0.0), ``iterations``, ``objective_history`` (Spark's scale S),
        ``primal_from_history`` (last S times n C), ``n_samples``, ``n_features``,
        ``reg_param``, ``status`` and ``notes``.
    """
    from pyspark.ml.classification import LinearSVC

    spark = spark_session(threads, driver_memory or _driver_memory(path))
    data = _prepared(spark, path, n_features, threads)
    reg_param = 1.0 / (C * data["n"])
    estimator = LinearSVC(regParam=reg_param, maxIter=max_iter, tol=tol,
                          fitIntercept=False, standardization=False)
    cpu0, jvm0 = time.process_time(), _jvm_cpu_seconds(spark)
    start = time.perf_counter()
    model = estimator.fit(data["df"])
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu0 + _jvm_cpu_seconds(spark) - jvm0

    iterations, history = None, None
    if model.hasSummary:
        summary = model.summary
        # pyspark 4.0's LinearSVCModel.summary lacks @property: it is a method there.
        summary = summary() if callable(summary) else summary
        iterations = summary.totalIterations
        history = list(summary.objectiveHistory)
    notes = []
    if data["constant_nonzero"]:
        notes.append(f"{data['constant_nonzero']} constant non-zero column(s): "
                     "Spark fixes their coefficients at 0")
    status = "unknown"
    if iterations is not None:
        status = "max_iter" if iterations >= max_iter else "stopped"
        notes.append(f"{iterations} of max_iter={max_iter} iterations")
    return {
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "coef": model.coefficients.toArray().astype(np.float64),
        "intercept": 0.0,
        "iterations": iterations,
        "objective_history": history,
        "primal_from_history": history[-1] * data["n"] * C if history else None,
        "n_samples": data["n"],
        "n_features": data["d"],
        "labels": data["labels"],
        "reg_param": reg_param,
        "status": status,
        "notes": "; ".join(notes),
    }


def load_svmlight(path, n_features=None):
    """X (CSR) and y from an svmlight file, with Spark's index shift (1-based file)."""
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(str(path), n_features=n_features, zero_based=False)
    return X, y


def hinge_primal(X, y, coef, C):
    """Our primal 1/2 ||w||^2 + C sum_i max(0, 1 - y_i x_i'w), no bias.

    Parameters
    ----------
    X : sparse matrix or ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Two label values; the larger one is +1 (as for Spark and ``classes_[1]``).
    coef : ndarray of shape (d,)
    C : float

    Returns
    -------
    float
    """
    labels = np.unique(y)
    if len(labels) != 2:
        raise ValueError(f"binary labels expected, got {labels}")
    signs = np.where(y == labels[1], 1.0, -1.0)
    w = np.asarray(coef, dtype=np.float64).ravel()
    margins = signs * np.asarray(X @ w).ravel()
    return 0.5 * float(w @ w) + C * float(np.maximum(0.0, 1.0 - margins).sum())


def main(argv=None):
    """Fit Spark and dualsvm on one file; print times and primals on our scale."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--max-iter", type=int, default=100)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-features", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=2,
                        help="Spark fits on the same cached data (the first warms the JIT)")
    args = parser.parse_args(argv)

    java = ensure_java()
    print(f"java: {java} (Java {java_version(java)}), pyspark {ensure_pyspark(java)}")
    X, y = load_svmlight(args.file, args.n_features)
    n_features = args.n_features or X.shape[1]

    runs = [spark_linear_svc(args.file, args.C, max_iter=args.max_iter, tol=args.tol,
                             n_features=n_features, threads=args.threads)
            for _ in range(args.repeat)]
    run = runs[-1]
    if run["n_samples"] != X.shape[0] or run["coef"].shape[0] != X.shape[1]:
        raise RuntimeError(f"Spark read {run['n_samples']} x {run['coef'].shape[0]}, "
                           f"sklearn {X.shape}")
    spark_primal = hinge_primal(X, y, run["coef"], args.C)
    print(f"data: n={X.shape[0]} d={X.shape[1]} C={args.C} regParam={run['reg_param']:.6g}")
    print(f"spark: fit seconds {[round(r['seconds'], 3) for r in runs]}, "
          f"cpu {run['cpu_seconds']:.2f} s, iterations {run['iterations']}, "
          f"status {run['status']} ({run['notes']})")
    print(f"spark: primal (ours, from coef) {spark_primal:.10g}, "
          f"from its history x nC {run['primal_from_history']}")

    import dualsvm

    start = time.perf_counter()
    ours = dualsvm.LinearSVC(C=args.C, loss="hinge", fit_intercept=False, tol=1e-6,
                             gap_tol=1e-6, max_iter=100_000).fit(X, y)
    seconds = time.perf_counter() - start
    primal = float(ours.primal_[0])
    print(f"dualsvm: seconds {seconds:.3f}, primal {primal:.10g}, gap {ours.gap_[0]:.3g}, "
          f"epochs {ours.n_iter_}, status {ours.status_[0]}")
    print(f"spark primal / dualsvm primal - 1 = {spark_primal / primal - 1:.3e}")
    print(f"primal of dualsvm's coef_ by hinge_primal: "
          f"{hinge_primal(X, y, ours.coef_[0], args.C):.10g}")


if __name__ == "__main__":
    main()
