"""LIBSVM text models (dualsvm.persistence.libsvm) against libsvm-official 3.37: models
LIBSVM writes are read by us and predict as LIBSVM; models we write are read by
svm_load_model and predict as ours; the classes keep LIBSVM's order."""

import numpy as np
import pytest
import scipy.sparse as sp
from libsvm import svmutil

from dualsvm import SVC, SVR, NuSVC, NuSVR, OneClassSVM, load_model, save_model
from dualsvm.exceptions import ModelError
from dualsvm.training.fitted import libsvm_label_order, reorder_classes
from dualsvm.estimators.model_io import export_libsvm, import_libsvm

KERNELS = {"linear": "-t 0", "poly": "-t 1 -g 0.1 -r 0.5 -d 2", "rbf": "-t 2 -g 0.1",
           "sigmoid": "-t 3 -g 0.05 -r -0.5"}
ESTIMATORS = {0: SVC, 1: NuSVC, 2: OneClassSVM, 3: SVR, 4: NuSVR}


@pytest.fixture(scope="module")
def three_classes(load):
    """heart_scale with three labels whose first appearance is 2, 1, 3 (not sorted)."""
    X, y = load("heart_scale")
    labels = np.where(y > 0, 3.0, 1.0)
    labels[::7] = 2.0
    return X, labels


def _problem(X, y):
    return list(y), sp.csr_matrix(X)


def _data(load, three_classes, svm_type):
    """Regression: housing_scale; nu-SVC: heart_scale (libsvm-official 3.37's svm_predict
    sizes a nu-SVC's decision values for one pair: it overruns them with three classes);
    the others: three classes."""
    if svm_type in (3, 4):
        return load("housing_scale")
    return load("heart_scale") if svm_type == 1 else three_classes


@pytest.mark.parametrize("svm_type", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_libsvm_models_predict_as_libsvm(tmp_path, load, three_classes, svm_type, kernel):
    X, y = _data(load, three_classes, svm_type)
    theirs = svmutil.svm_train(*_problem(X, y), f"-s {svm_type} {KERNELS[kernel]} -n 0.3 -q")
    svmutil.svm_save_model(str(tmp_path / "theirs.txt"), theirs)
    labels, _, dec = svmutil.svm_predict(*_problem(X, y), theirs, "-q")
    model = import_libsvm(tmp_path / "theirs.txt")
    assert isinstance(model, ESTIMATORS[svm_type])
    if svm_type in (3, 4):
        np.testing.assert_allclose(model.predict(X), labels, rtol=1e-9, atol=1e-9)
    elif svm_type == 2:
        np.testing.assert_array_equal(model.predict(X), labels)
    else:  # a tie of votes goes to the first class in LIBSVM's order (the estimator's:
        # the smallest label, as scikit-learn's)
        fit = model.to_fit()
        np.testing.assert_array_equal(fit.predict(X, fit.libsvm_order()), labels)
        assert list(model.to_fit().libsvm_labels) == theirs.get_labels()
        # LIBSVM's decision values of its pairs, in its order, from ours in sorted order
        fit = reorder_classes(model.to_fit(), model.to_fit().libsvm_order())
        np.testing.assert_allclose(fit.decision_ovo(X), dec, rtol=1e-9, atol=1e-9)
    # and back: our file of the imported model is LIBSVM's model
    export_libsvm(model, tmp_path / "back.txt")
    again = svmutil.svm_load_model(str(tmp_path / "back.txt"))
    np.testing.assert_allclose(svmutil.svm_predict(*_problem(X, y), again, "-q")[0], labels,
                               rtol=1e-12)


@pytest.mark.parametrize("svm_type", [0, 1, 2, 3, 4])
def test_our_models_predict_in_libsvm_as_ours(tmp_path, load, three_classes, svm_type):
    X, y = _data(load, three_classes, svm_type)
    params = {"nu": 0.3} if svm_type in (1, 2, 4) else {"C": 2.0}
    model = ESTIMATORS[svm_type](kernel="rbf", gamma=0.1, **params)
    model.fit(X, y) if svm_type != 2 else model.fit(X)
    export_libsvm(model, tmp_path / "ours.txt")
    theirs = svmutil.svm_load_model(str(tmp_path / "ours.txt"))
    labels, _, _ = svmutil.svm_predict(*_problem(X, y), theirs, "-q")
    if svm_type in (3, 4):
        np.testing.assert_allclose(labels, model.predict(X), rtol=1e-9, atol=1e-9)
    elif svm_type == 2:
        np.testing.assert_array_equal(labels, model.predict(X))
    else:
        fit = model.to_fit()
        np.testing.assert_array_equal(labels, fit.predict(X, fit.libsvm_order()))
        # first appearance in the training data; +1 first for -1/+1
        assert theirs.get_labels() == ([2, 1, 3] if svm_type == 0 else [1, -1])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_probability_models_both_ways(tmp_path, load, three_classes, n_classes):
    X, y = three_classes
    if n_classes == 2:
        X, y = load("heart_scale")
    theirs = svmutil.svm_train(*_problem(X, y), "-t 2 -b 1 -q")
    svmutil.svm_save_model(str(tmp_path / "theirs.txt"), theirs)
    _, _, proba = svmutil.svm_predict(*_problem(X, y), theirs, "-b 1 -q")
    model = import_libsvm(tmp_path / "theirs.txt")
    assert model.probability
    order = model.to_fit().libsvm_order()
    ours = model.predict_proba(X)[:, order]
    if n_classes == 2:  # Platt's sigmoid itself
        np.testing.assert_allclose(ours, proba, rtol=1e-12, atol=1e-15)
    else:  # the coupling stops at 0.005 / k, iterating over the classes in another order
        np.testing.assert_allclose(ours, proba, atol=0.01)
    trained = SVC(gamma=0.1, probability=True, random_state=0).fit(X, y)
    export_libsvm(trained, tmp_path / "ours.txt")
    again = svmutil.svm_load_model(str(tmp_path / "ours.txt"))
    _, _, proba = svmutil.svm_predict(*_problem(X, y), again, "-b 1 -q")
    np.testing.assert_allclose(trained.predict_proba(X)[:, trained.to_fit().libsvm_order()],
                               proba, atol=1e-12 if n_classes == 2 else 0.01)


def test_regression_sigma_and_precomputed_kernel(tmp_path, load):
    X, y = load("housing_scale")
    theirs = svmutil.svm_train(*_problem(X, y), "-s 3 -b 1 -q")
    svmutil.svm_save_model(str(tmp_path / "svr.txt"), theirs)
    model = import_libsvm(tmp_path / "svr.txt")
    assert model.to_fit().probA_[0] == theirs.get_svr_probability()
    export_libsvm(model, tmp_path / "back.txt")
    assert svmutil.svm_load_model(str(tmp_path / "back.txt")).get_svr_probability() == \
        theirs.get_svr_probability()
    # precomputed: LIBSVM's rows "0:i K(x, x_1) ...", support vectors named by row
    X, y = load("heart_scale")
    K = (X @ X.T).toarray()
    rows = [{0: i + 1, **{j + 1: K[i, j] for j in range(K.shape[1])}} for i in range(len(y))]
    theirs = svmutil.svm_train(list(y), rows, "-t 4 -q")
    svmutil.svm_save_model(str(tmp_path / "pre.txt"), theirs)
    labels, _, _ = svmutil.svm_predict(list(y), rows, theirs, "-q")
    model = import_libsvm(tmp_path / "pre.txt")
    np.testing.assert_array_equal(model.predict(K[:, :model.n_features_in_]), labels)
    ours = SVC(kernel="precomputed").fit(K, y)
    export_libsvm(ours, tmp_path / "ours_pre.txt")
    again = svmutil.svm_load_model(str(tmp_path / "ours_pre.txt"))
    np.testing.assert_array_equal(svmutil.svm_predict(list(y), rows, again, "-q")[0],
                                  ours.predict(K))


def test_label_order_kept_in_model_files(tmp_path, three_classes):
    X, y = three_classes
    model = SVC(gamma=0.1).fit(X, y)
    assert list(model.to_fit().libsvm_labels) == [2.0, 1.0, 3.0]
    save_model(model, tmp_path / "m")
    assert list(load_model(tmp_path / "m").to_fit().libsvm_labels) == [2.0, 1.0, 3.0]
    assert list(libsvm_label_order(np.array([-1, 1, -1]))) == [1, -1]  # LIBSVM's swap
    assert list(libsvm_label_order(np.array(["b", "a", "c", "a"]))) == ["b", "a", "c"]


def test_reorder_classes_keeps_the_model(three_classes):
    X, y = three_classes
    fit = SVC(gamma=0.1, probability=True, random_state=0).fit(X, y).to_fit()
    order = np.array([2, 0, 1])
    moved = reorder_classes(fit, order)
    np.testing.assert_array_equal(moved.classes_, fit.classes_[order])
    np.testing.assert_allclose(moved.predict_proba(X)[:, np.argsort(order)], fit.predict_proba(X),
                               atol=0.01)
    back = reorder_classes(moved, np.argsort(order))
    for name in ("dual_coef_", "intercept_", "probA_", "probB_", "support_", "n_support_"):
        np.testing.assert_array_equal(getattr(back, name), getattr(fit, name))


@pytest.mark.parametrize("text, message", [
    ("", "empty file"),
    ("svm_type c_svc\nkernel_type rbf\n", "no 'SV' line"),
    ("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\n"
     "nr_sv 1 0\nSV\n", "0 support vector lines, expected total_sv = 1"),
    ("svm_type one_class\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\n"
     "prob_density_marks 1 2\nSV\n1 1:1\n", "'prob_density_marks' has 2 values"),
    ("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\n"
     "nr_sv 1 0\nprob_density_marks 1 2 3 4 5 6 7 8 9 10\nSV\n1 1:1\n", "one-class model's"),
    ("svm_type c_svc\nkernel_type cubic\nSV\n", "unknown kernel_type"),
    ("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\nlabel 1 -1\n"
     "nr_sv 1 0\nSV\n1 1:x\n", "bad text"),
    ("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho nan\nlabel 1 -1\n"
     "nr_sv 1 0\nSV\n1 1:1\n", "NaN or infinity"),
    ("svm_type one_class\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1",
     "no newline at the end"),
])
def test_malformed_files(tmp_path, text, message):
    (tmp_path / "bad.txt").write_text(text)
    with pytest.raises(ModelError, match=message):
        import_libsvm(tmp_path / "bad.txt")


def test_labels_must_be_integers(tmp_path, three_classes):
    X, y = three_classes
    model = SVC(gamma=0.1).fit(X, np.where(y > 1, "a", "b"))
    with pytest.raises(ModelError, match="integer class labels"):
        export_libsvm(model, tmp_path / "x.txt")
