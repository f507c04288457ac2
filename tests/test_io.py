"""Data and model files: svmlight reading, the dualsvm model format, LIBLINEAR interop."""

import bz2
import gzip
import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from liblinear import liblinearutil as ll
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning

from dualsvm import LinearSVC
from dualsvm.estimators import model_io as models
from dualsvm.data.svmlight import format_label, read_svmlight
from dualsvm.exceptions import DataError, ModelError


@pytest.fixture(scope="module")
def heart(data_dir):
    return read_svmlight(data_dir / "heart_scale")


@pytest.fixture(scope="module")
def heart3(heart):
    """heart_scale with a third class (2) carved out of class +1 by feature 1."""
    X, y = heart
    return X, np.where((y > 0) & (X[:, 0].toarray().ravel() > 0), 2.0, y)


def fit(X, y, **params):
    params.setdefault("random_state", 0)
    params.setdefault("tol", 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(**params).fit(X, y)


CONFIGS = {
    "no-bias": dict(fit_intercept=False),
    "augmented": dict(),
    "augmented-B3": dict(intercept_scaling=3.0),
    "exact": dict(intercept_mode="exact"),
    "hinge": dict(loss="hinge", C=0.5),
}


def write(path, content):
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def liblinear_labels(model, X):
    labels, _, _ = ll.predict([], X, model, "-q")
    return np.array(labels)


# --- reading data ----------------------------------------------------------------


def test_read_svmlight_gives_csr_float64_int32(heart):
    X, y = heart
    assert X.shape == (270, 13) and X.format == "csr"
    assert X.dtype == np.float64 and X.indices.dtype == np.int32
    assert set(np.unique(y)) == {-1.0, 1.0}


def test_read_compressed_equals_plain(tmp_path, data_dir, heart):
    raw = (data_dir / "heart_scale").read_bytes()
    write(tmp_path / "h.gz", gzip.compress(raw))
    write(tmp_path / "h.bz2", bz2.compress(raw))
    for name in ("h.gz", "h.bz2"):
        X, y = read_svmlight(tmp_path / name)
        assert (X != heart[0]).nnz == 0 and np.array_equal(y, heart[1])


def test_n_features_drops_and_pads_columns(tmp_path):
    path = write(tmp_path / "d", "1 1:1 3:2 5:3\n-1 2:4\n")
    X, _ = read_svmlight(path, n_features=3)  # index 5 dropped, like LIBLINEAR
    assert X.shape == (2, 3) and np.array_equal(X.toarray(), [[1, 0, 2], [0, 4, 0]])
    X, _ = read_svmlight(path, n_features=7)
    assert X.shape == (2, 7) and np.array_equal(X.toarray()[:, :5], [[1, 0, 2, 0, 3], [0, 4, 0, 0, 0]])
    assert X.nnz == 4  # padded, not densified


BAD_DATA = {
    "empty": (b"", "empty"),
    "comments-only": (b"# nothing\n\n", "no data"),
    "label": (b"abc\n", "label"),
    "index-value": (b"1 x:y\n", "index"),
    "token": (b"1 1:1 junk\n", "index:value"),
    "zero-index": (b"1 0:1\n", "indices start at 1"),
    "unsorted": (b"1 3:1 2:1\n", "increase"),
    "binary": (b"\x7fELF\x02\x01\x00\x00" * 20, "binary"),
    "non-utf8": (b"\xff\xfe 1:1\n", "UTF-8"),
    "nan": (b"1 1:nan\n-1 1:1\n", "NaN or infinity"),
    "inf": (b"1 1:1\n-1 2:inf\n", "NaN or infinity"),
    "nan-label": (b"nan 1:1\n", "NaN or infinity"),
}


@pytest.mark.parametrize("case", BAD_DATA)
def test_bad_data_is_a_one_line_data_error(tmp_path, case):
    content, word = BAD_DATA[case]
    path = write(tmp_path / "data.txt", content)
    with pytest.raises(DataError) as info:
        read_svmlight(path)
    message = str(info.value)
    assert word in message and str(path) in message and "\n" not in message


def test_malformed_line_is_located(tmp_path):
    path = write(tmp_path / "d", "1 1:1\n# a comment\n-1 2:1\n1 2:x\n")
    with pytest.raises(DataError, match="line 4: feature value 'x' is not a number"):
        read_svmlight(path)


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_truncated_compressed_file(tmp_path, data_dir, suffix):
    raw = (data_dir / "heart_scale").read_bytes()
    packed = gzip.compress(raw) if suffix == ".gz" else bz2.compress(raw)
    path = write(tmp_path / f"h{suffix}", packed[: len(packed) // 2])
    with pytest.raises(DataError, match="truncated or corrupt"):
        read_svmlight(path)


def assert_reads_as_scikit_learn(path):
    X_ref, y_ref = load_svmlight_file(str(path), zero_based=False)
    X, y = read_svmlight(path)
    assert X.shape == X_ref.shape
    np.testing.assert_array_equal(y, y_ref)
    for part in ("indptr", "indices", "data"):  # bit for bit
        np.testing.assert_array_equal(getattr(X, part), getattr(X_ref, part))


@pytest.mark.parametrize("name", ["heart_scale", "breast-cancer.bz2", "svmguide1.bz2",
                                  "splice_scale.bz2", "german.numer.bz2", "a9a.t.bz2"])
def test_reader_gives_scikit_learns_matrices(data_dir, name):
    assert_reads_as_scikit_learn(data_dir / name)


@pytest.mark.slow
def test_reader_gives_scikit_learns_matrices_on_a_wide_sparse_file(benchmark_file):
    assert_reads_as_scikit_learn(benchmark_file("reuters.tst.bz2"))  # 8315 features


def test_reader_parses_numbers_as_float_does(tmp_path):
    values = ["0.1", "-0.30000000000000004", "1e-300", "2.5E+10", "+7", "-0", ".5", "5.",
              "123456789012345678901234567890", "0.16666666666666666", "4.9e-324",
              "1.7976931348623157e308", "0.000000000000000000000000012345", "1e22", "1e23"]
    lines = [f"{'+1' if k % 2 else '-1'} qid:3 1:{v}\t2:1 # comment {k}\r" for k, v in enumerate(values)]
    X, y = read_svmlight(write(tmp_path / "d", "\n\n".join(lines)))
    assert X[:, 0].toarray().ravel().tolist() == [float(v) for v in values]
    assert y.tolist() == [1.0 if k % 2 else -1.0 for k in range(len(values))]


def test_command_line_training_does_not_import_scikit_learn(data_dir, tmp_path):
    # Importing scikit-learn costs about 1.5 s; `dualsvm train` must start in < 2 s.
    code = ("import sys; from dualsvm import cli; "
            f"status = cli.main(['train', '-q', {str(data_dir / 'heart_scale')!r}, "
            f"{str(tmp_path / 'm')!r}]); "
            "sys.exit(status or 10 * any(m.startswith('sklearn') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_svmlight(tmp_path / "nope")
    with pytest.raises(DataError, match="directory"):
        read_svmlight(tmp_path)


# --- the dualsvm model file ------------------------------------------------------


def assert_same_model(a, b, X):
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert np.array_equal(a.predict(X), b.predict(X))
    assert np.array_equal(a.classes_, b.classes_) and a.classes_.dtype == b.classes_.dtype
    assert a.n_features_in_ == b.n_features_in_


@pytest.mark.parametrize("config", CONFIGS)
def test_save_load_round_trip(tmp_path, heart, config):
    X, y = heart
    model = fit(X, y, **CONFIGS[config])
    models.save_model(model, tmp_path / "m.model")
    loaded = models.load_model(tmp_path / "m.model")
    assert_same_model(model, loaded, X)
    assert loaded.get_params() == {**model.get_params(), "callback": None}
    for name in ("primal_", "dual_", "gap_"):
        assert np.array_equal(getattr(model, name), getattr(loaded, name))
    assert loaded.status_ == model.status_ and loaded.n_iter_ == model.n_iter_
    assert loaded.score(X, y) == model.score(X, y)


def test_round_trip_multiclass_strings_and_class_weight(tmp_path, heart3):
    X, y = heart3
    names = np.array(["neg", "pos", "two"])[np.searchsorted([-1.0, 1.0, 2.0], y)]
    model = fit(X, names, class_weight={"neg": 0.5, "two": 2.0}, callback=lambda r: False)
    models.save_model(model, tmp_path / "m.model")
    loaded = models.load_model(tmp_path / "m.model")
    assert_same_model(model, loaded, X)
    assert loaded.class_weight == {"neg": 0.5, "two": 2.0} and loaded.callback is None

    model = fit(X, y, class_weight={-1.0: 0.5, 2.0: 3.0})  # numeric keys survive JSON
    models.save_model(model, tmp_path / "n.model")
    assert models.load_model(tmp_path / "n.model").class_weight == {-1.0: 0.5, 2.0: 3.0}


def test_round_trip_feature_names(tmp_path, heart):
    X, y = heart
    model = fit(X, y)
    model.feature_names_in_ = np.array([f"f{i}" for i in range(13)], dtype=object)
    models.save_model(model, tmp_path / "m.model")
    assert list(models.load_model(tmp_path / "m.model").feature_names_in_) == list(model.feature_names_in_)


def test_save_refuses_unfitted_and_non_finite(tmp_path, heart):
    with pytest.raises(ModelError, match="not fitted"):
        models.save_model(LinearSVC(), tmp_path / "m.model")
    model = fit(*heart)
    model.coef_ = model.coef_.copy()
    model.coef_[0, 0] = np.nan
    with pytest.raises(ModelError, match="NaN"):
        models.save_model(model, tmp_path / "m.model")
    assert not list(tmp_path.iterdir())


def test_interrupted_save_keeps_the_old_model(tmp_path, heart, monkeypatch):
    X, y = heart
    old = fit(X, y, C=1.0)
    models.save_model(old, tmp_path / "m.model")
    before = (tmp_path / "m.model").read_bytes()

    def broken_savez(file, **arrays):
        file.write(b"PK\x03\x04 half a model")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(KeyboardInterrupt):
        models.save_model(fit(X, y, C=0.01), tmp_path / "m.model")
    assert (tmp_path / "m.model").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.model"]  # no temporary file left
    assert_same_model(old, models.load_model(tmp_path / "m.model"), X)


class _Explode:
    """Unpickling this would create a file: proof that a loader unpickled."""

    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (open, (self.target, "w"))


def _rewrite_metadata(source, target, **changes):
    with np.load(source) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(arrays["metadata"].tobytes())
    meta.update(changes)
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(target, **arrays)


@pytest.fixture
def good_model(tmp_path, heart):
    models.save_model(fit(*heart), tmp_path / "good.model")
    return tmp_path / "good.model"


def make_bad_model(kind, tmp_path, good_model, data_dir):
    path = tmp_path / "bad.npz"
    if kind == "text":
        write(path, "hello world\n")
    elif kind == "empty":
        write(path, b"")
    elif kind == "pickle":
        path.write_bytes(pickle.dumps(_Explode(str(tmp_path / "exploded"))))
    elif kind == "foreign-npz":
        np.savez(path, a=np.arange(3), b=np.ones(2))
    elif kind == "object-array":
        np.savez(path, metadata=np.array([_Explode(str(tmp_path / "exploded"))], dtype=object),
                 coef_=np.ones((1, 13)), intercept_=np.zeros(1), classes_=np.array([-1.0, 1.0]))
    elif kind == "liblinear":
        write(path, "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\n")
    elif kind == "truncated":
        data = good_model.read_bytes()
        path.write_bytes(data[: len(data) * 2 // 3])
    elif kind == "flipped-byte":
        data = bytearray(good_model.read_bytes())
        position = data.index(b"\x93NUMPY", data.index(b"coef_")) + 140  # inside coef_'s data
        data[position] ^= 0xFF
        path.write_bytes(bytes(data))
    elif kind == "version":
        _rewrite_metadata(good_model, path, format_version=2)
    elif kind == "format":
        _rewrite_metadata(good_model, path, format="something-else")
    elif kind == "shape":
        _rewrite_metadata(good_model, path, n_features_in=12)
    elif kind == "param":
        _rewrite_metadata(good_model, path, params={"C": -1.0})
    elif kind == "nan":
        with np.load(good_model) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays["coef_"] = arrays["coef_"].copy()
        arrays["coef_"][0, 3] = np.inf
        np.savez(path, **arrays)
    return path


BAD_MODELS = {
    "text": "not a dualsvm model",
    "empty": "empty file",
    "pickle": "pickle",
    "foreign-npz": "not a dualsvm model",
    "object-array": "pickled",
    "liblinear": "LIBLINEAR",
    "truncated": "damaged",
    "flipped-byte": "damaged",
    "version": "version 2",
    "format": "not a dualsvm model",
    "shape": "shape",
    "param": "parameters",
    "nan": "NaN or infinity",
}


@pytest.mark.parametrize("kind", BAD_MODELS)
def test_load_model_rejects(kind, tmp_path, good_model, data_dir):
    path = make_bad_model(kind, tmp_path, good_model, data_dir)
    with pytest.raises(ModelError) as info:
        models.load_model(path)
    assert BAD_MODELS[kind] in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "exploded").exists()  # nothing was unpickled


def test_load_model_missing_and_directory(tmp_path):
    with pytest.raises(ModelError, match="no such model file"):
        models.load_model(tmp_path / "missing")
    with pytest.raises(ModelError, match="directory"):
        models.load_model(tmp_path)


# --- LIBLINEAR text models -------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS)
def test_export_predicts_the_same_in_liblinear(tmp_path, heart, config):
    X, y = heart
    model = fit(X, y, **CONFIGS[config])
    models.export_liblinear(model, tmp_path / "m.txt")
    theirs = ll.load_model(str(tmp_path / "m.txt"))
    assert np.array_equal(liblinear_labels(theirs, X), model.predict(X))
    back = models.import_liblinear(tmp_path / "m.txt")
    assert np.array_equal(back.predict(X), model.predict(X))
    assert np.allclose(back.decision_function(X), model.decision_function(X), rtol=0, atol=1e-12)


def test_export_multiclass_predicts_the_same_in_liblinear(tmp_path, heart3):
    X, y = heart3
    model = fit(X, y, intercept_scaling=2.0)
    models.export_liblinear(model, tmp_path / "m.txt")
    theirs = ll.load_model(str(tmp_path / "m.txt"))
    assert theirs.get_nr_class() == 3
    assert np.array_equal(liblinear_labels(theirs, X), model.predict(X))


def test_export_exact_bias_writes_b_times_wb_equal_intercept(tmp_path, heart):
    model = fit(*heart, intercept_mode="exact")
    models.export_liblinear(model, tmp_path / "m.txt")
    lines = (tmp_path / "m.txt").read_text().splitlines()
    assert lines[:6] == ["solver_type L2R_L2LOSS_SVC_DUAL", "nr_class 2", "label 1 -1",
                         "nr_feature 13", "bias 1", "w"]
    assert len(lines) == 6 + 13 + 1 and all(line.endswith(" ") for line in lines[6:])
    assert 1.0 * float(lines[-1]) == model.intercept_[0]
    assert np.array_equal([float(v) for v in lines[6:-1]], model.coef_[0])


def test_export_refuses_non_integer_labels(tmp_path, heart):
    X, y = heart
    halves = fit(X, y)
    halves.classes_ = np.array([-1.0, 1.5])  # scikit-learn fits no 'continuous' labels
    for model in (halves, fit(X, np.where(y > 0, "yes", "no"))):
        with pytest.raises(ModelError, match="integer class labels"):
            models.export_liblinear(model, tmp_path / "m.txt")
    assert not list(tmp_path.iterdir())


LIBLINEAR_TRAININGS = ["-s 0", "-s 1", "-s 1 -B 1", "-s 2 -B 2", "-s 3 -B 1", "-s 4",
                       "-s 5", "-s 6 -B 1", "-s 7"]


@pytest.mark.parametrize("options", LIBLINEAR_TRAININGS)
@pytest.mark.parametrize("classes", [2, 3])
def test_import_liblinear_models_predicts_the_same(tmp_path, heart, heart3, options, classes):
    X, y = heart if classes == 2 else heart3
    theirs = ll.train(y, X, options + " -q")
    ll.save_model(str(tmp_path / "m.txt"), theirs)
    ours = models.import_liblinear(tmp_path / "m.txt")
    assert np.array_equal(ours.predict(X), liblinear_labels(theirs, X))
    assert list(ours.classes_) == sorted(set(y))
    # and back: our export of the imported model predicts the same in LIBLINEAR
    models.export_liblinear(ours, tmp_path / "back.txt")
    again = ll.load_model(str(tmp_path / "back.txt"))
    assert np.array_equal(liblinear_labels(again, X), liblinear_labels(theirs, X))


def test_liblinear_file_as_written_by_liblinear(tmp_path, heart):
    """Labels in first-seen order (0 before 1): w decides for label[0]."""
    X, y = heart
    y01 = (y > 0).astype(float)
    order = np.argsort(y01, kind="stable")  # all 0s first: LIBLINEAR writes "label 0 1"
    theirs = ll.train(y01[order], X[order], "-s 1 -B 1 -q")
    ll.save_model(str(tmp_path / "m.txt"), theirs)
    assert "label 0 1" in (tmp_path / "m.txt").read_text()
    ours = models.import_liblinear(tmp_path / "m.txt")
    assert np.array_equal(ours.predict(X), liblinear_labels(theirs, X))


BAD_LIBLINEAR = {
    # regressions (-s 11, 12, 13) import as LinearSVR (tests/test_linear_svr.py); bad ones do not
    "svr-label": ("solver_type L2R_L2LOSS_SVR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1 \n",
                  "no 'label' line"),
    "svr-truncated": ("solver_type L2R_L1LOSS_SVR_DUAL\nnr_class 2\nnr_feature 2\nbias 1\nw\n1 \n",
                      "truncated"),
    # -s 21 imports as LinearOneClassSVM (tests/test_linear_one_class.py); bad ones do not
    "one-class-no-rho": ("solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nw\n1 \n",
                         "no 'rho'"),
    "one-class-bias": ("solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias 1\nrho 1\nw\n1 \n"
                       "2 \n", "no bias feature"),
    "one-class-label": ("solver_type ONECLASS_SVM\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\n"
                        "rho 1\nw\n1 \n", "no 'label'"),
    "rho-in-classifier": ("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\n"
                          "rho 1\nw\n1 \n", "'rho'"),
    "unknown-solver": ("solver_type FOO\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1 \n",
                       "unknown solver_type"),
    "unknown-key": ("solver_type L2R_LR\ncolour blue\nw\n", "unknown text"),
    "truncated": ("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias 1\nw\n1 \n2 \n",
                  "truncated"),
    "too-many": ("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1 \n2 \n",
                 "expected 1"),
    "weight": ("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\nabc \n",
               "not a number"),
    "nan": ("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\nnan \n", "NaN"),
    "no-label": ("solver_type L2R_LR\nnr_class 2\nnr_feature 1\nbias -1\nw\n1 \n", "'label'"),
    "label": ("solver_type L2R_LR\nnr_class 2\nlabel 1 x\nnr_feature 1\nbias -1\nw\n1 \n", "bad value"),
    "no-w": ("solver_type L2R_LR\nnr_class 2\n", "no 'w'"),
    "empty": ("", "empty"),
    "binary": (b"\x00\x01\x02\xff" * 10, "binary"),
}


@pytest.mark.parametrize("case", BAD_LIBLINEAR)
def test_import_liblinear_rejects(tmp_path, case):
    content, word = BAD_LIBLINEAR[case]
    path = write(tmp_path / "m.txt", content)
    with pytest.raises(ModelError) as info:
        models.import_liblinear(path)
    assert word in str(info.value) and "\n" not in str(info.value)


def test_import_liblinear_refuses_a_dualsvm_model(good_model):
    with pytest.raises(ModelError, match="dualsvm model"):
        models.import_liblinear(good_model)


def test_load_any_model_detects_the_format(tmp_path, good_model, heart):
    X, _ = heart
    models.export_liblinear(models.load_model(good_model), tmp_path / "m.txt")
    a, b = models.load_any_model(good_model), models.load_any_model(tmp_path / "m.txt")
    assert np.array_equal(a.predict(X), b.predict(X))


def test_format_label():
    assert [format_label(v) for v in (1.0, -1.0, 2.5, np.int64(3), "a")] == ["1", "-1", "2.5", "3", "a"]


def test_atomic_write_keeps_mode_of_existing_file(tmp_path, good_model):
    os.chmod(good_model, 0o640)
    models.save_model(models.load_model(good_model), good_model)
    assert os.stat(good_model).st_mode & 0o777 == 0o640
