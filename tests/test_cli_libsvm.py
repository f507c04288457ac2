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


def _libsvm_output(labels, probabilities, header):
    """The file svm-predict -b 1 writes: the header, then '%g' of the label and of each
    probability."""
    rows = [" ".join("%g" % v for v in [label, *row]) for label, row in zip(labels, probabilities)]
    return "\n".join([header] + rows) + "\n"


def test_one_class_b1_train_and_predict(tmp_path, capsys, data_dir):
    """-s 2 -b 1: our model file keeps the density marks; predict -b 1 writes svm-predict's
    one-class file ('label normal outlier', P(+1), P(-1)); with LIBSVM's own model file
    (read as it is) the file svm-predict writes, exactly."""
    data, model, out = data_dir / "heart_scale", tmp_path / "m", tmp_path / "out"
    assert run(capsys, "train", "-q", "-s", "2", "-n", "0.2", "-t", "2", "-b", "1", data,
               model)[0] == 0
    status, stdout, _ = run(capsys, "predict", "-b", "1", data, model, out)
    lines = out.read_text().splitlines()
    assert status == 0 and lines[0] == "label normal outlier" and len(lines) == 271
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_allclose(rows[:, 1] + rows[:, 2], 1.0)
    assert set(rows[:, 0]) <= {1.0, -1.0}
    y, x = svmutil.svm_read_problem(str(data))
    theirs = svmutil.svm_train(y, x, "-s 2 -n 0.2 -t 2 -b 1 -q")
    svmutil.svm_save_model(str(tmp_path / "theirs.txt"), theirs)
    labels, _, probabilities = svmutil.svm_predict(y, x, theirs, "-b 1 -q")
    # a one-class label is the sign of the decision value, which no random fold touches
    # (the smallest |decision| here is 4e-6, the two decisions differ by about 1e-7)
    np.testing.assert_array_equal(rows[:, 0], labels)
    status, stdout, _ = run(capsys, "predict", "-b", "1", data, tmp_path / "theirs.txt", out)
    assert status == 0
    assert out.read_text() == _libsvm_output(labels, probabilities, "label normal outlier")
    correct = int(np.sum(np.array(labels) == np.array(y)))
    assert stdout == "Accuracy = %g%% (%d/%d)\n" % (100.0 * correct / 270, correct, 270)


def test_one_class_b1_with_too_few_decision_values(tmp_path, capsys, data_dir):
    """LIBSVM warns and saves its model without marks; predict -b 1 then refuses."""
    small = tmp_path / "small"
    small.write_text("".join((data_dir / "heart_scale").read_text().splitlines(True)[:8]))
    status, _, err = run(capsys, "train", "-s", "2", "-t", "2", "-b", "1", small,
                         tmp_path / "m")
    assert status == 0 and "too few to estimate one-class probabilities" in err
    status, _, err = run(capsys, "predict", "-b", "1", small, tmp_path / "m", tmp_path / "o")
    assert status == 1 and "no probability estimates" in err


@pytest.fixture(scope="module")
def three_classes(tmp_path_factory, data_dir):
    """housing_scale with three labels whose first appearance is 1, 3, 2 (not sorted)."""
    path = tmp_path_factory.mktemp("three") / "three"
    lines = []
    for line in (data_dir / "housing_scale").read_text().splitlines(True):
        target, rest = line.split(" ", 1)
        label = 3 if float(target) > 25 else 1 if float(target) > 18 else 2
        lines.append(f"{label} {rest}")
    path.write_text("".join(lines))
    return path


def test_multi_class_b1_in_libsvms_label_order(tmp_path, capsys, three_classes):
    """predict -b 1 writes the classes in the order of LIBSVM's model trained on the same
    file (first appearance), the columns in that order, as svm-predict does."""
    model, out = tmp_path / "m", tmp_path / "out"
    assert run(capsys, "train", "-q", "-t", "2", "-b", "1", three_classes, model)[0] == 0
    assert run(capsys, "predict", "-b", "1", three_classes, model, out)[0] == 0
    y, x = svmutil.svm_read_problem(str(three_classes))
    theirs = svmutil.svm_train(y, x, "-t 2 -b 1 -q")
    labels, _, probabilities = svmutil.svm_predict(y, x, theirs, "-b 1 -q")
    lines = out.read_text().splitlines()
    assert theirs.get_labels() == [1, 3, 2]
    assert lines[0] == "labels 1 3 2"
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    # other random folds for the sigmoids: close columns, not equal ones
    assert np.mean(np.abs(rows[:, 1:] - np.array(probabilities))) < 0.02
    assert np.mean(rows[:, 0] == np.array(labels)) > 0.95
    # LIBSVM's own model, read by us: its header, and its labels (ties of votes included)
    svmutil.svm_save_model(str(tmp_path / "theirs.txt"), theirs)
    assert run(capsys, "predict", "-b", "1", three_classes, tmp_path / "theirs.txt", out)[0] == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "labels 1 3 2"
    rows = np.array([[float(v) for v in line.split()] for line in lines[1:]])
    np.testing.assert_allclose(rows[:, 1:], probabilities, atol=0.01)  # the coupling's stop
    assert run(capsys, "predict", three_classes, tmp_path / "theirs.txt", out)[0] == 0
    plain, _, _ = svmutil.svm_predict(y, x, theirs, "-q")
    assert [float(v) for v in out.read_text().split()] == plain


def test_export_and_import_libsvm_commands(tmp_path, capsys, data_dir):
    data = data_dir / "heart_scale"
    model, text = tmp_path / "m", tmp_path / "m.txt"
    assert run(capsys, "train", "-q", "-s", "2", "-n", "0.2", "-t", "2", "-b", "1", data,
               model)[0] == 0
    assert run(capsys, "export-libsvm", model, text)[0] == 0
    assert text.read_text().startswith("svm_type one_class\nkernel_type rbf\n")
    assert "\nprob_density_marks " in text.read_text()
    y, x = svmutil.svm_read_problem(str(data))
    theirs = svmutil.svm_load_model(str(text))
    labels, _, probabilities = svmutil.svm_predict(y, x, theirs, "-b 1 -q")
    assert run(capsys, "predict", "-b", "1", data, model, tmp_path / "out")[0] == 0
    assert (tmp_path / "out").read_text() == _libsvm_output(labels, probabilities,
                                                             "label normal outlier")
    assert run(capsys, "import-libsvm", text, tmp_path / "back")[0] == 0
    assert run(capsys, "predict", "-b", "1", data, tmp_path / "back", tmp_path / "out2")[0] == 0
    assert (tmp_path / "out2").read_text() == (tmp_path / "out").read_text()
    status, _, err = run(capsys, "export-liblinear", model, tmp_path / "x")
    assert status == 1 and "only linear models have a LIBLINEAR format" in err
