"""``dualsvm grid``: LIBSVM's grid.py on the command line, its rates by warm-started
paths over C against independent cross-validations, its resumption, its refusals, and
its files against Debian's svm-grid (libsvm-tools)."""

import re

import numpy as np
import pytest
from libsvm_tools import libsvm_tool, run_tool
from sklearn.model_selection import StratifiedKFold

from dualsvm import SVC, cli
from dualsvm.cli.grid import coarse_to_fine, log2_values, read_out_file
from dualsvm.data.svmlight import read_svmlight

#: A small grid on heart_scale (7 x 5 points) that runs in about a second.
SMALL = ("-log2c", "-3,9,2", "-log2g", "1,-7,-2")
POINT = re.compile(r"^\[(local|resumed)\] (\S+) (\S+) (\S+) \(best c=(\S+), g=(\S+), "
                   r"rate=(\S+)\)$")


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def points(out):
    """[(worker, log2c, log2g, rate)] of grid's point lines, in their order."""
    found = []
    for line in out.splitlines()[:-1]:
        match = POINT.match(line)
        assert match, line
        found.append((match[1], float(match[2]), float(match[3]), float(match[4])))
    return found


def assert_agree(rates, theirs, n):
    """Warm-started and cold fits stop by the same rule (-e) at slightly different
    points: a sample on the margin may fall on the other side, at one point at most."""
    differ = [(a, b) for a, b in zip(rates, theirs) if a != b]
    assert len(differ) <= 1 and all(abs(a - b) <= 100.0 / n + 1e-4 for a, b in differ), differ


def grid_py_best(found):
    """grid.py's best of points in their order: a higher rate, or the same rate at the
    same gamma with a smaller C (written out again here, from its update_param)."""
    best = (None, None, -1.0)
    for _, c, g, rate in found:
        if rate > best[2] or (rate == best[2] and g == best[1] and c < best[0]):
            best = (c, g, rate)
    return best


@pytest.fixture
def heart(data_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # grid's default out and png files are written here
    return data_dir / "heart_scale"


def test_rates_are_those_of_an_independent_cross_validation(capsys, heart):
    status, out, err = run(capsys, "grid", *SMALL, "-out", "null", "-png", "null", heart)
    assert status == 0 and err == ""
    found = points(out)
    assert [(c, g) for _, c, g, _ in found] == [
        (c, g) for g in coarse_to_fine(log2_values((1.0, -7.0, -2.0)))
        for c in coarse_to_fine(log2_values((-3.0, 9.0, 2.0)))]
    X, y = read_svmlight(heart)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    theirs = []
    for _, c, g, _ in found:
        right = sum(int(np.count_nonzero(
            SVC(C=2.0 ** c, gamma=2.0 ** g).fit(X[train], y[train]).predict(X[test]) == y[test]))
            for train, test in folds)
        theirs.append(float("%g" % (100.0 * right / len(y))))
    assert_agree([rate for *_, rate in found], theirs, len(y))
    # the best, last, in grid.py's format and by its rule; svm-train -v's rate there
    c, g, rate = grid_py_best(found)
    assert out.splitlines()[-1] == f"{2.0 ** c} {2.0 ** g} {rate}"
    status, cv, _ = run(capsys, "train", "-c", 2.0 ** c, "-g", 2.0 ** g, "-v", "5", heart)
    assert status == 0 and cv == "Cross Validation Accuracy = %g%%\n" % rate


def test_kernel_options_and_weights_reach_every_cross_validation(capsys, heart):
    options = ("-t", "1", "-d", "2", "-r", "1", "-e", "0.0001", "-w1", "2", "-h", "0")
    status, out, _ = run(capsys, "grid", "-log2c", "-1,3,2", "-log2g", "-1,-3,-1", *options,
                         "-out", "null", "-png", "null", heart)
    assert status == 0
    found, theirs = points(out), []
    for _, c, g, _ in found:
        _, cv, _ = run(capsys, "train", *options, "-c", 2.0 ** c, "-g", 2.0 ** g, "-v", "5",
                       heart)
        theirs.append(float(cv.split("= ")[1].rstrip("%\n")))
    assert_agree([rate for *_, rate in found], theirs, 270)


@pytest.mark.parametrize("solver", ["ws", "dc"])
def test_the_kernel_solver_is_that_of_train(capsys, heart, solver):
    status, out, _ = run(capsys, "grid", "--kernel-solver", solver, "-log2c", "-1,5,3",
                         "-log2g", "-1,-3,-2", "-out", "null", "-png", "null", heart)
    assert status == 0
    found, theirs = points(out), []
    for _, c, g, _ in found:
        _, cv, _ = run(capsys, "train", "--kernel-solver", solver, "-c", 2.0 ** c, "-g", 2.0 ** g,
                       "-v", "5", heart)
        theirs.append(float(cv.split("= ")[1].rstrip("%\n")))
    assert_agree([rate for *_, rate in found], theirs, 270)


def test_one_worker_and_two_give_the_same_lines(capsys, heart):
    outs = [run(capsys, "grid", *SMALL, "--workers", workers, "-out", "null", "-png", "null",
                heart)[1] for workers in ("1", "2")]
    assert outs[0] == outs[1] and len(outs[0].splitlines()) == 36


def test_null_ranges_search_one_parameter(capsys, heart, tmp_path):
    status, out, _ = run(capsys, "grid", "-log2c", "null", "-log2g", "1,-3,-2", "-out", "o",
                         "-png", "p.png", heart)
    assert status == 0
    lines = out.splitlines()
    assert re.fullmatch(r"\[local\] -1\.0 \S+ \(best g=\S+, rate=\S+\)", lines[0])
    assert re.fullmatch(r"\S+ \S+", lines[-1]) and len(lines) == 4
    assert (tmp_path / "o").read_text().startswith("log2g=-1.0 rate=")
    assert not (tmp_path / "p.png").exists()  # a contour needs both parameters
    # C = 1 and gamma = 1/num_features when not searched: svm-train's defaults
    status, out, _ = run(capsys, "grid", "-log2c", "-1,1,2", "-log2g", "null", "-out", "null",
                         "-png", "null", heart)
    rate = float(out.splitlines()[-1].split()[1])
    _, cv, _ = run(capsys, "train", "-t", "2", "-c", out.split()[-2], "-v", "5", heart)
    assert cv == "Cross Validation Accuracy = %g%%\n" % rate


def test_resume_skips_the_points_of_the_out_file(capsys, heart, tmp_path):
    status, full, _ = run(capsys, "grid", *SMALL, "-out", "all.out", "-png", "null", heart)
    assert status == 0
    lines = (tmp_path / "all.out").read_text().splitlines()
    assert len(lines) == 35 and all(re.fullmatch(r"log2c=\S+ log2g=\S+ rate=\S+", l) for l in lines)
    # 9 points kept (a gamma and part of the next): the rest is computed, warm-started
    # over the missing values of C only, and appended
    (tmp_path / "part.out").write_text("\n".join(lines[:9]) + "\n")
    status, out, _ = run(capsys, "grid", *SMALL, "-resume", "part.out", "-out", "part.out",
                         "-png", "null", heart)
    assert status == 0
    found = points(out)
    assert [w for w, *_ in found] == ["resumed"] * 9 + ["local"] * 26
    assert out.splitlines()[-1] == full.splitlines()[-1]
    assert read_out_file(tmp_path / "part.out") == read_out_file(tmp_path / "all.out")
    # a resumed point is taken from the file, not computed again
    (tmp_path / "forged.out").write_text(lines[0].split("rate=")[0] + "rate=100\n")
    status, out, _ = run(capsys, "grid", *SMALL, "-resume", "forged.out", "-out", "null",
                         "-png", "null", heart)
    c, g = (float(v) for v in re.findall(r"=(\S+)", lines[0])[:2])
    assert out.splitlines()[-1] == f"{2.0 ** c} {2.0 ** g} 100.0"
    # -resume without a path reads FILE's basename + '.out', the default -out
    assert run(capsys, "grid", *SMALL, "-png", "null", heart)[0] == 0
    status, out, _ = run(capsys, "grid", *SMALL, "-png", "null", "-resume", heart)
    assert status == 0 and all(w == "resumed" for w, *_ in points(out))


def test_default_files_and_plot(capsys, heart, tmp_path):
    status, _, err = run(capsys, "grid", *SMALL, "-svmtrain", "/usr/bin/svm-train", heart)
    assert status == 0 and "-svmtrain /usr/bin/svm-train is ignored" in err
    assert len((tmp_path / "heart_scale.out").read_text().splitlines()) == 35
    assert (tmp_path / "heart_scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "heart_scale.png").unlink()
    assert run(capsys, "grid", *SMALL, "-gnuplot", "null", heart)[0] == 0
    assert not (tmp_path / "heart_scale.png").exists()


@pytest.mark.parametrize("options, message", [
    (("-c", "1"), "dualsvm grid: error: -c is searched by grid: use -log2c and -log2g"),
    (("-g", "1"), "dualsvm grid: error: -g is searched by grid"),
    (("-s", "3"), "dualsvm grid: error: -s 3 is not searched"),
    (("-t", "4"), "dualsvm grid: error: -t 4 (a precomputed kernel) is not searched"),
    (("-b", "1"), "dualsvm grid: error: -b 1 is not searched"),
    (("-n", "0.5"), "dualsvm grid: error: -n (nu)"),
    (("--kernel-solver", "nope"), "dualsvm grid: error: solver must be one of"),
    (("--dc-levels", "2"), "dualsvm grid: error: --dc-levels configures divide and conquer"),
    (("--kernel-solver", "ws", "-h", "0"), "dualsvm grid: error: solver='ws' has no shrinking"),
    (("-log2c", "1,2"), "dualsvm grid: error: argument -log2c: -log2c takes BEGIN,END,STEP"),
    (("-log2g", "1,5,-1"), "dualsvm grid: error: -log2g 1,5,-1 is an empty range"),
    (("-log2c", "null", "-log2g", "null"), "dualsvm grid: error: -log2c and -log2g should not"),
    (("-v", "1"), "dualsvm grid: error: argument -v: the number of folds must be >= 2"),
    (("--workers", "0"), "dualsvm grid: error: argument --workers: workers must be >= 1"),
    (("-w1",), "dualsvm grid: error: -w1 needs a weight after it"),
    (("-resume", "missing.out"), "dualsvm: error: missing.out: the file for resumption"),
    (("-out", "no/such/dir/x.out"), "dualsvm: error: cannot write out file no/such/dir/x.out"),
    (("-png", "no/such/dir/x.png"), "dualsvm: error: cannot write plot file"),
])
def test_bad_options_are_refused_with_one_line(capsys, heart, options, message):
    status, out, err = run(capsys, "grid", *options, heart)
    assert status in (1, 2) and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err


def test_bad_data_is_refused_with_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one_class").write_text("1 1:0.5\n1 1:0.25\n1 1:1\n")
    (tmp_path / "bad").write_text("1 1:0.5\nx 1:2\n")
    for name, message in (("one_class", "the data contains only one class"),
                          ("bad", "line 2"), ("missing", "missing")):
        status, out, err = run(capsys, "grid", "-out", "null", "-png", "null", name)
        assert status == 1 and err.startswith("dualsvm: error: ") and message in err
        assert err.count("\n") == 1 and out == ""


def test_out_files_are_read_both_ways_with_svm_grid(capsys, heart, tmp_path):
    """svm-grid's out file resumes dualsvm grid (nothing computed, svm-grid's best
    printed), and dualsvm grid's resumes svm-grid; the lines have the same form."""
    svm_train = libsvm_tool("svm-train")
    status, theirs, _ = run_tool("svm-grid", "-svmtrain", svm_train, "-gnuplot", "null",
                                 "-out", tmp_path / "theirs.out", *SMALL, heart)
    assert status == 0
    status, out, _ = run(capsys, "grid", *SMALL, "-resume", "theirs.out", "-out", "null",
                         "-png", "null", heart)
    assert status == 0 and {w for w, *_ in points(out)} == {"resumed"}
    assert out.splitlines()[-1] == theirs.splitlines()[-1]
    assert sorted(points(out), key=lambda p: p[1:3]) == sorted(
        points(theirs.replace("[local]", "[resumed]")), key=lambda p: p[1:3])

    status, ours, _ = run(capsys, "grid", *SMALL, "-out", "ours.out", "-png", "null", heart)
    assert status == 0
    status, resumed, _ = run_tool("svm-grid", "-svmtrain", svm_train, "-gnuplot", "null",
                                  "-out", "null", "-resume", tmp_path / "ours.out", *SMALL, heart)
    assert status == 0 and "[local]" not in resumed
    assert resumed.splitlines()[-1] == ours.splitlines()[-1]
    # LIBSVM's own folds differ from ours: the rates agree to a few points only
    assert abs(float(theirs.split()[-1]) - float(ours.split()[-1])) < 5.0
