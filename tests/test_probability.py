"""SVC(probability=True): Platt's sigmoid against LIBSVM and an independent optimiser,
pairwise coupling against LIBSVM's, and the estimator's probability API."""

import numpy as np
import pytest
import scipy.sparse as sp
from reference import libsvm_probability, platt_sigmoid
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.metrics import log_loss

from dualsvm import SVC, NuSVC, load_model, save_model
from dualsvm.training.probability import class_probabilities, couple, sigmoid_train


def _cross_validated(X, y_pm, perm, estimator=SVC, **params):
    """Decision values of LIBSVM's five folds over perm, each from our SVC (or NuSVC)
    trained on the rest."""
    n = len(y_pm)
    dec = np.zeros(n)
    for f in range(5):
        begin, end = f * n // 5, (f + 1) * n // 5
        held, train = perm[begin:end], np.concatenate([perm[:begin], perm[end:]])
        model = estimator(tol=1e-10, **params).fit(X[train], y_pm[train])
        dec[held] = model.decision_function(X[held])  # positive: +1
    return dec


@pytest.mark.parametrize("name, options, params", [
    ("heart_scale", "-c 1 -g 0.1", dict(C=1.0, gamma=0.1)),
    ("breast-cancer_scale", "-c 0.5 -t 0", dict(C=0.5, kernel="linear")),
    ("german.numer.bz2", "-c 2 -g 0.05", dict(C=2.0, gamma=0.05)),
])
def test_sigmoid_equals_libsvm_given_the_same_folds(load, name, options, params):
    """LIBSVM's folds reproduced (its rand() reset), our sub-models on them, our sigmoid:
    LIBSVM's probA and probB to 1e-6."""
    X, y = load(name)
    labels, perm, A, B = libsvm_probability(X, y, options + " -e 1e-10")
    order = np.concatenate([np.flatnonzero(y == labels[0]), np.flatnonzero(y == labels[1])])
    X, y_pm = X[order], np.where(y[order] == labels[0], 1.0, -1.0)
    dec = _cross_validated(X, y_pm, perm, **params)
    ours = sigmoid_train(dec, y_pm)
    assert ours == pytest.approx((A, B), rel=1e-6, abs=1e-9)


def test_nu_svc_sigmoid_equals_libsvm_given_the_same_folds(load):
    """LIBSVM's -s 1 -b 1: its folds, our NuSVC sub-models (decisions scaled by 1 / rho
    as LIBSVM's), our sigmoid: probA and probB to 1e-6; and NuSVC(probability=True)
    fits sigmoids on folds of its own."""
    X, y = load("heart_scale")
    labels, perm, A, B = libsvm_probability(X, y, "-s 1 -n 0.4 -g 0.1 -e 1e-10")
    order = np.concatenate([np.flatnonzero(y == labels[0]), np.flatnonzero(y == labels[1])])
    Xo, y_pm = X[order], np.where(y[order] == labels[0], 1.0, -1.0)
    dec = _cross_validated(Xo, y_pm, perm, estimator=NuSVC, nu=0.4, gamma=0.1)
    assert sigmoid_train(dec, y_pm) == pytest.approx((A, B), rel=1e-6, abs=1e-9)
    model = NuSVC(nu=0.4, gamma=0.1, probability=True, random_state=0).fit(X, y)
    P = model.predict_proba(X)
    assert P.shape == (len(y), 2) and np.allclose(P.sum(axis=1), 1.0)
    assert model.probA_[0] == pytest.approx(A, rel=0.2)  # other folds, a close sigmoid


def test_sigmoid_is_the_optimum_of_platts_problem(load):
    rng = np.random.default_rng(0)
    X, y = load("heart_scale")
    dec = SVC(gamma=0.1).fit(X, y).decision_function(X)
    cases = [(dec, y),
             (rng.normal(size=500), rng.random(500) < 0.3),                   # no signal
             (np.r_[rng.normal(2, 1, 300), rng.normal(-1, 1, 100)],
              np.r_[np.ones(300), -np.ones(100)]),
             (np.r_[np.linspace(0.1, 3, 50), -np.linspace(0.1, 3, 40)],         # separable
              np.r_[np.ones(50), -np.ones(40)])]
    for values, labels in cases:
        labels = np.where(np.asarray(labels) > 0, 1, -1)
        assert sigmoid_train(values, labels) == pytest.approx(platt_sigmoid(values, labels),
                                                               rel=1e-6, abs=1e-8)


def test_coupling_equals_libsvm():
    """LIBSVM's -b 1 probabilities from its own decision values and sigmoids, recomputed by
    our coupling: equal to 1e-9; they sum to 1."""
    from libsvm import svmutil

    X, y = load_iris(return_X_y=True)
    y = y.astype(float)
    model = svmutil.svm_train(svmutil.svm_problem(list(y), sp.csr_matrix(X)),
                              svmutil.svm_parameter("-c 1 -g 0.5 -b 1 -q"))
    _, _, expected = svmutil.svm_predict(list(y), sp.csr_matrix(X), model, "-b 1 -q")
    _, _, dec = svmutil.svm_predict(list(y), sp.csr_matrix(X), model, "-q")
    k = model.get_nr_class()
    n_pairs = k * (k - 1) // 2
    probA = np.array([model.probA[p] for p in range(n_pairs)])
    probB = np.array([model.probB[p] for p in range(n_pairs)])
    ours = class_probabilities(np.array(dec), probA, probB, k)
    np.testing.assert_allclose(ours, np.array(expected), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, rtol=1e-12)


def test_coupling_solves_wu_lin_weng_problem():
    """The fixed point is the minimiser of p'Qp / 2 on the simplex (to LIBSVM's 0.005/k)."""
    rng = np.random.default_rng(1)
    for k in (3, 4, 7):
        r = rng.uniform(0.05, 0.95, size=(k, k))
        r = np.triu(r, 1) + np.tril(1.0 - np.triu(r, 1).T, -1)
        p = couple(r)
        Q = -r.T * r
        np.fill_diagonal(Q, [sum(r[j, t] ** 2 for j in range(k) if j != t) for t in range(k)])
        # the KKT system of min p'Qp/2 s.t. e'p = 1: Q p = b e, e'p = 1
        system = np.block([[Q, -np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        exact = np.linalg.solve(system, np.r_[np.zeros(k), 1.0])[:k]
        assert p.sum() == pytest.approx(1.0, rel=1e-12)
        np.testing.assert_allclose(p, exact, atol=0.01 / k)


def test_probability_api_and_model_file(tmp_path):
    X, y = load_iris(return_X_y=True)
    plain = SVC(random_state=0).fit(X, y)
    assert not hasattr(plain, "predict_proba") and plain.probA_.shape == (0,)
    model = SVC(probability=True, random_state=0).fit(X, y)
    again = SVC(probability=True, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.probA_, again.probA_)  # random_state fixes the folds
    assert model.probA_.shape == model.probB_.shape == (3,)
    proba = model.predict_proba(X)
    assert proba.shape == (150, 3) and np.all(proba > 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(proba))
    assert np.mean(model.classes_[proba.argmax(axis=1)] == y) > 0.9
    save_model(model, tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    np.testing.assert_array_equal(loaded.predict_proba(X), proba)
    save_model(plain, tmp_path / "plain.npz")
    assert not hasattr(load_model(tmp_path / "plain.npz"), "predict_proba")


def test_binary_probability_columns_follow_classes(load):
    X, y = load("heart_scale")
    model = SVC(gamma=0.1, probability=True, random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    # monotone in the decision value (A < 0): high decision, high P(classes_[1])
    dec = model.decision_function(X)
    assert model.probA_[0] < 0
    assert np.all(np.diff(proba[np.argsort(dec), 1]) >= -1e-15)
    assert np.mean((proba[:, 1] > 0.5) == (dec > 0)) > 0.9


def test_break_ties():
    """Three classes around a point: near it the votes tie 1-1-1 (the vote gives the first
    class), and break_ties predicts the largest one-vs-rest decision value instead."""
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 1.0], [0.87, -0.5], [-0.87, -0.5]])
    X = np.vstack([c + 0.6 * rng.normal(size=(60, 2)) for c in centers])
    y = np.repeat([0, 1, 2], 60)
    grid = np.array(np.meshgrid(np.linspace(-0.3, 0.3, 31),
                                np.linspace(-0.3, 0.3, 31))).reshape(2, -1).T
    votes = SVC(kernel="linear").fit(X, y)
    ties = SVC(kernel="linear", break_ties=True).fit(X, y)
    by_confidence = ties.classes_[ties.decision_function(grid).argmax(axis=1)]
    np.testing.assert_array_equal(ties.predict(grid), by_confidence)
    assert np.count_nonzero(votes.predict(grid) != ties.predict(grid)) > 0
    with pytest.raises(ValueError, match="break_ties"):
        SVC(break_ties=True, decision_function_shape="ovo").fit(X, y).predict(X)


@pytest.mark.slow
@pytest.mark.parametrize("name, test_name, n_train, gamma", [
    ("a9a.bz2", "a9a.t.bz2", 5000, 0.05), ("ijcnn1.bz2", "ijcnn1.t.bz2", 10000, 1.0)])
def test_held_out_log_loss_within_two_percent_of_libsvm(load_benchmark, name, test_name,
                                                        n_train, gamma):
    from libsvm import svmutil

    X, y = load_benchmark(name)
    Xt, yt = load_benchmark(test_name, n_features=X.shape[1])
    rng = np.random.default_rng(0)
    rows = rng.choice(X.shape[0], n_train, replace=False)
    test_rows = rng.choice(Xt.shape[0], 10000, replace=False)
    X, y, Xt, yt = X[rows], y[rows], Xt[test_rows], yt[test_rows]
    ours = SVC(C=1.0, gamma=gamma, probability=True, random_state=0).fit(X, y)
    peer = svmutil.svm_train(svmutil.svm_problem(list(y), sp.csr_matrix(X)),
                             svmutil.svm_parameter(f"-c 1 -g {gamma} -b 1 -q"))
    _, _, peer_proba = svmutil.svm_predict(list(yt), sp.csr_matrix(Xt), peer, "-b 1 -q")
    order = np.argsort(peer.get_labels())  # LIBSVM's columns follow its label order
    peer_loss = log_loss(yt, np.array(peer_proba)[:, order], labels=ours.classes_)
    our_loss = log_loss(yt, ours.predict_proba(Xt), labels=ours.classes_)
    print(f"{name}: held-out log-loss dualsvm {our_loss:.5f}, LIBSVM -b 1 {peer_loss:.5f}")
    assert our_loss <= 1.02 * peer_loss, (our_loss, peer_loss)


def test_ctrl_c_during_the_cross_validation_keeps_the_models(monkeypatch):
    """Ctrl-C in a fold ends training: the trained models stand, marked 'interrupted',
    without probabilities (predict_proba says so)."""
    from sklearn.exceptions import ConvergenceWarning

    from dualsvm.training import kernel as kernel_training

    original = kernel_training.run_epochs

    def interrupted(*args, **kwargs):
        result = original(*args, **kwargs)
        result.status = "interrupted"
        return result

    monkeypatch.setattr(kernel_training, "run_epochs", interrupted)
    X, y = load_iris(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="interrupted"):
        model = SVC(probability=True, random_state=0).fit(X, y)
    assert model.status_ == ["interrupted"] * 3 and model.probA_.shape == (0,)
    assert np.mean(model.predict(X) == y) > 0.9
    with pytest.raises(NotFittedError, match="not available.*interrupted"):
        model.predict_proba(X)


def test_precomputed_kernel_gives_the_linear_kernels_probabilities(load):
    X, y = load("breast-cancer_scale")
    X = X.toarray()
    linear = SVC(kernel="linear", probability=True, random_state=0).fit(X, y)
    precomputed = SVC(kernel="precomputed", probability=True, random_state=0).fit(X @ X.T, y)
    np.testing.assert_allclose(precomputed.probA_, linear.probA_, rtol=1e-6)
    np.testing.assert_allclose(precomputed.predict_proba(X[:50] @ X.T),
                               linear.predict_proba(X[:50]), rtol=1e-6, atol=1e-9)
