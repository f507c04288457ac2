"""Numerical edge cases for every estimator of ``robustness.ESTIMATORS``.

All-zero rows, duplicated rows (also with conflicting labels), one feature, 10**6
features with few non-zeros, C from 1e-8 to 1e8, labels that are strings, 0/1 or
floats, float32 and non-contiguous input, heavy imbalance, sample weights with zeros:
each fit gives a model whose coefficients, certificate and decisions are finite and
whose predictions are among the classes, or the ValueError ``REFUSED`` names; never NaN.
Where a case has a plain equivalent (labels, dtype, layout, zero weights, duplicated
rows), the model is that of the equivalent.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from robustness import ESTIMATORS, count

SECTION = "edge case"


def _base(n=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _case(name):
    """(X, y, fit parameters, fit keyword arguments) of an edge case."""
    X, y = _base()
    if name == "all-zero rows":
        X[::6] = 0.0
    elif name == "duplicated rows":
        X, y = np.vstack([X, X]), np.concatenate([y, y])
    elif name == "duplicated rows, conflicting labels":
        X, y = np.vstack([X, X]), np.concatenate([y, -y])
    elif name == "one feature":
        X = X[:, :1]
    elif name == "10**6 features, 3 non-zeros a row":
        rng = np.random.default_rng(1)
        columns = rng.integers(0, 10**6, size=(len(y), 3))
        columns[:, 0] = np.where(y > 0, 7, 11)
        X = sp.csr_matrix((rng.uniform(0.5, 1.5, columns.size), columns.ravel(),
                           np.arange(0, columns.size + 1, 3)), shape=(len(y), 10**6))
        X.sort_indices()
    elif name == "labels strings":
        y = np.where(y > 0, "spam", "ham")
    elif name == "labels 0/1":
        y = (y > 0).astype(int)
    elif name == "labels floats":
        y = np.where(y > 0, 2.5, -0.125)
    elif name == "float32":
        X = X.astype(np.float32)
    elif name == "non-contiguous":
        X = np.asfortranarray(np.repeat(X, 2, axis=1))[:, ::2]
    elif name == "imbalance 58:2":
        y = -np.ones(len(y), dtype=int)
        y[[3, 40]] = 1
    elif name == "sample weights with zeros":
        weights = np.ones(len(y))
        weights[::2] = 0.0
        return X, y, {}, {"sample_weight": weights}
    elif name in ("C=1e-8", "C=1e8"):
        return X, y, {"C": float(name[2:])}, {}
    return X, y, {}, {}


CASES = ["all-zero rows", "duplicated rows", "duplicated rows, conflicting labels",
         "one feature", "10**6 features, 3 non-zeros a row", "C=1e-8", "C=1e8",
         "labels strings", "labels 0/1", "labels floats", "float32", "non-contiguous",
         "imbalance 58:2", "sample weights with zeros"]


#: The cases refused, by every estimator or by one, with their message; every other
#: case must give a model.
REFUSED = {
    "labels floats": "Unknown label type: continuous",  # scikit-learn's check_classification_targets
    ("NuSVC", "imbalance 58:2"): r"specified nu is infeasible \(nu=0.5\): nu-SVC needs "
                                 r"nu \* n / 2 <= the size of the smaller class",
}


@pytest.mark.filterwarnings("ignore:Training stopped before convergence")
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("estimator", [name for name, _ in ESTIMATORS])
def test_edge_case_gives_a_finite_model_or_a_clear_error(estimator, case):
    X, y, params, fit_options = _case(case)
    factory = dict(ESTIMATORS)[estimator]
    model = factory(**{"C": 1.0, "max_iter": 50, "random_state": 0, **params})
    refused = REFUSED.get((estimator, case), REFUSED.get(case))
    if refused is not None:
        with pytest.raises(ValueError, match=refused):
            model.fit(X, y, **fit_options)
        count(SECTION, estimator, "clear error")
        return
    model.fit(X, y, **fit_options)
    decisions = model.decision_function(X)
    assert np.isfinite(decisions).all(), "NaN or infinite decisions"
    for name in ("coef_", "intercept_", "dual_coef_", "primal_", "dual_", "gap_"):
        value = getattr(model, name, None)
        if value is not None:
            value = value.toarray() if sp.issparse(value) else np.asarray(value, dtype=float)
            assert np.isfinite(value).all(), f"{name} is not finite: {value}"
    assert np.isin(model.predict(X), np.unique(y)).all()
    np.testing.assert_array_equal(model.classes_, np.unique(y))
    count(SECTION, estimator, "finite model")


def _equivalent(name):
    """(case's X, y, fit options, fit parameters), (its plain equivalent's X, y, fit
    parameters): the two fits must give one model."""
    X, y = _base()
    if name == "labels strings":
        return (X, np.where(y > 0, "spam", "ham"), {}, {}), (X, y, {})
    if name == "labels 0/1":
        return (X, (y > 0).astype(int), {}, {}), (X, y, {})
    if name == "float32":  # the float64 of the same values
        X = X.astype(np.float32)
        return (X, y, {}, {}), (X.astype(np.float64), y, {})
    if name == "non-contiguous":
        return (np.asfortranarray(np.repeat(X, 2, axis=1))[:, ::2], y, {}, {}), (X, y, {})
    if name == "sample weights with zeros":  # the rows of weight 0 removed
        weights = np.ones(len(y))
        weights[::2] = 0.0
        return (X, y, {"sample_weight": weights}, {}), (X[1::2], y[1::2], {})
    if name == "duplicated rows":  # each row twice: C doubled (nu-SVC: unchanged)
        return (np.vstack([X, X]), np.concatenate([y, y]), {}, {}), (X, y, {"C": 2.0})
    raise ValueError(name)


#: Cases whose equivalence holds only at the optimum (a converged solver; not Pegasos).
AT_THE_OPTIMUM = {"sample weights with zeros", "duplicated rows"}


@pytest.mark.parametrize("case", ["labels strings", "labels 0/1", "float32", "non-contiguous",
                                  "sample weights with zeros", "duplicated rows"])
@pytest.mark.parametrize("estimator", [name for name, _ in ESTIMATORS])
def test_edge_case_equals_its_plain_equivalent(estimator, case):
    (X, y, fit_options, params), (X0, y0, params0) = _equivalent(case)
    factory = dict(ESTIMATORS)[estimator]
    settings = {"random_state": 0}
    if case in AT_THE_OPTIMUM:
        if estimator == "LinearSVC-pegasos":
            pytest.skip("Pegasos is stochastic: no optimum to reach exactly")
        settings["tol"] = 1e-10
    if estimator.startswith(("SVC", "NuSVC")):
        settings["gamma"] = 0.2  # 'scale' would depend on the rows given
    if estimator == "NuSVC":
        params0 = {}
    model = factory(**settings, **params).fit(X, y, **fit_options)
    plain = factory(**settings, **params0).fit(X0, y0)
    assert model.status_ == plain.status_
    if case in AT_THE_OPTIMUM:  # tol 1e-10 leaves CGD about 1e-5 from the optimum
        np.testing.assert_allclose(model.decision_function(X0), plain.decision_function(X0),
                                   atol=1e-4)
    else:  # the same values reach the solver: the same model, bit for bit
        np.testing.assert_array_equal(model.decision_function(X0), plain.decision_function(X0))
    count(SECTION, estimator, "model of its plain equivalent")
