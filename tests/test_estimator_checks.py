"""scikit-learn's estimator contract."""

import pytest
from sklearn.utils.estimator_checks import _get_check_estimator_ids, estimator_checks_generator

from dualsvm import SVC, SVCCV, SVR, SVRCV, LinearOneClassSVM, LinearSVC, LinearSVCCV, \
    LinearSVR, LinearSVRCV, LowRankSVC, NuSVC, NuSVR, NuSVRCV, OneClassSVM

ESTIMATORS = [
    LinearSVC(),
    LinearSVC(loss="hinge", intercept_mode="exact"),
    # LIBLINEAR's -s 4 (Crammer-Singer) and -s 5 (L1 penalty), and dual=False (solved
    # tightly: fitting with sample weights equals repeating or removing rows)
    LinearSVC(multi_class="crammer_singer"),
    LinearSVC(penalty="l1", dual=False),
    LinearSVC(dual=False, tol=1e-10, max_iter=100_000, random_state=0),
    # the primal solvers (with partial_fit)
    LinearSVC(solver="pegasos", loss="hinge", batch_size=4, max_iter=200, random_state=0),
    LinearSVC(solver="implicit", max_iter=200, random_state=0),
    SVC(),
    SVC(kernel="precomputed"),
    # the rest of LIBSVM's family (SMO)
    NuSVC(),
    SVR(),
    NuSVR(),  # (at tol=1e-9 the checks' sample-weight data did not converge in 2 minutes)
    OneClassSVM(),
    SVR(kernel="precomputed"),
    SVC(probability=True, random_state=0),
    LinearSVR(),
    # solved tightly, the sample-weight equivalences hold
    LinearSVR(loss="squared_epsilon_insensitive", tol=1e-10, max_iter=100_000, random_state=0),
    # the searches over warm-started paths of C: grids of 2 candidates and 2 folds, the
    # contract, not the search (test_paths checks that). Not the default grids' large C:
    # slow on the checks' data (on its 21 points NuSVR needs LIBSVM's step limit at
    # C = 2^15, 10^7 SMO steps, as LIBSVM's may: see smo_step_limit)
    LinearSVCCV(Cs=[0.1, 1.0], cv=2),
    LinearSVCCV(Cs=[0.1, 1.0], loss="hinge", intercept_mode="exact", cv=2),
    SVCCV(Cs=[1.0], gammas=[0.5, "scale"], cv=2),
    LinearSVRCV(Cs=[0.1, 1.0], cv=2),
    SVRCV(Cs=[1.0], gammas=[0.5, "scale"], cv=2),
    NuSVRCV(Cs=[0.1, 1.0], cv=2),
    # LIBLINEAR's -s 21
    LinearOneClassSVM(),
    # the Nystroem map and LinearSVC's dual on it; both bases
    LowRankSVC(),
    LowRankSVC(basis="kmeans", random_state=0),
]

#: The estimators above solved tightly (and, for the kernel ones, with a fixed gamma:
#: gamma="scale" depends on the rows), where fitting with sample weights equals
#: repeating or removing rows. They run the sample-weight checks only: their twins of
#: default tolerance above run every other check (at tol=1e-9 NuSVC's sparse-data check
#: alone took 11 s, twice the whole contract of NuSVC()). An RBF kernel keeps SVC's
#: quick (a linear kernel on the checks' sparse data needs 8.5 million steps, in LIBSVM
#: too).
TIGHT = [
    LinearSVC(tol=1e-10, max_iter=100_000, random_state=0),
    LinearSVC(loss="hinge", intercept_mode="exact", tol=1e-10, max_iter=100_000),
    LinearSVC(multi_class="crammer_singer", tol=1e-10, max_iter=100_000, random_state=0),
    LinearSVC(penalty="l1", dual=False, tol=1e-10, max_iter=100_000, random_state=0),
    SVC(gamma=0.5, tol=1e-9),
    NuSVC(gamma=0.5, tol=1e-9),
    SVR(gamma=0.5, tol=1e-9),
    OneClassSVM(gamma=0.5, tol=1e-9),
    LinearOneClassSVM(tol=1e-10, max_iter=100_000),
    # the checks' data have fewer rows than n_components: the basis is every row, so
    # repeated rows span the same map
    LowRankSVC(gamma=0.5, tol=1e-10, max_iter=100_000, random_state=0),
]


SAMPLE_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                        "check_sample_weight_equivalence_on_sparse_data")


def expected_failures(estimator):
    """The checks each estimator above fails, and why (measured on the checks' data).

    The sample-weight checks fit once with integer weights and once with the rows repeated,
    and compare decision_function at scikit-learn's rtol=1e-7: only two solutions that are
    both within about 1e-8 of the optimum pass. The tightly solved estimators above do.
    """
    if isinstance(estimator, (LinearSVCCV, LinearSVRCV, SVCCV, SVRCV)):
        if len(estimator.Cs) == 1:  # SVCCV and SVRCV above: a search over gamma only
            return {}  # both fits choose the same gamma on the checks' data
        reason = ("the folds differ: repeating a row puts copies into several folds, where "
                  "a weight keeps it in one, so the cross-validation scores, and the chosen C, "
                  "differ (as for scikit-learn's GridSearchCV)")
        failures = dict.fromkeys(SAMPLE_WEIGHT_CHECKS, reason)
        if isinstance(estimator, LinearSVCCV) and estimator.loss == "hinge":
            failures["check_class_weight_balanced_linear_classifier"] = (
                "'balanced' weighs the classes of each training fold (as GridSearchCV's "
                "estimator does), the check's dict those of all the data: the folds' scores "
                "differ, and with the hinge loss and the exact bias so does the chosen C")
        return failures
    if isinstance(estimator, LinearSVC) and estimator.solver != "dcd":
        reason = ("stochastic steps converge as O(1/t): the two fits differ by 0.39 (pegasos) "
                  "and 0.036 (implicit) after 200 epochs, pegasos by 0.002 after 20000, the "
                  "implicit solver by 3e-5 after 100000 at tol=1e-10")
    elif isinstance(estimator, LinearSVC) and estimator.tol >= 1e-8:
        reason = ("the two fits stop at different points within tol of the optimum: "
                  "decision functions 6e-5 to 7e-5 apart at tol=1e-4, 1e-10 at tol=1e-10")
    elif isinstance(estimator, LinearSVR) and estimator.tol >= 1e-8:
        reason = ("the two fits stop at different points within tol of the optimum: "
                  "predictions 5e-5 apart at tol=1e-4")
    elif isinstance(estimator, SVC) and estimator.probability:
        reason = ("predict_proba comes from a sigmoid fitted on 5-fold cross-validated "
                  "decision values: repeating rows changes the folds, so the sigmoids differ "
                  "(probabilities 0.78 apart on the checks' data), as LIBSVM's -b 1 would")
    elif isinstance(estimator, (SVC, SVR, NuSVR, OneClassSVM)) and estimator.gamma == "scale":
        reason = ("gamma='scale' is 1 / (n_features * X.var()) over the rows, not weighted by "
                  "sample_weight, so repeating rows changes the kernel (var 0.08763 weighted "
                  "vs 0.08683 repeated); with a fixed gamma the fits differ by 1e-4 at tol=1e-3 "
                  "and 2e-10 at tol=1e-9")
    elif isinstance(estimator, NuSVC):
        reason = ("the checks' integer sample weights leave one class with less than "
                  "nu sum(W) / 2 of the weight: nu = 0.5 is infeasible, refused with a clear "
                  "ValueError")
    elif isinstance(estimator, LowRankSVC) and estimator.tol >= 1e-8:
        reason = ("the two fits stop at different points within tol of the optimum, and "
                  "gamma='scale' depends on the rows: decision functions 2e-5 apart at "
                  "tol=1e-4")
    elif isinstance(estimator, LowRankSVC):
        reason = ("phi is stored as float32: the bases of the repeated and of the weighted "
                  "rows span one map in two rotations, whose float32 roundings differ, so "
                  "the decision functions are 2.5e-8 apart (8e-6 relative) at tol=1e-10")
    elif isinstance(estimator, LinearOneClassSVM) and estimator.tol >= 1e-8:
        reason = ("the two fits stop at different points within tol of the optimum: "
                  "decision values 3e-3 apart at tol=1e-2 (LIBLINEAR's default)")
    elif isinstance(estimator, LinearOneClassSVM):
        reason = ("the decision values of the boundary's support vectors are 0 to within 1e-10 "
                  "in both fits (w agrees to 2e-11, rho to 1e-13), and predict's sign of them "
                  "differs; decision_function agrees at the check's tolerance")
    elif isinstance(estimator, OneClassSVM):
        reason = ("the decision values of the boundary's support vectors are 0 to within 1e-8 "
                  "in both fits (SMO's float32 kernel columns, as LIBSVM's), and the check "
                  "compares them at atol=1e-9; every other value agrees to rtol=1e-7")
    else:
        reason = None
    failures = {} if reason is None else dict.fromkeys(SAMPLE_WEIGHT_CHECKS, reason)
    if isinstance(estimator, LinearOneClassSVM):
        failures["check_outliers_train"] = (
            "a free support vector's decision value w'x_i - rho is exactly 0 on the check's "
            "blobs (rho is the mean of w'x over the free ones); LIBLINEAR's predict says -1 "
            "there (+1 only where the decision is > 0, as we do), the check wants >= 0 as +1")
    if isinstance(estimator, NuSVC):
        failures["check_class_weight_classifiers"] = (
            "NuSVC's class_weight multiplies the bounds W_i of the nu-SVC dual; the check's "
            "weights {0: 1000, 1: 1e-4} make nu = 0.5 infeasible (nu sum(W) / 2 > the weight "
            "of class 1), refused with a clear ValueError. scikit-learn's NuSVC ignores "
            "class_weight and lists this check as its own expected failure")
    return failures


def _check_name(case):
    """The name of the check of one of estimator_checks_generator's cases (a tuple, or
    a pytest.param of one when the check is an expected failure)."""
    check = (case.values if hasattr(case, "values") else case)[1]
    return getattr(check, "func", check).__name__


def _strict(case):
    """The case with its expected failure made strict: a check that passes where a
    failure is expected fails the run, so that no stale reason stays listed."""
    if not hasattr(case, "marks"):
        return case
    reason = case.marks[0].kwargs["reason"]
    return pytest.param(*case.values, marks=pytest.mark.xfail(reason=reason, strict=True))


def _cases():
    """Every check of ESTIMATORS, and the sample-weight checks of TIGHT."""
    for estimator in ESTIMATORS + TIGHT:
        for case in estimator_checks_generator(estimator, mark="xfail",
                                               expected_failed_checks=expected_failures(estimator)):
            if estimator in ESTIMATORS or _check_name(case) in SAMPLE_WEIGHT_CHECKS:
                yield _strict(case)


@pytest.mark.parametrize("estimator, check", list(_cases()), ids=_get_check_estimator_ids)
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)
