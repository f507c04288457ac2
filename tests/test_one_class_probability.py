"""OneClassSVM(probability=True): LIBSVM 3.37's -s 2 -b 1 (its density marks and the
probabilities svm_predict -b 1 gives from them) against libsvm-official.

LIBSVM's marks are cut at the number of negative training decision values. The free
support vectors' decision values are 0 up to rounding (LIBSVM's are 1e-9 either side
of 0), so which side each falls on is rounding noise, in LIBSVM as here: the marks
are compared with LIBSVM's given the same sides for those, and equal LIBSVM's own
whenever the two count as many negative values. LIBSVM keeps its kernel columns in
single precision, so its decision values agree with ours to about 1e-8 of their scale.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from libsvm import svmutil
from sklearn.exceptions import NotFittedError

from dualsvm import OneClassSVM, load_model, save_model
from dualsvm.estimators.model_io import export_libsvm, import_libsvm
from dualsvm.training.probability import (N_MARKS, TOO_FEW_DECISIONS, density_marks,
                                          one_class_probability)


def _libsvm_one_class(X, options):
    """LIBSVM's model and its decision values on the training rows."""
    y, x = [0.0] * X.shape[0], sp.csr_matrix(X)
    model = svmutil.svm_train(y, x, f"-s 2 {options} -q")
    _, _, dec = svmutil.svm_predict(y, x, model, "-q")
    return model, np.array(dec)[:, 0]


def _marks(model):
    return np.array([model.prob_density_marks[i] for i in range(N_MARKS)])


@pytest.mark.parametrize("name", ["heart_scale", "housing_scale"])
@pytest.mark.parametrize("kernel, t", [("rbf", 2), ("linear", 0)])
@pytest.mark.parametrize("nu", [0.1, 0.5])
def test_density_marks_equal_libsvm(load, name, kernel, t, nu):
    X, _ = load(name)
    theirs_model, theirs_dec = _libsvm_one_class(X, f"-t {t} -n {nu} -b 1 -e 1e-12")
    theirs = _marks(theirs_model)
    scale = np.abs(theirs).max()
    # the algorithm, on LIBSVM's own decision values: LIBSVM's marks
    np.testing.assert_allclose(density_marks(theirs_dec), theirs, rtol=0, atol=1e-13 * scale)
    ours = OneClassSVM(kernel=kernel, gamma=1.0 / X.shape[1], nu=nu, tol=1e-12,
                       probability=True).fit(X)
    dec = ours.decision_function(X)
    np.testing.assert_allclose(dec, theirs_dec, rtol=0, atol=1e-7 * scale)
    at_zero = np.abs(theirs_dec) < 1e-7 * scale  # the free support vectors
    same_sides = np.where(at_zero, np.where(dec >= 0, 0.0, -np.finfo(float).tiny), theirs_dec)
    np.testing.assert_allclose(ours.prob_density_marks_, density_marks(same_sides),
                               rtol=0, atol=1e-6 * scale)
    if np.count_nonzero(dec < 0) == np.count_nonzero(theirs_dec < 0):
        np.testing.assert_allclose(ours.prob_density_marks_, theirs, rtol=0, atol=1e-6 * scale)


def _libsvm_rule(dec, marks):
    """predict_one_class_probability of LIBSVM 3.37, one value at a time."""
    if dec < marks[0]:
        return 0.001
    if dec > marks[-1]:
        return 0.999
    for i in range(1, len(marks)):
        if dec < marks[i]:
            return i / len(marks)
    return 0.0  # equal to the last mark: LIBSVM's loop finds no bin


def test_one_class_probability_is_libsvms_binning():
    marks = np.array([-3.0, -2.0, -1.0, -1.0, -0.5, 0.5, 1.0, 2.0, 2.0, 4.0])
    values = np.concatenate([marks, marks - 1e-9, marks + 1e-9, [-10.0, 0.0, 10.0]])
    ours = one_class_probability(values, marks)
    expected = [_libsvm_rule(v, marks) for v in values]
    last = values == marks[-1]  # the one value where we differ: 0.999, not LIBSVM's 0
    assert np.array_equal(ours[~last], np.array(expected)[~last])
    assert np.all(ours[last] == 0.999)


def test_probabilities_equal_libsvms_from_its_model(tmp_path, load):
    """A LIBSVM model with marks, read by us, predicts svm_predict -b 1's probabilities;
    ours, written in LIBSVM's format, gives LIBSVM our probabilities."""
    X, _ = load("heart_scale")
    y, x = [0.0] * X.shape[0], sp.csr_matrix(X)
    theirs, _ = _libsvm_one_class(X, "-n 0.2 -b 1")
    svmutil.svm_save_model(str(tmp_path / "theirs.txt"), theirs)
    labels, _, proba = svmutil.svm_predict(y, x, theirs, "-b 1 -q")
    imported = import_libsvm(tmp_path / "theirs.txt")
    assert imported.probability
    np.testing.assert_array_equal(imported.predict_proba(X), np.array(proba)[:, ::-1])
    np.testing.assert_array_equal(imported.predict(X), labels)

    ours = OneClassSVM(gamma=0.5, nu=0.2, probability=True).fit(X)
    export_libsvm(ours, tmp_path / "ours.txt")
    model = svmutil.svm_load_model(str(tmp_path / "ours.txt"))
    assert model.is_probability_model()
    np.testing.assert_array_equal(_marks(model), ours.prob_density_marks_)
    labels, _, proba = svmutil.svm_predict(y, x, model, "-b 1 -q")
    np.testing.assert_array_equal(ours.predict_proba(X), np.array(proba)[:, ::-1])
    np.testing.assert_array_equal(ours.predict(X), labels)


def test_probability_api_and_model_file(tmp_path, load):
    X, _ = load("heart_scale")
    plain = OneClassSVM(nu=0.2).fit(X)
    assert not hasattr(plain, "predict_proba") and plain.prob_density_marks_.shape == (0,)
    model = OneClassSVM(nu=0.2, probability=True)
    with pytest.raises(NotFittedError):
        model.predict_proba(X)
    model.fit(X)
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0], 2) and model.prob_density_marks_.shape == (N_MARKS,)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    inlier = model.predict(X) == 1  # columns: -1, then +1 (sorted labels)
    assert proba[inlier, 1].mean() > proba[~inlier, 1].mean()
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(proba))
    np.testing.assert_array_equal(
        proba[:, 1], one_class_probability(model.decision_function(X), model.prob_density_marks_))
    save_model(model, tmp_path / "m")
    loaded = load_model(tmp_path / "m")
    np.testing.assert_array_equal(loaded.prob_density_marks_, model.prob_density_marks_)
    np.testing.assert_array_equal(loaded.predict_proba(X), proba)
    # dense and sparse data, the same marks
    dense = OneClassSVM(nu=0.2, probability=True).fit(X.toarray())
    np.testing.assert_allclose(dense.prob_density_marks_, model.prob_density_marks_, atol=1e-12)


def test_too_few_decision_values_warn_as_libsvm(load):
    """Fewer than 5 decision values on a side: LIBSVM warns and keeps no marks; so do we."""
    X, _ = load("heart_scale")
    X = X[:8]
    theirs, _ = _libsvm_one_class(X, "-n 0.5 -b 1")
    assert not theirs.is_probability_model()
    with pytest.warns(UserWarning, match="too few to estimate one-class probabilities"):
        model = OneClassSVM(nu=0.5, probability=True).fit(X)
    assert model.prob_density_marks_.shape == (0,)
    with pytest.raises(NotFittedError, match="too few decision values"):
        model.predict_proba(X)
    assert density_marks(np.arange(-4.0, 20.0)) is None  # 4 negative values
    assert density_marks(-np.arange(1.0, 30.0)) is None  # none >= 0
    # exactly 5 on each side: marks between LIBSVM's edges -5..-1, 0, 0..4
    np.testing.assert_array_equal(density_marks(np.arange(-5.0, 5.0)),
                                  [-4.5, -3.5, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.5])
    assert "too few" in TOO_FEW_DECISIONS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OneClassSVM(nu=0.5).fit(X)  # without probability: no warning


def test_zero_weight_equals_removing_the_rows(load):
    X, _ = load("heart_scale")
    weight = np.ones(X.shape[0])
    weight[::3] = 0.0
    params = dict(nu=0.3, gamma=0.1, probability=True, tol=1e-10)  # gamma='scale' sees all rows
    weighted = OneClassSVM(**params).fit(X, sample_weight=weight)
    removed = OneClassSVM(**params).fit(X[weight > 0])
    np.testing.assert_array_equal(weighted.prob_density_marks_, removed.prob_density_marks_)
