"""Divide and conquer (``SVC(solver='dc')``): the exact model equals SMO's, early
prediction's rule and certificate, the parameters refused where they do not apply, its
model files, paths, searches and stops; kernel k-means; loading a converted dataset."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

import dualsvm.training.divide_conquer as divide_conquer
from dualsvm import SVC, SVCCV, SVR, NuSVC, NuSVR, OneClassSVM, c_path, export_libsvm, \
    load_model, save_model
from dualsvm.cli import main
from dualsvm.data.svmlight import read_svmlight
from dualsvm.kernels import make_kernel
from dualsvm.kernels.clustering import KernelClusters, kernel_kmeans
from dualsvm.outofcore import DiskDataset, convert
from reference import one_vs_one_objectives

DC = {"solver": "dc", "random_state": 0}


def assert_same_optimum(ours, smo):
    """Two models of the same problems, both stopped by LIBSVM's rule: their duals differ by
    less than the larger duality gap allows (each dual is within its gap of the optimum)."""
    assert ours.status_ == ["converged"] * len(ours.status_)
    allowed = np.maximum(ours.gap_, smo.gap_) * np.abs(smo.primal_) + 1e-9
    assert (np.abs(ours.dual_ - smo.dual_) <= allowed).all(), (ours.dual_, smo.dual_)


@pytest.mark.parametrize("name,C,gamma,levels", [
    ("heart_scale", 1.0, 0.1, 1), ("ijcnn1_1000.bz2", 32.0, 2.0, 2),
    ("splice_scale.bz2", 10.0, 0.01, 1)])
def test_exact_model_equals_smos(load, name, C, gamma, levels):
    X, y = load(name)
    smo = SVC(C=C, gamma=gamma, solver="smo").fit(X, y)
    ours = SVC(C=C, gamma=gamma, dc_levels=levels, dc_clusters=4, **DC).fit(X, y)
    assert_same_optimum(ours, smo)
    assert ours.solver_used_ == "dc" and ours.cluster_models_ is None
    # the certificate is the model's own: its objectives computed from scratch
    primal, dual = one_vs_one_objectives(X, y, ours, "rbf", C, gamma=gamma)[0]
    assert ours.primal_[0] == pytest.approx(primal, rel=1e-6)
    assert ours.dual_[0] == pytest.approx(dual, rel=1e-6)
    assert (ours.predict(X) == smo.predict(X)).mean() > 0.99
    levels_seen = [record["level"] for record in ours.history_[0]]
    assert levels_seen[:levels] == list(range(levels, 0, -1)) and levels_seen[-1] == 0


def test_exact_model_with_weights_multiclass_kernels_and_sparse(load):
    X, y = load_iris(return_X_y=True)
    weights = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    for kwargs in ({"kernel": "rbf", "gamma": 0.5}, {"kernel": "poly", "gamma": 0.1, "coef0": 1.0},
                   {"kernel": "linear"}, {"kernel": "sigmoid", "gamma": 0.01, "coef0": -0.5}):
        settings = dict(C=10.0, class_weight={0: 2.0, 2: 0.5}, tol=1e-4, **kwargs)
        smo = SVC(solver="smo", **settings).fit(X, y, sample_weight=weights)
        ours = SVC(dc_clusters=3, **settings, **DC).fit(X, y, sample_weight=weights)
        assert_same_optimum(ours, smo)
        np.testing.assert_array_equal(ours.predict(X), smo.predict(X))
    X, y = load("heart_scale")
    dense = SVC(gamma=0.1, **DC).fit(X.toarray(), y)
    sparse = SVC(gamma=0.1, **DC).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.decision_function(X), sparse.decision_function(X),
                               atol=1e-6)


def test_precomputed_kernel_equals_smos():
    X, y = load_iris(return_X_y=True)
    K = rbf_kernel(X, gamma=0.5)
    smo = SVC(kernel="precomputed", C=10.0, solver="smo").fit(K, y)
    ours = SVC(kernel="precomputed", C=10.0, dc_clusters=3, **DC).fit(K, y)
    assert_same_optimum(ours, smo)
    early = SVC(kernel="precomputed", C=10.0, dc_clusters=3, early_stop_level=1, **DC).fit(K, y)
    rows = SVC(C=10.0, gamma=0.5, dc_clusters=3, early_stop_level=1, **DC).fit(X, y)
    # the same seed draws the same samples: the precomputed model is the rows' model
    np.testing.assert_allclose(early.decision_function(K), rows.decision_function(X), atol=1e-6)


def _early_decision(model, X, gamma):
    """Early prediction computed directly (binary): the nearest centre in feature space of
    every row, from the kernel values against each cluster's sample points, then that
    cluster's support vectors' coefficients and bias."""
    local = model.cluster_models_[0]
    clusters = local.clusters
    K = rbf_kernel(X, clusters.points, gamma=gamma)
    distances = np.column_stack([
        1.0 - 2.0 * K[:, clusters.labels == c].mean(axis=1) +
        rbf_kernel(clusters.points[clusters.labels == c], gamma=gamma).mean()
        for c in range(clusters.n_clusters)])
    nearest = np.argmin(distances, axis=1)
    coef = -model.dual_coef_[0]  # LIBSVM's signs: positive for classes_[0]
    K_sv = rbf_kernel(X, model.support_vectors_, gamma=gamma)
    own = local.sv_part[None, :] == nearest[:, None]
    decision = (K_sv * own) @ coef + local.intercepts[nearest]
    return -decision, nearest


def test_early_prediction_is_each_rows_nearest_cluster_model(load):
    X, y = load("ijcnn1_1000.bz2")
    X = X.toarray()
    model = SVC(C=32.0, gamma=2.0, dc_clusters=4, dc_levels=2, early_stop_level=1,
                **DC).fit(X, y)
    local = model.cluster_models_[0]
    assert local.level == 1 and local.clusters.n_clusters == 4
    assert model.intercept_[0] == 0.0 and model.status_ == ["converged"]
    expected, nearest = _early_decision(model, X, 2.0)
    np.testing.assert_allclose(model.decision_function(X), expected, atol=1e-8)
    assert len(np.unique(nearest)) > 1
    # it solves the SVM of each cluster's training rows: the certificate sums theirs
    part = local.clusters.assign(X)
    duals = sum(SVC(C=32.0, gamma=2.0, solver="smo", tol=1e-5).fit(X[part == c], y[part == c]).dual_[0]
                for c in range(4) if len(np.unique(y[part == c])) == 2)
    assert model.dual_[0] == pytest.approx(duals, rel=2 * model.gap_[0])
    assert model.gap_[0] < 1e-3
    assert [r["level"] for r in model.history_[0]] == [2, 1]
    assert [r["parts"] for r in model.history_[0]] == [16, 4]
    assert (model.predict(X) == y).mean() > 0.97


def test_early_prediction_multiclass_and_model_files(tmp_path, load):
    X, y = load_iris(return_X_y=True)
    model = SVC(C=10.0, dc_clusters=3, early_stop_level=1, **DC).fit(X, y)
    assert len(model.cluster_models_) == 3
    assert (model.predict(X) == y).mean() > 0.9
    path = str(tmp_path / "early.npz")
    save_model(model, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.cluster_models_[1].level == 1
    with pytest.raises(Exception, match="early-prediction model"):
        export_libsvm(model, str(tmp_path / "early.txt"))
    X, y = load("heart_scale")
    binary = SVC(gamma=0.1, dc_clusters=3, early_stop_level=1, **DC).fit(X, y)
    save_model(binary, path)
    np.testing.assert_array_equal(load_model(path).decision_function(X),
                                  binary.decision_function(X))


@pytest.mark.parametrize("kwargs,message", [
    ({"solver": "smo", "dc_levels": 2}, "dc_levels=2: divide and conquer's parameters apply "
                                         "to solver='dc' only"),
    ({"solver": "auto", "early_stop_level": 1}, "solver='dc' only"),
    ({"solver": "ws", "dc_clusters": 8}, "solver='dc' only"),
    ({"solver": "dc", "early_stop_level": 2}, "early_stop_level=2 is above dc_levels=1"),
    ({"solver": "dc", "early_stop_level": 1, "probability": True}, "probability"),
    ({"solver": "dc", "dc_clusters": 1}, "dc_clusters"),
    ({"solver": "dc", "dc_levels": 0}, "dc_levels"),
])
def test_parameters_refused_where_they_do_not_apply(load, kwargs, message):
    X, y = load("heart_scale")
    with pytest.raises(ValueError, match=message):
        SVC(**kwargs).fit(X, y)
    if "probability" not in kwargs and "dc_clusters" not in kwargs and \
            kwargs.get("dc_levels") != 0:
        with pytest.raises(ValueError, match=message):
            c_path(SVC(**kwargs), X, y, [1.0, 2.0])


def test_path_and_search(load):
    X, y = load("heart_scale")
    Cs = [0.5, 2.0, 8.0]
    ours = c_path(SVC(gamma=0.1, **DC), X, y, Cs)
    smo = c_path(SVC(gamma=0.1, solver="smo"), X, y, Cs)
    for a, b in zip(ours, smo):
        assert_same_optimum(a, b)
    assert [r["level"] for r in ours[1].history_[0]][0] == 0  # warm: no level
    search = SVCCV(Cs=[0.5, 2.0], gammas=[0.1], solver="dc", cv=3).fit(X, y)
    assert search.best_estimator_.solver_used_ == "dc"


def test_stops_return_the_current_model_with_its_certificate(load, monkeypatch):
    X, y = load("ijcnn1_1000.bz2")

    def assert_usable(model):
        primal, dual = one_vs_one_objectives(X, y, model, "rbf", 32.0, gamma=2.0)[0]
        assert model.primal_[0] == pytest.approx(primal, rel=1e-6)
        assert model.dual_[0] == pytest.approx(dual, rel=1e-6, abs=1e-9)

    settings = dict(C=32.0, gamma=2.0, dc_clusters=4, dc_levels=2, **DC)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        model = SVC(time_limit=0.0, **settings).fit(X, y)
    assert model.status_ == ["time_limit"]
    assert_usable(model)
    # a callback stops after the first level: the model is the whole problem's at its point
    model = SVC(callback=lambda record: True, **settings).fit(X, y)
    assert model.status_ == ["callback"] and model.gap_[0] > 1e-3
    assert_usable(model)
    # Ctrl-C inside a part's solver stops the whole fit
    run = divide_conquer.run_epochs
    calls = []

    def interrupted_after_five(solver, problem, stopping):
        result = run(solver, problem, stopping)
        calls.append(1)
        if len(calls) == 5:
            result.status = "interrupted"
        return result

    monkeypatch.setattr(divide_conquer, "run_epochs", interrupted_after_five)
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        model = SVC(**settings).fit(X, y)
    assert model.status_ == ["interrupted"]
    assert_usable(model)
    monkeypatch.undo()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = SVC(max_iter=3, **settings).fit(X, y)
    assert model.status_ == ["max_iter"]
    assert_usable(model)


def test_verbose_trace_names_the_levels(load, capsys):
    X, y = load("heart_scale")
    SVC(verbose=3, dc_clusters=3, dc_levels=2, **DC).fit(X, y)
    err = capsys.readouterr().err
    assert "stopped: converged" in err


def test_kernel_kmeans_finds_separated_clusters():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 5.0]])
    X = np.vstack([c + 0.3 * rng.standard_normal((50, 2)) for c in centres])
    truth = np.repeat(np.arange(3), 50)
    kernel = make_kernel("rbf", gamma=0.5)
    labels = kernel_kmeans(kernel(X, X), 3, rng)
    assert len(np.unique(labels)) == 3
    assert all(len(np.unique(labels[truth == c])) == 1 for c in range(3))
    clusters = KernelClusters.fit(kernel, X, np.arange(0, 150, 3), 3, rng)
    assigned = clusters.assign(X)
    assert all(len(np.unique(assigned[truth == c])) == 1 for c in range(3))
    np.testing.assert_array_equal(clusters.assign(sp.csr_matrix(X)), assigned)


def test_load_a_converted_dataset(tmp_path, data_dir):
    X, y = read_svmlight(data_dir / "heart_scale")
    path = str(tmp_path / "heart")
    convert([str(data_dir / "heart_scale")], path, block_mb=0.002, shuffle=False)
    dataset = DiskDataset(path)
    assert dataset.n_blocks > 1
    Xs, ys = dataset.load()
    assert sp.issparse(Xs)
    np.testing.assert_array_equal(Xs.toarray(), X.toarray())
    np.testing.assert_array_equal(ys, y)
    Xd, yd = dataset.load(dense=True)
    assert isinstance(Xd, np.ndarray) and Xd.flags.c_contiguous
    np.testing.assert_array_equal(Xd, X.toarray())
    model = SVC(gamma=0.1, **DC).fit(Xd, yd)
    assert model.status_ == ["converged"]


def test_command_line_chooses_the_kernel_solver(tmp_path, data_dir, capsys):
    data = str(data_dir / "heart_scale")
    for solver in ("smo", "ws", "cgd", "dcd", "pgd", "auto", "dc"):
        path = str(tmp_path / f"{solver}.model")
        assert main(["train", "-q", "-t", "2", "-g", "0.1", "--kernel-solver", solver, data,
                     path]) == 0
        assert load_model(path).solver_used_ == ("smo" if solver == "auto" else solver)
    early = str(tmp_path / "early.model")
    assert main(["train", "-q", "-t", "2", "-g", "0.1", "--kernel-solver", "dc", "--dc-clusters",
                 "3", "--dc-levels", "2", "--early-stop-level", "1", data, early]) == 0
    model = load_model(early)
    assert model.cluster_models_[0].level == 1
    assert main(["predict", "-q", data, early, str(tmp_path / "out")]) == 0
    X, _ = read_svmlight(data)
    predicted = np.loadtxt(tmp_path / "out")
    np.testing.assert_array_equal(predicted, model.predict(X))
    directory = str(tmp_path / "heart")
    assert main(["convert", "-q", data, directory]) == 0
    assert main(["train", "-q", "-t", "2", "-g", "0.1", directory, str(tmp_path / "d.model")]) == 0
    capsys.readouterr()
    for argv, message in [
            (["--kernel-solver", "newton"], "solver must be one of"),
            (["--kernel-solver", "smo", "--dc-levels", "2"], "--dc-levels configures divide"),
            (["--early-stop-level", "1"], "--early-stop-level configures divide"),
            (["-s", "3", "--kernel-solver", "smo"], "--kernel-solver is for -s 0"),
            (["--kernel-solver", "dc", "--early-stop-level", "2"], "above dc_levels=1"),
            (["--kernel-solver", "dc", "--early-stop-level", "1", "-b", "1"], "probability")]:
        assert main(["train", "-t", "2", *argv, data, str(tmp_path / "x.model")]) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not os.path.exists(tmp_path / "x.model")


def test_parts_solved_by_worker_threads_equal_the_serial_ones(load, monkeypatch):
    X, y = load("ijcnn1_1000.bz2")
    settings = dict(C=32.0, gamma=2.0, dc_clusters=4, early_stop_level=1, **DC)
    serial = SVC(**settings).fit(X, y)
    monkeypatch.setattr(divide_conquer, "PARALLEL_MIN_ROWS", 0)
    workers = SVC(**settings).fit(X, y)
    np.testing.assert_array_equal(workers.dual_coef_.toarray(), serial.dual_coef_.toarray())
    np.testing.assert_array_equal(workers.cluster_models_[0].intercepts,
                                  serial.cluster_models_[0].intercepts)
    assert workers.dual_[0] == serial.dual_[0]
    exact = SVC(**{**settings, "early_stop_level": None}).fit(X, y)
    assert exact.status_ == ["converged"] and exact.gap_[0] < 1e-3


def test_divide_and_conquer_is_for_c_svc_only():
    X, y = load_iris(return_X_y=True)
    for estimator in (NuSVC, SVR, NuSVR, OneClassSVM):
        with pytest.raises(TypeError, match="solver"):
            estimator(solver="dc")
        with pytest.raises(TypeError, match="early_stop_level"):
            estimator(early_stop_level=1)
