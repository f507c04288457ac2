"""``dualsvm scale``, :mod:`dualsvm.data.scaling` and ``SVMScaler`` against Debian's
svm-scale (LIBSVM 3.24): the same bytes on stdout and in range files, both ways."""

import io
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import _get_check_estimator_ids, estimator_checks_generator

from dualsvm import SVMScaler, cli
from dualsvm.data.scaling import apply_ranges, compute_ranges, read_range_file, \
    unseen_features, write_range_file, write_scaled
from dualsvm.data.svmlight import read_svmlight
from dualsvm.exceptions import DataError
from libsvm_tools import plain_copy, run_tool


def run(capsys, *argv):
    """cli.main(argv) -> (exit status, stdout, stderr)."""
    status = cli.main(["scale", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def plain(data_dir, tmp_path_factory):
    """plain(name): the decompressed copy of tests/data/name.bz2."""
    directory = tmp_path_factory.mktemp("plain")
    made = {}

    def get(name):
        if name not in made:
            made[name] = plain_copy(data_dir, name, directory)
        return made[name]
    return get


# (data set, options): svm-scale's defaults, -l 0 (sparse stays sparse), other limits, -y
CASES = [("svmguide1", []), ("a9a", []), ("a9a", ["-l", "0"]), ("svmguide1", ["-y", "0", "1"]),
         ("svmguide1", ["-l", "0", "-u", "5", "-y", "-1", "1"])]


@pytest.mark.parametrize("name, options", CASES, ids=[f"{n} {' '.join(o)}" for n, o in CASES])
def test_output_and_range_file_are_svm_scale_s_bytes(capsys, tmp_path, data_dir, plain, name,
                                                       options):
    status, theirs, their_err = run_tool("svm-scale", *options, "-s", tmp_path / "theirs",
                                         plain(name))
    assert status == 0
    # from the compressed file: svm-scale reads plain text only, dualsvm either
    status, ours, err = run(capsys, *options, "-s", tmp_path / "ours", data_dir / f"{name}.bz2")
    assert status == 0 and ours == theirs
    assert (tmp_path / "ours").read_bytes() == (tmp_path / "theirs").read_bytes()
    # the warning that -l -1 made sparse data denser: where svm-scale gives it
    assert ("#nonzeros" in err) == ("#nonzeros" in their_err)


@pytest.mark.parametrize("train, test", [("svmguide1", "svmguide1.t"), ("a9a", "a9a.t")])
def test_range_files_restore_both_ways(capsys, tmp_path, plain, train, test):
    """A range file of dualsvm -s restored by svm-scale -r, and one of svm-scale -s by
    dualsvm -r, scale the test file as svm-scale does (a9a.t lacks feature 123)."""
    assert run(capsys, "-s", tmp_path / "ours", plain(train))[0] == 0
    assert run_tool("svm-scale", "-s", tmp_path / "theirs", plain(train))[0] == 0
    expected = run_tool("svm-scale", "-r", tmp_path / "theirs", plain(test))[1]
    assert run_tool("svm-scale", "-r", tmp_path / "ours", plain(test))[1] == expected
    status, ours, _ = run(capsys, "-r", tmp_path / "theirs", plain(test))
    assert status == 0 and ours == expected


def test_features_without_a_range_are_scaled_to_0_with_svm_scale_s_warnings(capsys, tmp_path):
    """Feature 4 is constant in training (no range), 5 and 6 beyond the range file: those
    that vary in the test file (4, 5) are warned about; all three become 0; feature 3,
    absent from the test file, is its zero scaled."""
    train = tmp_path / "train"
    train.write_text("0.1 1:1 3:2 4:7\n-2.5 1:3 2:5 3:2 4:7\n1e-7 2:1 4:7\n")
    test = tmp_path / "test"
    test.write_text("1 1:2 4:1 5:3 6:1\n2 1:0 4:7 5:4 6:1\n")
    assert run_tool("svm-scale", "-s", tmp_path / "range", train)[0] == 0
    status, expected, their_err = run_tool("svm-scale", "-r", tmp_path / "range", test)
    status, ours, err = run(capsys, "-r", tmp_path / "range", test)
    assert status == 0 and ours == expected
    assert "4:" not in ours and "5:" not in ours and "6:" not in ours and "3:-1" in ours
    warned = [line.split("feature index ")[1].split()[0] for line in err.splitlines()]
    their_warned = [line.split("feature index ")[1].split()[0]
                    for line in their_err.splitlines() if "feature index" in line]
    assert warned == their_warned == ["4", "5"]


@pytest.mark.parametrize("options, words", [
    (["-s", "S", "-r", "R"], "cannot use -r and -s"),
    (["-l", "1", "-u", "0"], "-u 0 is not above -l 1"),
    (["-l", "0", "-u", "0"], "-u 0 is not above -l 0"),
    (["-y", "1", "1"], "y_upper must be above y_lower"),
    (["-l", "x"], "lower (-l) must be a number"),
    (["-y", "1"], "-y limit must be a number"),  # the file taken as Y_UPPER
])
def test_bad_options_are_one_usage_line(capsys, tmp_path, data_dir, options, words):
    status, out, err = run(capsys, *options, data_dir / "heart_scale")
    assert status == 2 and out == "" and words in err and len(err.splitlines()) == 1


def test_limits_given_with_r_must_be_the_range_file_s(capsys, tmp_path, data_dir):
    """svm-scale lets the file's limits override -l -u -y silently: refused here, unless equal."""
    ranges = tmp_path / "range"
    assert run(capsys, "-l", "0", "-s", ranges, data_dir / "heart_scale")[0] == 0
    same = run(capsys, "-l", "0", "-r", ranges, data_dir / "heart_scale")
    assert same[0] == 0 and same[1] == run(capsys, "-r", ranges, data_dir / "heart_scale")[1]
    for options, words in ((["-l", "-1"], "-l -1 differs from the range file's 0"),
                           (["-u", "2"], "-u 2 differs from the range file's 1"),
                           (["-y", "0", "1"], "scales no labels")):
        status, out, err = run(capsys, *options, "-r", ranges, data_dir / "heart_scale")
        assert status == 2 and out == "" and words in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("content, words", [
    ("", "expected the line 'x'"),
    ("x\n-1\n", "line 2: expected lower upper"),
    ("x\n1 -1\n", "upper -1.0 is not above lower 1.0"),
    ("x\n-1 1\n2 0 1\n1 0 1\n", "line 4: feature index 1"),
    ("x\n-1 1\n1 0 one\n", "line 3: expected 'index min max'"),
    ("y\n0 1\n", "ends before y_min y_max"),
    ("\x00\x01binary", "not a range file"),
])
def test_bad_range_file_is_one_error_line(capsys, tmp_path, data_dir, content, words):
    ranges = tmp_path / "range"
    ranges.write_bytes(content.encode("latin-1"))
    status, out, err = run(capsys, "-r", ranges, data_dir / "heart_scale")
    assert status == 1 and out == "" and words in err and str(ranges) in err
    assert len(err.splitlines()) == 1
    status, _, err = run(capsys, "-r", tmp_path / "missing", data_dir / "heart_scale")
    assert status == 1 and "no such file" in err


def test_bad_data_and_unwritable_range_file_are_one_error_line(capsys, tmp_path, data_dir):
    bad = tmp_path / "bad"
    bad.write_text("1 1:1\n1 2:x\n")
    status, out, err = run(capsys, bad)
    assert status == 1 and out == "" and "line 2: feature value 'x'" in err
    status, out, err = run(capsys, "-s", tmp_path / "no" / "dir", data_dir / "heart_scale")
    assert status == 1 and out == "" and "cannot write range file" in err


# --- the Python API ------------------------------------------------------------------


def test_sparse_stays_sparse_where_zeros_stay_zeros(load):
    X, y = load("a9a.bz2")
    X_scaled, y_scaled = apply_ranges(compute_ranges(X, y, lower=0.0), X, y)
    assert sp.issparse(X_scaled) and X_scaled.nnz == X.nnz and np.array_equal(y_scaled, y)
    X_filled, _ = apply_ranges(compute_ranges(X, y), X, y)  # -l -1: every zero becomes -1
    assert X_filled.nnz == X.shape[0] * np.count_nonzero(X.max(axis=0).toarray())


def test_dense_and_sparse_scale_alike_and_the_map_is_svm_scale_s(load):
    X, y = load("svmguide1.bz2")
    ranges = compute_ranges(X, y, lower=-2.0, upper=3.0, y_range=(0.0, 1.0))
    sparse, y_sparse = apply_ranges(ranges, X, y)
    dense, y_dense = apply_ranges(compute_ranges(X.toarray(), y, lower=-2.0, upper=3.0,
                                                 y_range=(0.0, 1.0)), X.toarray(), y)
    assert np.array_equal(sparse.toarray(), dense) and np.array_equal(y_sparse, y_dense)
    low, high = X.toarray().min(axis=0), X.toarray().max(axis=0)
    np.testing.assert_allclose(dense, -2 + 5 * (X.toarray() - low) / (high - low), atol=1e-12)
    assert dense.min() == -2.0 and dense.max() == 3.0 and set(y_dense) == {0.0, 1.0}


def test_range_file_round_trip_and_unseen_features(tmp_path):
    X = sp.csr_matrix(np.array([[1.0, 0, 2, 5], [3, 5, 2, 5], [0, 1, 0, 5]]))
    ranges = compute_ranges(X, np.array([1.0, 2, 3]), y_range=(-1, 1))
    write_range_file(ranges, tmp_path / "r")
    back = read_range_file(tmp_path / "r")
    assert back.y_min == 1 and back.y_max == 3 and (back.lower, back.upper) == (-1, 1)
    # feature 4 is single-valued: not in the file, scaled to 0 either way
    assert back.n_features == 3
    assert np.array_equal(apply_ranges(back, X)[0].toarray(), apply_ranges(ranges, X)[0].toarray())
    wider = sp.hstack([X, sp.csr_matrix(np.array([[0.0], [1], [0]]))]).tocsr()
    assert list(unseen_features(back, wider)) == [5]
    assert list(unseen_features(ranges, wider)) == [5]  # column 4 is constant in wider too


def test_write_scaled_prints_svm_scale_s_lines():
    out = io.StringIO()
    write_scaled(out, sp.csr_matrix(np.array([[0.5, 0, 1e-5], [0, 0, 0]])), [0.1, -1])
    assert out.getvalue() == "0.10000000000000001 1:0.5 3:1e-05 \n-1 \n"


def test_compute_ranges_refuses_bad_limits():
    X = np.eye(2)
    with pytest.raises(ValueError, match="upper limit must be above"):
        compute_ranges(X, lower=1, upper=1)
    with pytest.raises(ValueError, match="y_range needs the labels"):
        compute_ranges(X, y_range=(0, 1))
    with pytest.raises(DataError, match="no such file"):
        read_range_file("/nonexistent/range")


# --- SVMScaler -----------------------------------------------------------------------


@pytest.mark.parametrize("estimator, check", list(estimator_checks_generator(SVMScaler(),
                                                                              mark="xfail")),
                         ids=_get_check_estimator_ids)
def test_sklearn_estimator_contract(estimator, check):
    check(estimator)


def test_scaler_dense_equals_sparse_and_the_command_line(capsys, load, data_dir):
    X, y = load("svmguide1.bz2")
    sparse = SVMScaler(lower=0, upper=2).fit_transform(X)
    dense = SVMScaler(lower=0, upper=2).fit_transform(X.toarray())
    assert sp.issparse(sparse) and isinstance(dense, np.ndarray)
    assert np.array_equal(sparse.toarray(), dense)
    expected = io.StringIO()
    write_scaled(expected, sparse, y)
    assert run(capsys, "-l", "0", "-u", "2", data_dir / "svmguide1.bz2")[1] == expected.getvalue()


def test_scaler_range_files_with_svm_scale(tmp_path, plain):
    """save_ranges is restored by svm-scale -r; svm-scale -s is restored by range_file."""
    X, y = read_svmlight(plain("svmguide1"))
    X_test, y_test = read_svmlight(plain("svmguide1.t"))
    scaler = SVMScaler().fit(X)
    scaler.save_ranges(tmp_path / "ours")
    expected = run_tool("svm-scale", "-r", tmp_path / "ours", plain("svmguide1.t"))[1]
    ours = io.StringIO()
    write_scaled(ours, scaler.transform(X_test), y_test)
    assert ours.getvalue() == expected
    assert run_tool("svm-scale", "-s", tmp_path / "theirs", plain("svmguide1"))[0] == 0
    restored = SVMScaler(range_file=tmp_path / "theirs").fit(X_test)
    assert np.array_equal(restored.transform(X_test).toarray(),
                          scaler.transform(X_test).toarray())
    with pytest.raises(ValueError, match="differs from the range file"):
        SVMScaler(lower=0, range_file=tmp_path / "theirs").fit(X_test)


def test_scaler_warns_of_features_without_a_range():
    scaler = SVMScaler().fit(np.array([[0.0, 1.0], [1.0, 1.0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(scaler.transform(np.array([[0.5, 1.0]])), [[0.0, 0.0]])
    with pytest.warns(UserWarning, match="index 2"):  # it varies in the data transformed
        assert np.array_equal(scaler.transform(np.array([[1.0, 3.0], [0.0, 1.0]])),
                              [[1.0, 0.0], [-1.0, 0.0]])


def test_a_closed_pipe_ends_quietly(data_dir):
    """``dualsvm scale FILE | head -1``: no error message, no traceback (as svm-scale)."""
    import subprocess
    import sys

    done = subprocess.run(f"{sys.executable} -m dualsvm scale {data_dir / 'a9a.bz2'} | head -1",
                          shell=True, capture_output=True, text=True, timeout=300)
    assert done.stdout.startswith("-1 1:-1 2:-1 3:1 ") and done.stdout.count("\n") == 1
    assert done.stderr == ""
