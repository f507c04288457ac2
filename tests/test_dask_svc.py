"""dualsvm.dask.SVC on a Dask LocalCluster: in-memory SVC's model from every input kind,
binary and multi-class, with weights and every kernel; a lost worker; Ctrl-C and time
limits; bad input; the command line."""

import os
import signal

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from sklearn.datasets import load_wine  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from conftest import refuses_bad_dask_arrays  # noqa: E402
from dualsvm import SVC  # noqa: E402
from dualsvm.dask import SVC as DaskSVC  # noqa: E402
from dualsvm.dask.inputs import ArrayData  # noqa: E402
from dualsvm.dask.kernel_solver import KernelPartition, PairSolver, Partitions  # noqa: E402
from dualsvm.kernels import make_kernel  # noqa: E402
from dualsvm.outofcore import convert  # noqa: E402


def as_dask(X, parts=3):
    return da.from_array(X, chunks=(-(-X.shape[0] // parts), X.shape[1]), asarray=False)


def assert_same_model(model, local, X):
    """The in-memory model's dual to 1e-4 (per pair), its decision values (to 1e-3, what
    LIBSVM's tolerance leaves) and predictions, and its certificate (the gap LIBSVM's
    tolerance leaves, that of the in-memory model)."""
    np.testing.assert_allclose(model.dual_, local.dual_, rtol=1e-4)
    same_shape = model.to_local().set_params(decision_function_shape=local.decision_function_shape)
    np.testing.assert_allclose(same_shape.decision_function(X), local.decision_function(X),
                               atol=1e-3)
    assert np.all(model.dual_ <= model.primal_ * (1 + 1e-12))
    assert np.all(model.gap_ <= 2 * local.gap_ + 1e-6) and set(model.status_) == {"converged"}
    np.testing.assert_array_equal(model.predict(as_dask(X)).compute(), local.predict(X))


def wine():
    X, y = load_wine(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_binary_with_class_and_sample_weights_is_the_in_memory_model(client, load, layout):
    X, y = load("ijcnn1_1000.bz2")
    X = X.toarray() if layout == "dense" else X
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    weight[::17] = 0.0  # rows left out
    params = dict(C=4.0, gamma=2.0, class_weight="balanced", tol=1e-4)
    local = SVC(**params).fit(X, y, sample_weight=weight)
    model = DaskSVC(**params).fit(as_dask(X), da.from_array(y, chunks=400),
                                  sample_weight=da.from_array(weight, chunks=400))
    assert model.n_partitions_ == 3
    assert_same_model(model, local, X)
    assert len(set(model.support_) ^ set(local.support_)) <= 0.01 * len(local.support_)
    assert sp.issparse(model.support_vectors_) == (layout == "csr")
    decision = model.decision_function(as_dask(X))
    assert isinstance(decision, da.Array)  # lazy, every block depending on one model node
    graph = decision.__dask_graph__()
    blocks = [key for key in graph if isinstance(key, tuple) and key[0].startswith("_apply")]
    needs = graph.get_all_dependencies()
    shared = set.intersection(*(set(needs[key]) for key in blocks)) - set(blocks)
    assert len(blocks) == 3 and len(shared) == 1
    assert isinstance(graph[shared.pop()].value, SVC)
    np.testing.assert_allclose(decision.compute(), local.decision_function(X), atol=1e-3)
    assert model.score(as_dask(X), y) == pytest.approx(local.score(X, y))
    records = model.history_[0]
    assert records[-1]["bytes"] > 0 and records[-1]["rebuilt"] == 0
    assert model.to_local().predict(X[:50]).tolist() == local.predict(X[:50]).tolist()


@pytest.mark.parametrize("kernel", ["linear", "poly", "sigmoid", "rbf"])
def test_every_kernel_in_three_partitions(client, load, kernel):
    """Against the in-memory working sets of the same q: the sigmoid kernel is not
    positive semi-definite, and solvers end at different stationary points (SMO's
    dual: 269.55, the working sets': 269.80)."""
    X, y = load("heart_scale")
    params = dict(C=2.0, kernel=kernel, gamma=0.1, coef0=0.5, degree=2, tol=1e-5)
    local = SVC(solver="ws", **params).fit(X, y)
    model = DaskSVC(working_set=128, **params).fit(as_dask(X), y)
    assert_same_model(model, local, X)


def test_multiclass_one_vs_one_is_the_in_memory_model(client):
    X, y = wine()
    params = dict(C=10.0, gamma="scale", class_weight={1: 2.0}, tol=1e-4)
    local = SVC(**params).fit(X, y)
    model = DaskSVC(decision_function_shape="ovo", **params).fit(as_dask(X, 4), y)
    assert len(model.dual_) == 3 and model.n_partitions_ == 4
    assert_same_model(model, local, X)
    assert model.to_local()._gamma == pytest.approx(local._gamma, rel=1e-12)  # from the sums
    decision = model.decision_function(as_dask(X, 4)).compute()
    assert decision.shape == (len(y), 3)
    np.testing.assert_allclose(decision, local.set_params(decision_function_shape="ovo")
                               .decision_function(X), atol=1e-3)


def test_a_block_directory_is_trained_where_its_blocks_are(client, data_dir, load, tmp_path):
    X, y = load("splice_scale.bz2")
    blocks = convert(str(data_dir / "splice_scale.bz2"), tmp_path / "splice", block_mb=0.05,
                     shuffle=False)
    params = dict(C=4.0, class_weight={1: 3.0})
    local = SVC(**params).fit(X, y)
    model = DaskSVC(n_partitions=3, **params).fit(str(blocks.path))
    assert blocks.n_blocks >= 6 and model.n_partitions_ == 3
    assert_same_model(model, local, X)
    # the support vectors are numbered as the file's rows
    assert (model.support_vectors_ != X[model.support_]).nnz == 0


def test_a_warm_start_from_the_solution_needs_no_working_set(client, load):
    """The path a divide-and-conquer level takes in (and a rebuilt partition): a is set on
    the workers and G computed there from the support vectors."""
    X, y = load("heart_scale")
    X = X.toarray()
    local = SVC(C=1.0, gamma=0.2, tol=1e-6).fit(X, y)
    data = ArrayData(as_dask(X), y, None)
    ids = [data.row_ids(k) for k in range(data.n_partitions)]
    partitions = Partitions(client, [
        (lambda k: lambda w: data.submit(client, k, w, KernelPartition, np.ones(len(ids[k])),
                                         ids[k]))(k) for k in range(data.n_partitions)], ids)
    alpha = np.zeros(len(y))
    alpha[local.support_] = np.abs(local.dual_coef_[0])
    solver = PairSolver(partitions, 1.0, -1.0, make_kernel("rbf", gamma=0.2), "hinge", 1e-3,
                        2**20, alpha=alpha)
    assert solver.violation < 1e-5 and solver.epoch()
    assert solver.finish() and solver.certificate()[1] == pytest.approx(local.dual_[0], rel=1e-9)
    assert solver.certificate()[3] == pytest.approx(local.intercept_[0], abs=1e-5)  # y = +1: 1.0


def kill_a_worker(client, epoch):
    """A callback that kills a worker of ``client`` after ``epoch`` (the nanny starts a
    new one), and the list of the killed."""
    killed = []

    def kill_one(record, model=None):
        if record["epoch"] == epoch and not killed:
            address, pid = sorted(client.run(os.getpid).items())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(address)
        return False

    return kill_one, killed


def test_a_killed_worker_loses_no_model(client, load):
    X, y = load("ijcnn1_1000.bz2")
    # tol 1e-5: the rebuilt run takes another path to the optimum than SMO's, and at
    # tol 1e-3 two such paths' decision values differed by 1.4e-3 on an AVX2 host
    params = dict(C=4.0, gamma=2.0, tol=1e-5)
    local = SVC(**params).fit(X, y)
    kill_one, killed = kill_a_worker(client, 5)
    model = DaskSVC(callback=kill_one, working_set=16, **params).fit(as_dask(X), y)
    assert killed and model.history_[0][-1]["rebuilt"] >= 1
    assert model.n_iter_[0] > 5
    assert_same_model(model, local, X)


def test_ctrl_c_and_the_time_limit_return_the_current_model_with_its_gap(client, load):
    X, y = load("ijcnn1_1000.bz2")

    def interrupt(record, model=None):
        if record["epoch"] == 3:
            raise KeyboardInterrupt

    with pytest.warns(ConvergenceWarning, match="interrupted"):
        model = DaskSVC(C=4.0, gamma=2.0, working_set=16, callback=interrupt).fit(as_dask(X), y)
    assert model.status_ == ["interrupted"] and model.n_iter_[0] == 3
    local = SVC(C=4.0, gamma=2.0).fit(X, y)
    assert 0 < model.dual_[0] <= local.dual_[0] <= model.primal_[0]
    # the certificate is that of the returned model: its primal recomputed here
    f = model.to_local().decision_function(X)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    coef = model.dual_coef_.toarray()[0]
    K = make_kernel("rbf", gamma=2.0)(model.support_vectors_, model.support_vectors_)
    primal = 0.5 * coef @ K @ coef + 4.0 * np.maximum(0.0, 1.0 - signs * f).sum()
    assert primal == pytest.approx(model.primal_[0], rel=1e-9)
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        limited = DaskSVC(C=4.0, gamma=2.0, time_limit=0.0).fit(as_dask(X), y)
    assert limited.status_ == ["time_limit"] and np.isfinite(limited.gap_[0])


def test_bad_input_is_refused_with_a_clear_message(client, load, data_dir, tmp_path):
    X, y = load("heart_scale")
    dense = X.toarray()
    refuses_bad_dask_arrays(DaskSVC, dense, y)
    with pytest.raises(ValueError, match="takes a kernel by name"):
        DaskSVC(kernel="precomputed").fit(da.from_array(dense, chunks=(90, 13)), y)
    with pytest.raises(ValueError, match="'C' parameter"):
        DaskSVC(C=-1.0).fit(da.from_array(dense, chunks=(90, 13)), y)
    with pytest.raises(ValueError, match="working_set must be"):
        DaskSVC(working_set=0).fit(da.from_array(dense, chunks=(90, 13)), y)
    blocks = convert(str(data_dir / "heart_scale"), tmp_path / "heart", block_mb=0.01)
    with pytest.raises(ValueError, match="a block directory holds its labels"):
        DaskSVC().fit(str(blocks.path), y)


def test_command_line_trains_a_kernel_model_on_a_local_cluster(data_dir, load, tmp_path,
                                                              monkeypatch, capsys):
    import json
    import subprocess
    import sys

    from dualsvm import cli

    def run(*args):
        return subprocess.run([sys.executable, "-m", "dualsvm", *args], cwd=tmp_path,
                              capture_output=True, text=True)

    X, y = load("heart_scale")
    convert(str(data_dir / "heart_scale"), tmp_path / "heart", block_mb=0.01)
    done = run("train", "-t", "2", "-g", "0.2", "-c", "2", "-w1", "2", "heart", "--workers", "2",
               "--partitions", "3", "--json", "--trace", "t.jsonl")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    local = SVC(C=2.0, gamma=0.2, class_weight={1: 2.0}).fit(X, y)
    assert summary["solver"] == "dask-ws" and summary["partitions"] == 3
    assert summary["dual"] == pytest.approx(local.dual_[0], rel=1e-4)
    assert summary["status"] == "converged" and summary["n_support"] == len(local.support_)
    assert "Total nSV" in done.stderr and os.path.getsize(tmp_path / "t.jsonl") > 0
    monkeypatch.chdir(tmp_path)
    assert cli.main(["predict", str(data_dir / "heart_scale"), "heart.model", "out.txt"]) == 0
    predicted = np.loadtxt(tmp_path / "out.txt")
    assert np.mean(predicted == local.predict(X)) == 1.0
    # divide and conquer on the cluster: the same model
    done = run("train", "-t", "2", "-g", "0.2", "-c", "2", "-w1", "2", "heart", "dc.model",
               "--workers", "2", "--kernel-solver", "dc", "--dc-clusters", "3", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["solver"] == "dask-dc" and summary["status"] == "converged"
    assert summary["dual"] == pytest.approx(local.dual_[0], rel=1e-4)
    # what the cluster's kernel training has no use for is refused, never ignored (in
    # this process: the refusals come before any cluster starts)
    for flag, text in ((["-s", "1"], "-s 1"), (["-b", "1"], "-b"), (["-t", "4"], "-t 4"),
                       (["-h", "0"], "-h 0"), (["--local-epochs", "3"], "--local-epochs"),
                       (["--memory", "1"], "--memory"), (["-B", "1"], "-B"),
                       (["--gap-tol", "0.1"], "--gap-tol"),
                       (["--kernel-solver", "smo"], "--kernel-solver smo"),
                       (["--dc-levels", "2"], "--dc-levels")):
        assert cli.main(["train", "-t", "2", "heart", "--workers", "2", *flag]) == 2
        assert text in capsys.readouterr().err, flag


def peak_rss():
    """This process's peak resident set (Linux's VmHWM; not getrusage's ru_maxrss, which
    a spawned process inherits from the process it was forked from)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))


def test_data_no_single_worker_holds(load):
    """Each worker's memory_limit is below what the fit needs in one process (the rows
    and the kernel columns it used: a worker's cache holds columns of half the rows, so
    one process would need twice it for the same columns) and the two limits together
    are above it; the fit stays under every limit (a worker above 95% of its limit is
    killed by its nanny: none is rebuilt) and reaches the in-memory objective."""
    import dask
    import psutil

    X, y = load("a8a.bz2")
    X, y = X[:11348], y[:11348]
    limit = 600 * 2**20
    quiet = {"distributed.worker.memory.pause": False, "distributed.worker.memory.spill": False,
             "distributed.worker.memory.target": False}  # no pause below the limit
    with dask.config.set(quiet), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
            memory_limit=limit) as cluster, distributed.Client(cluster) as c:
        # a partition on each worker: every module imported and compiled on both
        DaskSVC(cache_size=1).fit(as_dask(X[:1000], 2), y[:1000])
        start = c.run(lambda: psutil.Process().memory_info().rss)
        cache = int(0.95 * limit - max(start.values()) - 60 * 2**20)  # what a worker has room for
        model = DaskSVC(cache_size=cache / 2**20).fit(as_dask(X, 2), y)
        peak = c.run(peak_rss)
    record = model.history_[0][-1]
    assert record["rebuilt"] == 0 and model.status_ == ["converged"]
    # the columns each partition computed (both get the same working sets): its cache
    # held them all, or was full
    columns = record["kernel_evaluations"] / len(y)
    filled = min(cache, columns * 8 * (len(y) // 2))
    rows = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    assert max(start.values()) + 2 * filled + rows > limit, "the data and columns fit one worker"
    # the peak, not the resident set after the fit: the caches may be freed by then
    for worker, used in peak.items():
        assert start[worker] + 0.9 * filled < used < 0.95 * limit, (start, filled, peak)
    local = SVC().fit(X, y)
    np.testing.assert_allclose(model.dual_, local.dual_, rtol=1e-4)


def test_partition_sums_give_the_in_memory_bias_and_gamma(load):
    """The partitions' kkt_bias_sums combined by the client (sum, sum, max, min) give
    kkt_bias of all rows, with partitions that hold no free variable or no row; their
    entry moments give make_kernel's gamma='scale' of the whole data, dense and sparse."""
    from dualsvm.kernels.functions import entry_moments, gamma_value, moments_variance
    from dualsvm.problems.objectives import bias_from_sums, kkt_bias, kkt_bias_sums

    rng = np.random.default_rng(1)
    n = 300
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    upper = rng.uniform(0.5, 2.0, n)
    G = rng.standard_normal(n)
    for alpha in (np.clip(rng.uniform(-0.5, 2.5, n), 0, upper),  # free variables
                  np.where(rng.random(n) < 0.5, 0.0, upper)):  # bounded only: the midpoint
        parts = [slice(0, 0), slice(0, 40), slice(40, 41), slice(41, n)]
        sums = [kkt_bias_sums(y[p], alpha[p], upper[p], G[p]) for p in parts]
        combined = bias_from_sums(sum(s[0] for s in sums), sum(s[1] for s in sums),
                                  max(s[2] for s in sums), min(s[3] for s in sums))
        assert combined == pytest.approx(kkt_bias(y, alpha, upper, G), rel=1e-12)
    X, _ = load("ijcnn1_1000.bz2")
    for data in (X, X.toarray()):
        moments = np.sum([entry_moments(data[k:k + 300]) for k in range(0, 1000, 300)], axis=0)
        gamma = gamma_value("scale", data.shape[1], moments_variance(*moments))
        assert gamma == pytest.approx(make_kernel(gamma="scale", X=data).gamma, rel=1e-9)


@pytest.mark.slow
def test_ijcnn1_is_the_in_memory_model(client, load_benchmark):
    X, y = load_benchmark("ijcnn1.bz2", 22)
    X = X.toarray()
    local = SVC(C=8.0, gamma=2.0).fit(X, y)
    model = DaskSVC(C=8.0, gamma=2.0).fit(as_dask(X, 4), y)
    np.testing.assert_allclose(model.dual_, local.dual_, rtol=1e-5)
    Xt, yt = load_benchmark("ijcnn1.t.bz2", 22)
    assert model.score(as_dask(Xt.toarray(), 4), yt) == pytest.approx(local.score(Xt, yt),
                                                                     abs=1e-4)


@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_divide_and_conquer_with_weights_is_the_in_memory_model(client, load, layout):
    """Two levels (4 clusters, then 2) solved on the workers, the whole problem finished by
    the working sets from their point: in-memory SVC's model."""
    X, y = load("ijcnn1_1000.bz2")
    X = X.toarray() if layout == "dense" else X
    weight = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    weight[::13] = 0.0
    params = dict(C=4.0, gamma=2.0, class_weight="balanced", tol=1e-4)
    dc = dict(solver="dc", dc_clusters=2, dc_levels=2, random_state=3)
    local = SVC(**params).fit(X, y, sample_weight=weight)
    model = DaskSVC(**params, **dc).fit(as_dask(X), y, sample_weight=weight)
    assert_same_model(model, local, X)
    assert model.to_fit().solver_used_ == "dask-dc" and model.to_fit().cluster_models_ is None
    records = model.history_[0]
    assert [r["level"] for r in records[:2]] == [2, 1] and records[-1]["level"] == 0
    assert [r["parts"] for r in records[:2]] == [4, 2] and all(r["bytes"] > 0 for r in records)


def test_divide_and_conquer_multiclass_is_the_in_memory_model(client):
    X, y = wine()
    params = dict(C=10.0, gamma="scale", class_weight={1: 2.0}, tol=1e-4)
    local = SVC(**params).fit(X, y)
    model = DaskSVC(solver="dc", dc_clusters=3, random_state=0, **params).fit(as_dask(X, 4), y)
    assert len(model.dual_) == 3 and model.n_partitions_ == 4
    assert_same_model(model, local, X)


@pytest.mark.parametrize("data", ["ijcnn1", "wine"])
def test_early_prediction_is_in_memory_early_prediction(client, load, data):
    """The same random_state draws the same samples, so the clusters, their models and
    each row's nearest cluster are in-memory SVC(solver='dc', early_stop_level)'s; the
    rows are decided by their cluster's model on the workers, lazily."""
    if data == "ijcnn1":
        X, y = load("ijcnn1_1000.bz2")
        params = dict(C=4.0, gamma=2.0, dc_clusters=2, dc_levels=2, early_stop_level=1)
    else:
        X, y = wine()
        params = dict(C=10.0, gamma=0.1, dc_clusters=2, early_stop_level=1)
    params.update(solver="dc", random_state=7, tol=1e-4)
    local = SVC(**params).fit(X, y)
    model = DaskSVC(**params).fit(as_dask(X), y)
    np.testing.assert_allclose(model.dual_, local.dual_, rtol=1e-9)
    np.testing.assert_allclose(model.primal_, local.primal_, rtol=1e-9)
    fit, expected = model.to_fit(), local.to_fit()
    for ours, theirs in zip(fit.cluster_models_, expected.cluster_models_):
        assert ours.level == theirs.level == 1
        np.testing.assert_array_equal(ours.clusters.labels, theirs.clusters.labels)
        np.testing.assert_allclose(ours.intercepts, theirs.intercepts, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.support_, local.support_)
    decision = model.decision_function(as_dask(X))
    assert isinstance(decision, da.Array)
    np.testing.assert_allclose(decision.compute(), local.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(model.predict(as_dask(X)).compute(), local.predict(X))
    assert model.to_local().score(X, y) == local.score(X, y)


def test_divide_and_conquer_stopped_returns_the_whole_problem_at_its_point(client, load):
    """Ctrl-C after the first of two levels: the model is the whole problem's at that
    level's point, certified by the working-set solver (a dual below the optimum)."""
    X, y = load("heart_scale")

    def interrupt(record, model=None):
        if record["epoch"] == 1:
            raise KeyboardInterrupt

    with pytest.warns(ConvergenceWarning, match="interrupted"):
        model = DaskSVC(C=2.0, gamma=0.2, solver="dc", dc_clusters=2, dc_levels=2,
                        random_state=0, callback=interrupt).fit(as_dask(X), y)
    local = SVC(C=2.0, gamma=0.2).fit(X, y)
    assert model.status_ == ["interrupted"] and model.to_fit().cluster_models_ is None
    assert 0 < model.dual_[0] < local.dual_[0] <= model.primal_[0]


def test_divide_and_conquer_loses_no_model_with_a_killed_worker(client, load):
    """A worker killed after the first of two levels: its partition is rebuilt on a live
    worker and started again, the next level runs from the client's point."""
    X, y = load("ijcnn1_1000.bz2")
    params = dict(C=4.0, gamma=2.0, tol=1e-4)
    kill_one, killed = kill_a_worker(client, 1)
    model = DaskSVC(solver="dc", dc_clusters=2, dc_levels=2, random_state=0, callback=kill_one,
                    **params).fit(as_dask(X), y)
    assert killed and model.history_[0][1]["rebuilt"] >= 1
    assert_same_model(model, SVC(**params).fit(X, y), X)


def test_divide_and_conquer_parameters_are_checked():
    X = da.zeros((10, 2), chunks=(5, 2))
    y = np.arange(10) % 2
    for params, message in ((dict(solver="smo"), "solver is 'ws' or 'dc'"),
                            (dict(dc_levels=2), "apply to solver='dc' only"),
                            (dict(early_stop_level=1), "apply to solver='dc' only"),
                            (dict(solver="dc", dc_levels=2, early_stop_level=3),
                             "above dc_levels=2"),
                            (dict(solver="dc", dc_clusters=1), "'dc_clusters' parameter"),
                            (dict(solver="dc", dc_sample_size=0), "'dc_sample_size' parameter")):
        with pytest.raises(ValueError, match=message):
            DaskSVC(**params).fit(X, y)
