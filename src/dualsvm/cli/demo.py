"""``dualsvm demo``: the main job on an embedded real dataset: train, watch, evaluate.

Wisconsin breast-cancer data (shipped with scikit-learn, no download): a linear
SVM trained by dual coordinate descent with its per-epoch trace, then its
certificate (primal, dual, duality gap) and its accuracy on held-out rows.
"""

import sys

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from ..estimators.linear_svc import LinearSVC


def run(args=None):
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                        stratify=y)
    scaler = StandardScaler().fit(X_train)
    print(f"breast cancer: {len(y_train)} training and {len(y_test)} test rows, "
          f"{X.shape[1]} features", file=sys.stderr)
    model = LinearSVC(C=1.0, loss="hinge", tol=1e-3, random_state=0, verbose=2)
    model.fit(scaler.transform(X_train), y_train)
    accuracy = model.score(scaler.transform(X_test), y_test)
    print(f"primal = {model.primal_[0]:.6f}, dual = {model.dual_[0]:.6f}, "
          f"relative gap = {model.gap_[0]:.2e}, epochs = {model.n_iter_}")
    print(f"Accuracy = {100 * accuracy:.4f}% ({round(accuracy * len(y_test))}/{len(y_test)}) "
          "on the held-out rows")
    return 0
