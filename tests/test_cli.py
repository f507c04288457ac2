"""The command line, in-process through cli.main, plus one run of the installed script."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from liblinear import liblinearutil as ll

from dualsvm import cli
from dualsvm.estimators import model_io as models
from dualsvm.data.svmlight import read_svmlight
from dualsvm.solvers import dcd
from reference import liblinear_model_weights, primal


def run(capsys, *argv):
    """cli.main(argv) -> (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def accuracy_line(liblinear_model, X, y):
    """The line LIBLINEAR's predict prints, from LIBLINEAR's own predictions."""
    _, (accuracy, _, _), _ = ll.predict(y, X, liblinear_model, "-q")
    return "Accuracy = %g%% (%d/%d)" % (accuracy, round(len(y) * accuracy / 100), len(y))


def objective(liblinear_model, X, y, *, loss, C, exact=False):
    """The primal objective of a binary LIBLINEAR model object by reference.primal; exact:
    the bias feature's weight is an unregularized intercept."""
    w = liblinear_model_weights(liblinear_model, positive=1.0)
    if liblinear_model.bias <= 0:
        return primal(X, y, w, loss=loss, C=C)
    if exact:
        return primal(X, y, w[:-1], loss=loss, C=C, intercept=w[-1] * liblinear_model.bias)
    return primal(X, y, w, loss=loss, C=C, bias="augmented",
                  intercept_scaling=liblinear_model.bias)


@pytest.fixture(scope="module")
def heart(data_dir):
    return read_svmlight(data_dir / "heart_scale")


# --- train and predict agree with LIBLINEAR --------------------------------------


# our options; LIBLINEAR's for the same problem (for the exact bias: the nearest, with a
# regularized bias); loss; C; whether both are solved tightly
@pytest.mark.parametrize("options,peer,loss,C,tight", [
    ([], "", "squared_hinge", 1.0, False),
    (["-s", "3", "-B", "1"], "-s 3 -B 1", "hinge", 1.0, False),
    (["-c", "2", "-e", "1e-5"], "-c 2 -e 1e-5", "squared_hinge", 2.0, True),
    (["--exact-bias", "-c", "2"], "-c 2 -B 1", "squared_hinge", 2.0, False)])
def test_train_predict_heart_scale_matches_liblinear(tmp_path, capsys, data_dir, heart, options,
                                                     peer, loss, C, tight):
    X, y = heart
    model, out = tmp_path / "m.model", tmp_path / "out"
    assert run(capsys, "train", "-q", *options, data_dir / "heart_scale", model)[0] == 0
    status, stdout, _ = run(capsys, "predict", data_dir / "heart_scale", model, out)
    assert status == 0
    assert run(capsys, "export-liblinear", model, tmp_path / "m.txt")[0] == 0
    exported = ll.load_model(str(tmp_path / "m.txt"))
    assert stdout.strip() == accuracy_line(exported, X, y)
    labels, _, _ = ll.predict([], X, exported, "-q")
    assert out.read_text().split("\n") == [str(int(v)) for v in labels] + [""]
    # training: our objective against LIBLINEAR's on the same data and options
    exact = "--exact-bias" in options
    ours = objective(exported, X, y, loss=loss, C=C, exact=exact)
    theirs = objective(ll.train(y, X, peer + " -q"), X, y, loss=loss, C=C, exact=exact)
    if tight:
        assert abs(ours - theirs) <= 1e-7 * theirs
    else:  # at LIBLINEAR's default -e 0.1 both stop short of the optimum
        assert ours <= theirs * (1 + 1e-3)


def test_predict_with_a_liblinear_model_matches_liblinear(tmp_path, capsys, data_dir, heart):
    X, y = heart
    theirs = ll.train(y, X, "-s 1 -B 1 -q")
    ll.save_model(str(tmp_path / "ll.model"), theirs)
    status, stdout, _ = run(capsys, "predict", data_dir / "heart_scale", tmp_path / "ll.model",
                            tmp_path / "out")
    assert status == 0 and stdout.strip() == accuracy_line(theirs, X, y)
    labels, _, _ = ll.predict([], X, theirs, "-q")
    assert np.array_equal(np.loadtxt(tmp_path / "out"), labels)


def test_a9a_train_predict_matches_liblinear_both_ways(tmp_path, capsys, data_dir):
    """a9a has 123 features, a9a.t only 122: predict pads the test file."""
    Xt, yt = read_svmlight(data_dir / "a9a.t.bz2")
    assert Xt.shape[1] == 122
    ours = tmp_path / "a9a.model"
    assert run(capsys, "train", "-q", "-B", "1", data_dir / "a9a.bz2", ours)[0] == 0
    status, stdout, _ = run(capsys, "predict", data_dir / "a9a.t.bz2", ours, tmp_path / "out")
    assert status == 0
    assert run(capsys, "export-liblinear", ours, tmp_path / "a9a.txt")[0] == 0
    exported = ll.load_model(str(tmp_path / "a9a.txt"))
    assert exported.get_nr_feature() == 123
    assert stdout.strip() == accuracy_line(exported, Xt, yt)

    X, y = read_svmlight(data_dir / "a9a.bz2")
    theirs = ll.train(y, X, "-s 1 -B 1 -q")
    ll.save_model(str(tmp_path / "ll.model"), theirs)
    status, stdout, _ = run(capsys, "predict", data_dir / "a9a.t.bz2", tmp_path / "ll.model",
                            tmp_path / "out2")
    assert status == 0 and stdout.strip() == accuracy_line(theirs, Xt, yt)
    # training with the same options reaches LIBLINEAR's objective (both at -e 0.1)
    assert (objective(exported, X, y, loss="squared_hinge", C=1.0)
            <= objective(theirs, X, y, loss="squared_hinge", C=1.0) * (1 + 1e-3))


def test_predict_drops_features_beyond_the_model(tmp_path, capsys, heart):
    """LIBLINEAR ignores test feature indices above nr_feature; so does predict."""
    train = tmp_path / "train"
    train.write_text("1 1:1 2:0.5\n-1 1:-1 2:-0.5\n1 1:0.8\n-1 2:-1\n")
    test = tmp_path / "test"
    test.write_text("1 1:1 7:100\n-1 2:-1 9:-100\n")
    assert run(capsys, "train", "-q", train, tmp_path / "m")[0] == 0
    status, stdout, _ = run(capsys, "predict", test, tmp_path / "m", tmp_path / "out")
    assert status == 0 and stdout == "Accuracy = 100% (2/2)\n"
    assert (tmp_path / "out").read_text() == "1\n-1\n"


# --- train's options and outputs --------------------------------------------------


def test_default_model_path_and_trace_output(tmp_path, capsys, data_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, stdout, stderr = run(capsys, "train", data_dir / "heart_scale")
    assert status == 0
    assert (tmp_path / "heart_scale.model").is_file()  # LIBLINEAR's default name
    assert stdout.startswith("optimization finished, #iter = ")
    assert "primal = " in stdout and "dual = " in stdout and "gap = " in stdout
    assert "epoch" in stderr and "rel.gap" in stderr  # the per-epoch trace


def test_json_summary_and_trace_file(tmp_path, capsys, data_dir):
    status, stdout, _ = run(capsys, "train", "-q", "--json", "-s", "3", "-c", "0.5", "-B", "1",
                            "--trace", tmp_path / "trace.jsonl", data_dir / "heart_scale",
                            tmp_path / "m")
    assert status == 0
    summary = json.loads(stdout)
    assert summary["solver"] == "dcd-l1" and summary["status"] == "converged"
    assert (summary["n_samples"], summary["n_features"], summary["classes"]) == (270, 13, [-1, 1])
    assert summary["model"] == str(tmp_path / "m")
    model = models.load_model(tmp_path / "m")
    assert summary["primal"] == model.primal_[0] and summary["gap"] == pytest.approx(model.gap_[0])
    assert summary["problems"][0]["iterations"] == summary["iterations"] == model.n_iter_
    records = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in records] == list(range(1, model.n_iter_ + 1))
    assert all(r["problem"] == 0 and r["gap"] is not None for r in records)
    assert records[-1]["primal"] == pytest.approx(model.primal_[0])


def test_multiclass_weights_and_exact_bias(tmp_path, capsys, heart):
    X, y = heart
    y3 = np.where((y > 0) & (X[:, 0].toarray().ravel() > 0), 2, y).astype(int)
    data = tmp_path / "three"
    data.write_text("".join(
        f"{label} " + " ".join(f"{j + 1}:{v:.17g}" for j, v in zip(row.indices, row.data)) + "\n"
        for label, row in zip(y3, X)))
    status, stdout, _ = run(capsys, "train", "-q", "--json", "--exact-bias", "-w2", "3",
                            "-w-1", "0.5", "--trace", tmp_path / "t", data, tmp_path / "m")
    assert status == 0
    summary = json.loads(stdout)
    assert summary["solver"] == "pair-dcd" and summary["classes"] == [-1, 1, 2]
    assert [p["class"] for p in summary["problems"]] == [-1, 1, 2]
    model = models.load_model(tmp_path / "m")
    assert model.class_weight == {2.0: 3.0, -1.0: 0.5} and model.intercept_mode == "exact"
    problems = {json.loads(line)["problem"] for line in (tmp_path / "t").read_text().splitlines()}
    assert problems == {0, 1, 2}


def test_cross_validation_writes_no_model(tmp_path, capsys, data_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, stdout, _ = run(capsys, "train", "-v", "5", data_dir / "heart_scale")
    assert status == 0
    value = stdout.strip().removeprefix("Cross Validation Accuracy = ").removesuffix("%")
    assert stdout.startswith("Cross Validation Accuracy = ") and 70 < float(value) < 95
    assert list(tmp_path.iterdir()) == []


def test_import_and_export_commands(tmp_path, capsys, heart):
    X, y = heart
    ll.save_model(str(tmp_path / "ll.txt"), ll.train(y, X, "-s 3 -B 1 -q"))
    assert run(capsys, "import-liblinear", tmp_path / "ll.txt", tmp_path / "m")[0] == 0
    assert run(capsys, "export-liblinear", tmp_path / "m", tmp_path / "back.txt")[0] == 0
    assert (tmp_path / "back.txt").read_text() == (tmp_path / "ll.txt").read_text()


def test_interrupted_training_still_saves_the_model(tmp_path, capsys, data_dir, monkeypatch):
    epoch = dcd.DualCD.epoch
    calls = []

    def interrupted_epoch(self):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return epoch(self)

    monkeypatch.setattr(dcd.DualCD, "epoch", interrupted_epoch)
    status, _, stderr = run(capsys, "train", "-q", "-e", "1e-12", data_dir / "heart_scale",
                            tmp_path / "m")
    assert status == 130 and "interrupted" in stderr and "Traceback" not in stderr
    model = models.load_model(tmp_path / "m")
    # unmonitored, an epoch() call runs a slice of passes (solvers/_driver.py)
    assert model.status_ == ["interrupted"] and model.n_iter_ > 2


def test_failed_save_keeps_the_old_model(tmp_path, capsys, data_dir, monkeypatch):
    path = tmp_path / "m"
    assert run(capsys, "train", "-q", "-c", "1", data_dir / "heart_scale", path)[0] == 0
    before = path.read_bytes()

    def full_disk(file, **arrays):
        file.write(b"PK\x03\x04partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    status, _, stderr = run(capsys, "train", "-q", "-c", "0.01", data_dir / "heart_scale", path)
    assert status == 1 and stderr.count("\n") == 1 and "No space left" in stderr
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["m"]


# --- every bad input: one line, non-zero, no traceback ----------------------------


def _bad_inputs(tmp_path, data_dir):
    heart = data_dir / "heart_scale"
    files = {
        "empty": b"",
        "malformed": b"1 1:1\nabc 2:1\n",
        "binary": bytes(range(256)) * 4,
        "nan": b"1 1:nan\n-1 1:1\n",
        "one-class": b"1 1:1\n1 2:1\n",
        "trunc.bz2": (data_dir / "a9a.t.bz2").read_bytes()[:5000],
        "foreign.npz": None,
        "junk.model": b"\x80\x04\x95 pickled junk",
        "half.model": None,
    }
    for name, content in files.items():
        if content is not None:
            (tmp_path / name).write_bytes(content)
    np.savez(tmp_path / "foreign.npz", weights=np.ones(3))
    models.save_model(models.import_liblinear(_liblinear_model(tmp_path, heart)), tmp_path / "ok.model")
    data = (tmp_path / "ok.model").read_bytes()
    (tmp_path / "half.model").write_bytes(data[: len(data) // 2])
    t = tmp_path
    return {
        "missing data": (["train", "-q", t / "nope"], "no such file"),
        "empty data": (["train", "-q", t / "empty"], "empty"),
        "malformed data": (["train", "-q", t / "malformed"], "line 2"),
        "binary data": (["train", "-q", t / "binary"], "binary"),
        "truncated data": (["train", "-q", t / "trunc.bz2"], "truncated"),
        "nan data": (["train", "-q", t / "nan"], "NaN"),
        "one class": (["train", "-q", t / "one-class"], "two classes"),
        "C zero": (["train", "-c", "0", heart], "C must be > 0"),
        "C negative": (["train", "-c", "-1", heart], "C must be > 0"),
        "C text": (["train", "-c", "abc", heart], "C must be a number"),
        "unknown option": (["train", "--colour", heart], "unrecognized"),
        "unknown short option": (["train", "-x", "1", heart], "unrecognized"),
        "unknown solver": (["train", "-s", "2", heart], "dualsvm trains -s 1"),
        "folds": (["train", "-v", "1", heart], "folds"),
        "bias and exact": (["train", "-B", "1", "--exact-bias", heart], "exclusive"),
        "weight label": (["train", "-wx", "2", heart], "class label"),
        "no command": ([], "COMMAND"),
        "unknown command": (["fly"], "invalid choice"),
        "no file": (["train", "-q"], "FILE"),
        "data dir": (["train", "-q", t], "directory"),
        "foreign model": (["predict", heart, t / "foreign.npz", t / "out"], "not a dualsvm model"),
        "pickle model": (["predict", heart, t / "junk.model", t / "out"], "pickle"),
        "truncated model": (["predict", heart, t / "half.model", t / "out"], "damaged"),
        "data as model": (["predict", heart, heart, t / "out"], "neither"),
        "missing model": (["predict", heart, t / "nope", t / "out"], "no such model"),
        "unwritable output": (["predict", heart, t / "ok.model", t / "no" / "out"], "cannot write"),
        "output is a dir": (["predict", heart, t / "ok.model", t], "directory"),
        "unwritable model": (["train", "-q", heart, t / "no" / "m"], "cannot write"),
        "export strings": (["export-liblinear", t / "strings.model", t / "x"], "integer class labels"),
        "import garbage": (["import-liblinear", t / "malformed", t / "x"], "not a valid LIBLINEAR"),
    }


def _liblinear_model(tmp_path, heart):
    X, y = read_svmlight(heart)
    ll.save_model(str(tmp_path / "ll.txt"), ll.train(y, X, "-q"))
    from dualsvm import LinearSVC

    models.save_model(LinearSVC(tol=0.1).fit(X, np.where(y > 0, "yes", "no")), tmp_path / "strings.model")
    return tmp_path / "ll.txt"


def test_every_bad_input_is_one_clear_line(tmp_path, capsys, data_dir, monkeypatch):
    cases = _bad_inputs(tmp_path, data_dir)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")  # where a default model path would point
    capsys.readouterr()
    for name, (argv, word) in cases.items():
        status, stdout, stderr = run(capsys, *argv)
        assert status in (1, 2), name
        assert stderr.count("\n") == 1 and stderr.startswith("dualsvm"), (name, stderr)
        assert ": error: " in stderr and word in stderr, (name, stderr)
        assert "Traceback" not in stderr + stdout, name
    assert not (tmp_path / "x").exists() and not (tmp_path / "out").exists()
    assert list((tmp_path / "cwd").iterdir()) == []


def test_help_exits_zero(capsys):
    status, stdout, _ = run(capsys, "train", "--help")
    assert status == 0 and "-wLABEL" in stdout


# --- the installed entry point ----------------------------------------------------


def test_installed_entry_point(tmp_path, data_dir):
    script = Path(sys.executable).with_name("dualsvm")
    assert script.is_file(), "the console script 'dualsvm' is not installed"
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    train = subprocess.run([script, "train", "-q", data_dir / "heart_scale", tmp_path / "m"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert train.returncode == 0 and train.stdout == "" and train.stderr == ""
    predict = subprocess.run([script, "predict", data_dir / "heart_scale", tmp_path / "m",
                              tmp_path / "out"], capture_output=True, text=True, env=env, timeout=120)
    assert predict.returncode == 0 and predict.stdout.startswith("Accuracy = ")
    bad = subprocess.run([script, "predict", data_dir / "heart_scale", data_dir / "heart_scale",
                          tmp_path / "out"], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
