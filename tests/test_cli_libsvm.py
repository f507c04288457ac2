"""LIBSVM's svm-train -v and -b and svm-predict -b on the command line, against
libsvm-official 3.37 (``svmutil``).

Leave-one-out folds (-v n) are the same in any random order, so there the
cross-validation results must equal LIBSVM's; with fewer folds LIBSVM's random
folds differ from ours and only the output format is compared.
"""

import numpy as np
import pytest
from libsvm import svmutil

from dualsvm import cli


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def small(tmp_path_factory, data_dir):
    """The first 80 rows of heart_scale and of housing_scale (leave-one-out stays quick)."""
    directory = tmp_path_factory.mktemp("small")
    files = {}
    for name in ("heart_scale", "housing_scale"):
        lines = (data_dir / name).read_text().splitlines(keepends=True)[:80]
        files[name] = directory / name
        files[name].write_text("".join(lines))
    return files


def libsvm(path, options):
    y, x = svmutil.svm_read_problem(str(path))
    return svmutil.svm_train(y, x, options + " -q")


@pytest.mark.parametrize("svm_type", ("0", "1", "2"))
def test_leave_one_out_accuracy_equals_libsvm(capsys, small, svm_type):
    path = small["heart_scale"]
    status, out, _ = run(capsys, "train", "-s", svm_type, "-t", "2", "-v", "80", path)
    assert status == 0
    theirs = libsvm(path, f"-s {svm_type} -t 2 -v 80")
    assert out == "Cross Validation Accuracy = %g%%\n" % theirs


@pytest.mark.parametrize("svm_type", ("3", "4"))
def test_leave_one_out_regression_equals_libsvm(capsys, small, svm_type):
    path = small["housing_scale"]
    status, out, _ = run(capsys, "train", "-s", svm_type, "-t", "2", "-e", "1e-6", "-v", "80",
                         path)
    assert status == 0
    mse_line, scc_line = out.splitlines()
    assert mse_line.startswith("Cross Validation Mean squared error = ")
    assert scc_line.startswith("Cross Validation Squared correlation coefficient = ")
    mse, scc = float(mse_line.split("= ")[1]), float(scc_line.split("= ")[1])
    y, x = svmutil.svm_read_problem(str(path))
    theirs = svmutil.svm_train(y, x, f"-s {svm_type} -t 2 -e 1e-6 -v 80 -q")
    # svm_train returns the MSE; the correlation from LIBSVM's own printed line
    assert mse == pytest.approx(theirs, rel=1e-4)
    assert 0.0 < scc <= 1.0


def test_five_fold_output_and_no_model(tmp_path, capsys, data_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "train", "-t", "2", "-v", "5", data_dir / "heart_scale")
    assert status == 0 and out.startswith("Cross Validation Accuracy = ") and out.endswith("%\n")
    theirs = libsvm(data_dir / "heart_scale", "-t 2 -v 5")
    assert abs(float(out.split("= ")[1].rstrip("%\n")) - theirs) < 5.0  # other random folds
    status, out, _ = run(capsys, "train", "-t", "2", "-v", "5", "-b", "1", "--json",
                         data_dir / "heart_scale")
    assert status == 0 and '"cross_validation_accuracy"' in out
    assert not list(tmp_path.iterdir())


def test_probability_model_and_predict_output(tmp_path, capsys, data_dir):
    data, model, out = data_dir / "heart_scale", tmp_path / "m", tmp_path / "out"
    assert run(capsys, "train", "-q", "-t", "2", "-b", "1", data, model)[0] == 0
    status, stdout, _ = run(capsys, "predict", "-b", "1", data, model, out)
    lines = out.read_text().splitlines()
    assert status == 0 and lines[0] == "labels 1 -1" and len(lines) == 271
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_allclose(rows[:, 1] + rows[:, 2], 1.0, atol=1e-5)
    assert np.array_equal(rows[:, 0], np.where(rows[:, 1] > rows[:, 2], 1.0, -1.0))
    y, x = svmutil.svm_read_problem(str(data))
    theirs = svmutil.svm_train(y, x, "-t 2 -b 1 -q")
    labels, (accuracy, _, _), probabilities = svmutil.svm_predict(y, x, theirs, "-b 1 -q")
    assert theirs.get_labels() == [1, -1]
    # the sigmoids come from different random folds: close, not equal
    assert np.mean(np.abs(rows[:, 1] - np.array(probabilities)[:, 0])) < 0.05
    assert np.mean(rows[:, 0] == np.array(labels)) > 0.97
    correct = int(np.sum(rows[:, 0] == np.array(y)))
    assert stdout == "Accuracy = %g%% (%d/%d)\n" % (100.0 * correct / 270, correct, 270)


def test_regression_probability_is_libsvm_laplace_sigma(tmp_path, capsys, data_dir):
    data, model = data_dir / "housing_scale", tmp_path / "m"
    status, out, _ = run(capsys, "train", "-s", "3", "-t", "2", "-b", "1", data, model)
    assert status == 0
    sigma = float(out.split("sigma=")[1].split()[0])
    y, x = svmutil.svm_read_problem(str(data))
    theirs = svmutil.svm_train(y, x, "-s 3 -t 2 -b 1 -q")
    assert sigma == pytest.approx(theirs.get_svr_probability(), rel=0.05)
    status, out, _ = run(capsys, "predict", "-b", "1", data, model, tmp_path / "p")
    assert out.startswith("Prob. model for test data: target value = predicted value + z,\n"
                          "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g\n" % sigma)
    run(capsys, "predict", data, model, tmp_path / "plain")
    assert (tmp_path / "p").read_text() == (tmp_path / "plain").read_text()


@pytest.mark.parametrize("argv, code, word", [
    (["train", "-b", "1"], 2, "-b (probability estimates) is LIBSVM's"),
    (["train", "-t", "2", "-v", "5", "--trace", "t.json"], 2, "--trace"),
])
def test_refusals(tmp_path, capsys, data_dir, monkeypatch, argv, code, word):
    monkeypatch.chdir(tmp_path)
    status, _, err = run(capsys, *argv, data_dir / "heart_scale")
    assert status == code and word in err


def test_predict_b1_needs_a_probability_model(tmp_path, capsys, data_dir):
    data, model = data_dir / "heart_scale", tmp_path / "m"
    assert run(capsys, "train", "-q", "-t", "2", data, model)[0] == 0
    status, _, err = run(capsys, "predict", "-b", "1", data, model, tmp_path / "out")
    assert status == 1 and "no probability estimates" in err
