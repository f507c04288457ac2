"""Class probabilities from decision values: Platt scaling and pairwise coupling.

What LIBSVM's ``-b 1`` computes, NumPy only:

* :func:`sigmoid_train`: Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A f + B)),
  fitted to decision values f_i by maximum likelihood with Platt's regularised
  targets t_i = (N+ + 1) / (N+ + 2) for positives and 1 / (N- + 2) for negatives,
  by the Newton method with backtracking of Lin, Lin and Weng, "A note on Platt's
  probabilistic outputs for support vector machines" (Machine Learning, 2007): the
  objective sum_i t_i (A f_i + B) + log(1 + exp(-A f_i - B)), written so that no
  exp overflows, its Hessian made positive definite by sigma = 1e-12, stopping when
  both gradient entries are below 1e-5, at most 100 iterations.
* :func:`couple`: multi-class probabilities p from the pairwise ones
  r_ij ~ P(i | i or j, x) by Wu, Lin and Weng's second method ("Probability
  estimates for multi-class classification by pairwise coupling", JMLR 2004):

      min_p  1/2 p'Q p   s.t.  sum_i p_i = 1,   Q_ii = sum_{s != i} r_si^2,  Q_ij = -r_ji r_ij,

  solved by their fixed-point iteration (each p_t moved to make (Qp)_t = p'Qp, then
  p renormalised), stopping when max_t |(Qp)_t - p'Qp| < 0.005 / k, at most
  max(100, k) sweeps.
* :func:`fold_decision_slices`: LIBSVM's five folds of a random permutation.
* :func:`density_marks`, :func:`one_class_probability`: the one-class SVM's ``-b 1``
  (LIBSVM's ``svm_one_class_probability``, the binning of Que and Lin): the training
  decision values sorted, the negative ones cut into 5 bins of equal counts and the
  non-negative ones into 5 more; the 10 marks are the midpoints between the bins'
  edges (0 is the edge between the two halves). P(inlier | f) is 0.001 below the
  first mark, 0.999 from the last on, and i / 10 between marks i and i + 1.

The decision values that feed the sigmoid come from cross-validation (a model
never scores its own training rows); the estimators run it
(:mod:`dualsvm.training.kernel`).
"""

import numpy as np

#: LIBSVM's number of cross-validation folds for the sigmoid's decision values.
N_FOLDS = 5
#: Pairwise probabilities are kept in [MIN_PROB, 1 - MIN_PROB] before coupling (LIBSVM's).
MIN_PROB = 1e-7
#: LIBSVM's number of density marks of a one-class model (half of them on each side of 0).
N_MARKS = 10
#: Why a one-class model has no density marks (LIBSVM warns so and saves the model without).
TOO_FEW_DECISIONS = (f"fewer than {N_MARKS // 2} negative or {N_MARKS // 2} non-negative "
                     "decision values on the training data: too few to estimate one-class "
                     "probabilities (LIBSVM's -b 1 gives up in this case too); the model has "
                     "no density marks")


def _sigmoid_objective(dec, targets, A, B):
    z = dec * A + B
    # t z + log(1 + e^-z) for z >= 0; (t - 1) z + log(1 + e^z) otherwise: no overflow
    return float(np.sum(np.where(z >= 0, targets * z + np.log1p(np.exp(-np.abs(z))),
                                 (targets - 1.0) * z + np.log1p(np.exp(-np.abs(z))))))


def sigmoid_train(dec, labels, *, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """(A, B) of Platt's sigmoid for decision values ``dec`` and labels (> 0: positive).

    Parameters
    ----------
    dec : ndarray of shape (n,)
    labels : ndarray of shape (n,)
        Positive entries are the positive class.

    Returns
    -------
    (float, float)
        A and B of P(+1 | f) = 1 / (1 + exp(A f + B)).
    """
    dec = np.asarray(dec, dtype=np.float64)
    positive = np.asarray(labels) > 0
    prior1 = float(np.count_nonzero(positive))
    prior0 = float(len(dec) - prior1)
    targets = np.where(positive, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = _sigmoid_objective(dec, targets, A, B)
    for _ in range(max_iter):
        z = dec * A + B
        ez = np.exp(-np.abs(z))
        # p = 1 / (1 + e^z) = P(-1 side), q = 1 - p, each without overflow
        p = np.where(z >= 0, ez / (1.0 + ez), 1.0 / (1.0 + ez))
        q = np.where(z >= 0, 1.0 / (1.0 + ez), ez / (1.0 + ez))
        d2 = p * q
        h11 = sigma + float(dec @ (dec * d2))
        h22 = sigma + float(d2.sum())
        h21 = float(dec @ d2)
        d1 = targets - p
        g1 = float(dec @ d1)
        g2 = float(d1.sum())
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:  # backtracking until sufficient decrease
            newA, newB = A + step * dA, B + step * dB
            newf = _sigmoid_objective(dec, targets, newA, newB)
            if newf < fval + 1e-4 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < min_step:  # the line search failed: keep the last point, as LIBSVM
            break
    return A, B


def sigmoid_predict(dec, A, B):
    """P(+1 | f) = 1 / (1 + exp(A f + B)), computed without overflow."""
    z = np.asarray(dec, dtype=np.float64) * A + B
    ez = np.exp(-np.abs(z))
    return np.where(z >= 0, ez / (1.0 + ez), 1.0 / (1.0 + ez))


def couple(r):
    """Wu, Lin and Weng's coupled probabilities (k,) from pairwise ones r (k, k):
    r[i, j] estimates P(i | i or j); the diagonal is ignored."""
    return couple_rows(r[None])[0]


def couple_rows(r):
    """:func:`couple` of many rows at once: r (n, k, k) -> p (n, k).

    Each row runs LIBSVM's iteration and stops on its own test; the sweeps are
    vectorised over the rows still running.
    """
    n, k, _ = r.shape
    Q = -np.transpose(r, (0, 2, 1)) * r  # Q_tj = -r_jt r_tj
    eye = np.eye(k, dtype=bool)
    Q[:, eye] = np.sum(np.where(eye, 0.0, r * r), axis=1)  # Q_tt = sum_{j != t} r_jt^2
    p = np.full((n, k), 1.0 / k)
    running = np.arange(n)
    for _ in range(max(100, k)):
        q, pr = Q[running], p[running]
        Qp = np.einsum("ntj,nj->nt", q, pr)
        pQp = np.einsum("nt,nt->n", pr, Qp)
        done = np.max(np.abs(Qp - pQp[:, None]), axis=1) < 0.005 / k
        running, q, pr, Qp, pQp = (running[~done], q[~done], pr[~done], Qp[~done], pQp[~done])
        if len(running) == 0:
            break
        for t in range(k):
            qtt = q[:, t, t]
            diff = (-Qp[:, t] + pQp) / qtt
            pr[:, t] += diff
            pQp = (pQp + diff * (diff * qtt + 2.0 * Qp[:, t])) / (1.0 + diff) / (1.0 + diff)
            Qp = (Qp + diff[:, None] * q[:, t, :]) / (1.0 + diff)[:, None]
            pr /= (1.0 + diff)[:, None]
        p[running] = pr
    return p


def class_probabilities(dec, prob_a, prob_b, n_classes):
    """Probabilities (n, n_classes) from one-vs-one decision values (n, n_pairs) in
    LIBSVM's pair order (positive: the first class of the pair) and the sigmoids of
    the pairs; two classes: the sigmoid itself, else :func:`couple_rows`."""
    pairwise = np.clip(sigmoid_predict(dec, prob_a, prob_b), MIN_PROB, 1.0 - MIN_PROB)
    if n_classes == 2:
        return np.column_stack([pairwise[:, 0], 1.0 - pairwise[:, 0]])
    i_index, j_index = np.triu_indices(n_classes, 1)  # LIBSVM's order of pairs
    r = np.zeros((dec.shape[0], n_classes, n_classes))
    r[:, i_index, j_index] = pairwise
    r[:, j_index, i_index] = 1.0 - pairwise
    return couple_rows(r)


def density_marks(dec):
    """LIBSVM's ``N_MARKS`` density marks of the training decision values ``dec``, or
    None when fewer than ``N_MARKS // 2`` of them are negative or non-negative."""
    dec = np.sort(np.asarray(dec, dtype=np.float64))
    half = N_MARKS // 2
    # LIBSVM's count: the index of the first value >= 0, and 0 when there is none
    non_negative = np.flatnonzero(dec >= 0)
    n_negative = int(non_negative[0]) if len(non_negative) else 0
    n_positive = len(dec) - n_negative
    if n_negative < half or n_positive < half:
        return None
    edges = np.empty(N_MARKS + 1)
    edges[:half] = dec[np.arange(half) * n_negative // half]
    edges[half] = 0.0
    edges[half + 1:] = dec[n_negative - 1 + np.arange(1, half + 1) * n_positive // half]
    return (edges[:-1] + edges[1:]) / 2


def one_class_probability(dec, marks):
    """P(+1 | f), the probability of being an inlier, for decision values ``dec``:
    0.001 below the first mark, i / 10 from mark i (1-based) up to the next, 0.999
    from the last mark on. (LIBSVM's loop finds no bin for a value equal to the last
    mark and returns 0 there; that value gets 0.999 here, as the values above it.)"""
    dec = np.asarray(dec, dtype=np.float64)
    at_or_below = np.searchsorted(marks, dec, side="right")  # marks <= f (they are sorted)
    return np.where(at_or_below == 0, 0.001,
                    np.where(at_or_below >= len(marks), 0.999, at_or_below / len(marks)))


def fold_decision_slices(n, generator):
    """(permutation, [(begin, end)]): LIBSVM's folds, rows perm[begin:end] held out in each."""
    perm = generator.permutation(n)
    return perm, [(f * n // N_FOLDS, (f + 1) * n // N_FOLDS) for f in range(N_FOLDS)]
