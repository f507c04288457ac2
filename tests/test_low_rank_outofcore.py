"""LowRankSVC out of core (dualsvm.outofcore.fit_low_rank): the same basis, map and optimum
as in memory under a memory budget below phi's size, phi's blocks against the in-memory
map, the certificate on phi, model files, checkpoints, the command line, refusals."""

import json

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from dualsvm import LowRankSVC, cli, load_model, save_model
from dualsvm.exceptions import DataError
from dualsvm.kernels import make_kernel
from dualsvm.outofcore import DiskDataset, convert, fit_low_rank
from dualsvm.outofcore.low_rank import MappedDataset, basis_rows
from dualsvm.training.low_rank import nystroem_map


@pytest.fixture(scope="module")
def heart(data_dir, tmp_path_factory):
    """heart_scale (270 x 13) in 45 blocks of about 6 rows, and its rows in memory."""
    path = tmp_path_factory.mktemp("lowrank") / "heart"
    dataset = convert(str(data_dir / "heart_scale"), path, block_mb=0.001, shuffle=False)
    X, y = dataset.load()
    return dataset, X, y


def _phi_nbytes(fit):
    """phi's size in memory as the solvers hold it: CSR of k values a row."""
    n = len(fit.alpha_[0])
    return 12 * n * fit.n_components_ + 12 * n


def _primal_on_phi(X, y, model, C, loss):
    """The primal of the model's (coef, intercept) on phi by NumPy (augmented bias 1)."""
    phi = model._fit.mapping.transform(X)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    w = np.append(model.coef_[0], model.intercept_[0])
    slack = np.maximum(0.0, 1.0 - y_pm * (phi @ w[:-1] + w[-1]))
    return 0.5 * w @ w + C * np.sum(slack**2 if loss == "squared_hinge" else slack)


@pytest.mark.parametrize("method", ["bm", "sbm", "dcl"])
def test_the_out_of_core_model_is_the_in_memory_one(heart, method):
    dataset, X, y = heart
    C, loss = 2.0, "squared_hinge"
    in_memory = LowRankSVC(C=C, n_components=60, random_state=0, loss=loss, tol=1e-12,
                           gap_tol=1e-13, max_iter=10**5).fit(X, y)
    fit = fit_low_rank(dataset, n_components=60, random_state=0, C=C, loss=loss,
                       method=method, memory=0.4 * _phi_nbytes(in_memory) / 2**20, tol=1e-14,
                       gap_tol=1e-12, max_iter=2000)
    on_disk = LowRankSVC.from_fit(fit)
    assert on_disk.status_ == ["gap"] and on_disk.gap_[0] <= 1e-12
    assert max(record["cache_size"] for record in fit.history_[0]) < len(y)  # never all of phi
    # the same basis, gamma='scale' from the variance read on disk, the same map
    np.testing.assert_array_equal(on_disk.component_indices_, in_memory.component_indices_)
    assert (on_disk.components_ != in_memory.components_).nnz == 0
    assert on_disk._fit.kernel.gamma == pytest.approx(in_memory._fit.kernel.gamma, rel=1e-13)
    np.testing.assert_allclose(on_disk.normalization_, in_memory.normalization_, rtol=0,
                               atol=1e-10 * np.abs(in_memory.normalization_).max())
    # the same optimum of the linear problem on phi (in memory phi may be stored in float32:
    # about 1e-9 apart), certified exactly
    assert on_disk.primal_[0] == pytest.approx(in_memory.primal_[0], rel=1e-7)
    assert _primal_on_phi(X, y, on_disk, C, loss) == pytest.approx(on_disk.primal_[0],
                                                                   rel=1e-10)
    decision = in_memory.decision_function(X)
    assert np.abs(on_disk.decision_function(X) - decision).max() <= 1e-5 * np.abs(decision).max()
    assert np.array_equal(on_disk.predict(X), in_memory.predict(X))


def test_mapped_blocks_are_the_in_memory_map(heart):
    dataset, X, _ = heart
    Z, _ = basis_rows(dataset, [5, 200, 17, 100])
    assert (Z != X[[5, 200, 17, 100]]).nnz == 0  # in the order asked for
    mapping = nystroem_map(make_kernel("rbf", gamma=0.5), Z)
    mapped = MappedDataset(dataset, mapping)
    assert (mapped.n_samples, mapped.n_features, mapped.nnz) == (270, 4, 270 * 4)
    assert mapped.n_blocks == dataset.n_blocks
    phi = mapping.transform(X)
    read = mapped.reader()
    try:
        for k in range(dataset.n_blocks):
            block = read(k)
            assert block.n_features == 4 and block.indices.shape == (4 * block.n_rows,)
            # full density: every row holds columns 0..k-1
            csr = block.csr()
            csr.check_format(full_check=True)
            np.testing.assert_allclose(csr.toarray(), phi[block.rows], rtol=0,
                                       atol=1e-13 * np.abs(phi).max())
            assert block.nbytes <= mapped.max_block_nbytes
    finally:
        read.close()
    assert dataset.rows_read >= 270


def test_only_the_blocks_holding_the_basis_are_read_without_gamma_scale(heart):
    dataset, X, _ = heart
    before = dataset.rows_read
    Z, variance = basis_rows(dataset, [3])
    assert variance is None
    assert dataset.rows_read - before == dataset.blocks[0]["n_rows"]  # block 0 only
    Z, variance = basis_rows(dataset, [3], variance=True)
    assert variance == pytest.approx(X.toarray().var(), rel=1e-12)


def test_the_model_predicts_saves_and_loads_as_one_fitted_in_memory(heart, tmp_path):
    dataset, X, y = heart
    fit = fit_low_rank(dataset, n_components=30, kernel="poly", gamma=0.1, coef0=1.0,
                       degree=2, random_state=1, memory=0.05, method="dcl", loss="hinge",
                       gap_tol=1e-4)
    model = LowRankSVC.from_fit(fit)
    assert model.get_params()["kernel"] == "poly" and model.get_params()["loss"] == "hinge"
    save_model(model, tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert isinstance(loaded, LowRankSVC)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_allclose(model.decision_function(X),
                               fit.decision(X)[:, 0], rtol=1e-12, atol=1e-12)
    assert (model.predict(X) == y).mean() > 0.8


def test_a_checkpoint_of_another_basis_is_refused(heart, tmp_path):
    dataset, _, _ = heart
    options = dict(n_components=20, gamma=0.1, memory=0.05, method="bm", gap_tol=None,
                   checkpoint=tmp_path / "ck.npz")
    first = fit_low_rank(dataset, random_state=0, max_iter=3, **options)
    # the basis drawn again from the seed: the checkpoint's map, gone on from
    again = fit_low_rank(dataset, random_state=0, max_iter=6, resume=True, **options)
    assert first.n_iter_ == 3 < again.n_iter_ <= 6 and again.dual_[0] > first.dual_[0]
    with pytest.raises(DataError, match="another problem"):  # another basis
        fit_low_rank(dataset, random_state=1, max_iter=6, resume=True, **options)


def _three_class_dataset(heart, tmp_path):
    _, X, y = heart
    labels = np.where(np.arange(len(y)) % 3 == 0, 2.0, y)
    dump_svmlight_file(X, labels, str(tmp_path / "three.svm"), zero_based=False)
    return tmp_path / "three.svm", convert(str(tmp_path / "three.svm"), tmp_path / "three")


def test_refusals(heart, tmp_path):
    dataset, _, _ = heart
    with pytest.raises(ValueError, match="low-rank model, got 'precomputed'"):
        fit_low_rank(dataset, kernel="precomputed")
    with pytest.raises(ValueError, match="gamma must be"):
        fit_low_rank(dataset, gamma="large")
    _, three = _three_class_dataset(heart, tmp_path)
    with pytest.raises(ValueError, match="2 label values.*binary.*one-vs-rest"):
        fit_low_rank(three, n_components=10)
    with pytest.raises(ValueError, match="memory budget .* convert the data with smaller"):
        fit_low_rank(dataset, n_components=60, memory=0.01)


def test_the_command_line_trains_from_a_file_and_a_directory(heart, data_dir, tmp_path,
                                                              capsys):
    dataset, X, y = heart
    source = str(data_dir / "heart_scale")
    common = ["train", "-t", "2", "--rank", "40", "-g", "0.2", "-c", "2", "-e", "1e-10",
              "--gap-tol", "1e-10", "--max-iter", "5000", "--seed", "3", "--json"]
    assert cli.main([*common, source, str(tmp_path / "file.model")]) == 0
    from_file = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert cli.main([*common, "--memory", "0.1", "--method", "sbm", dataset.path,
                     str(tmp_path / "dir.model")]) == 0
    from_dir = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert from_file["n_basis"] == from_dir["n_basis"] == 40
    assert from_dir["kernel"] == from_file["kernel"] == {"kernel": "rbf", "gamma": 0.2,
                                                         "degree": 3, "coef0": 0.0}
    assert from_dir["primal"] == pytest.approx(from_file["primal"], rel=1e-8)
    models = [load_model(tmp_path / name) for name in ("file.model", "dir.model")]
    assert all(isinstance(m, LowRankSVC) for m in models)
    np.testing.assert_array_equal(models[0].component_indices_, models[1].component_indices_)
    for name, model in zip(("file", "dir"), models):
        assert cli.main(["predict", source, str(tmp_path / f"{name}.model"),
                         str(tmp_path / f"{name}.out")]) == 0
        predicted = np.loadtxt(tmp_path / f"{name}.out")
        np.testing.assert_array_equal(predicted, model.predict(X))
        assert f"({int((predicted == y).sum())}/270)" in capsys.readouterr().out
    assert [m.get_params()["loss"] for m in models] == ["squared_hinge"] * 2  # -s 1
    assert cli.main(["train", "-q", "-s", "3", "--rank", "20", "--memory", "0.1", dataset.path,
                     str(tmp_path / "hinge.model")]) == 0
    assert load_model(tmp_path / "hinge.model").get_params()["loss"] == "hinge"
    # more than two classes: one-vs-rest in memory, refused out of core
    three_file, three = _three_class_dataset(heart, tmp_path)
    assert cli.main(["train", "-q", "--rank", "20", str(three_file),
                     str(tmp_path / "three.model")]) == 0
    assert load_model(tmp_path / "three.model").coef_.shape[0] == 3
    assert cli.main(["train", "-q", "--rank", "20", three.path, str(tmp_path / "x.model")]) == 1
    assert "binary" in capsys.readouterr().err


@pytest.mark.parametrize("options, message", [
    (["-t", "4"], "-t 4 (a precomputed kernel) does not apply to --rank"),
    (["-m", "100"], "-m (the kernel cache) does not apply to --rank"),
    (["-h", "0"], "-h (LIBSVM's shrinking) does not apply to --rank"),
    (["--kernel-solver", "smo"], "--kernel-solver chooses an exact kernel model's solver"),
    (["--dc-levels", "2"], "--dc-levels chooses an exact kernel model's solver"),
    (["-t", "0", "-g", "1"], "-g is not a parameter of the linear kernel"),
    (["-t", "2", "-d", "2"], "-d is not a parameter of the rbf kernel"),
    (["-s", "0"], "-s 0 does not apply to --rank"),
    (["-b", "1"], "-b does not apply to --rank"),
    (["-v", "3"], "-v does not apply to --rank"),
    (["--workers", "2"], "--workers does not apply to --rank"),
    (["--memory", "5"], "--memory applies to a dataset directory"),
])
def test_the_command_line_refuses_what_does_not_apply(data_dir, tmp_path, capsys, options,
                                                      message):
    status = cli.main(["train", "--rank", "10", *options, str(data_dir / "heart_scale"),
                       str(tmp_path / "m.model")])
    assert status == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "m.model").exists()


def test_the_command_line_refuses_file_options_for_a_directory(heart, tmp_path, capsys):
    dataset, _, _ = heart
    for options, message in ((["--exact-bias"], "--exact-bias does not apply to a dataset"),
                             (["--resume"], "--resume needs --checkpoint")):
        assert cli.main(["train", "--rank", "10", *options, dataset.path,
                         str(tmp_path / "m.model")]) == 2
        assert message in capsys.readouterr().err
