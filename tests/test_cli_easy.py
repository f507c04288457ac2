"""``dualsvm easy``: LIBSVM's easy.py on the command line: its files, its messages, its
accuracy (that of ``dualsvm predict`` on the model it writes), and the same against
Debian's svm-easy (libsvm-tools)."""

import re
import subprocess
import sys

import pytest
from libsvm_tools import libsvm_tool, plain_copy

from dualsvm import cli

MESSAGES = ["Scaling training data...", "Cross validation...", r"Best c=(\S+), g=(\S+) CV rate=(\S+)",
            "Training...", r"Output model: (\S+)", "Scaling testing data...", "Testing...",
            r"Accuracy = (\S+)% \((\d+)/(\d+)\)( \(classification\))?",
            r"Output prediction: (\S+)"]


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def halves(data_dir, tmp_path):
    """heart_scale cut in a training file (180 rows) and a test file (90 rows)."""
    lines = (data_dir / "heart_scale").read_text().splitlines(keepends=True)
    (tmp_path / "data").mkdir()
    train, test = tmp_path / "data" / "htrain", tmp_path / "data" / "htest"
    train.write_text("".join(lines[:180]))
    test.write_text("".join(lines[180:]))
    return train, test


def check_messages(out, messages=MESSAGES):
    lines = out.splitlines()
    assert len(lines) == len(messages), out
    return [re.fullmatch(pattern, line) for pattern, line in zip(messages, lines)]


def test_easy_writes_every_file_and_predicts_with_its_model(capsys, halves, tmp_path,
                                                            monkeypatch):
    train, test = halves
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "easy", train, test)
    assert status == 0
    matches = check_messages(out)
    assert all(matches), out
    for name in ("htrain.scale", "htrain.range", "htrain.scale.out", "htrain.model",
                 "htest.scale", "htest.predict"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert (tmp_path / "htrain.scale.png").read_bytes()[:4] == b"\x89PNG"
    assert matches[4][1] == "htrain.model" and matches[8][1] == "htest.predict"
    # the grid easy.py runs: 11 x 10 points, and its best is the one easy reports
    C, gamma, rate = (float(v) for v in matches[2].groups())
    assert len((tmp_path / "htrain.scale.out").read_text().splitlines()) == 110
    status, grid, _ = run(capsys, "grid", "--kernel-solver", "ws", "-out", "null", "-png",
                          "null", "htrain.scale")
    assert grid.splitlines()[-1] == f"{C} {gamma} {rate}"
    # the steps are the commands: the same scaled files, model and accuracy
    status, scaled, _ = run(capsys, "scale", "-r", "htrain.range", test)
    assert scaled == (tmp_path / "htest.scale").read_text()
    status, predicted, _ = run(capsys, "predict", "htest.scale", "htrain.model", "p")
    assert status == 0 and predicted == out.splitlines()[7] + "\n"
    assert (tmp_path / "p").read_text() == (tmp_path / "htest.predict").read_text()
    assert run(capsys, "train", "-q", "--kernel-solver", "ws", "-c", C, "-g", gamma,
               "htrain.scale", "m")[0] == 0
    assert run(capsys, "predict", "htest.scale", "m", "p2")[1] == predicted


def test_easy_without_test_data_stops_after_the_model(capsys, halves, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "easy", "--workers", "1", halves[0])
    assert status == 0 and all(check_messages(out, MESSAGES[:5]))
    assert not list(tmp_path.glob("htest*"))


def test_easy_refuses_missing_files_with_one_line(capsys, halves, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv, message in ((("missing",), "dualsvm: error: missing: training file not found"),
                          ((halves[0], "gone"), "dualsvm: error: gone: testing file not found")):
        status, out, err = run(capsys, "easy", *argv)
        assert status == 1 and out == "" and err == message + "\n"
    (tmp_path / "one_class").write_text("1 1:0.5\n1 1:0.25\n")
    status, out, err = run(capsys, "easy", "one_class")
    assert status == 1 and err.count("\n") == 1 and "only one class" in err
    assert out.splitlines() == ["Scaling training data...", "Cross validation..."]


def svm_easy(directory):
    """Debian's svm-easy, copied into ``directory`` with the installed tools' paths (it
    looks for ../svm-scale, ./grid.py, ...) and no gnuplot (grid.py's -gnuplot null)."""
    tools = {name: libsvm_tool(name) for name in ("svm-easy", "svm-scale", "svm-train",
                                                  "svm-predict", "svm-grid")}
    text = open(tools["svm-easy"]).read()
    for old, new in (('"../svm-scale"', tools["svm-scale"]), ('"../svm-train"', tools["svm-train"]),
                     ('"../svm-predict"', tools["svm-predict"]), ('"./grid.py"', tools["svm-grid"]),
                     ('"/usr/bin/gnuplot"', "null")):
        assert old in text, old
        text = text.replace(old, repr(new))
    text = re.sub(r"assert os.path.exists\(gnuplot_exe\).*", "", text)
    path = directory / "easy.py"
    path.write_text(text)
    return path


def test_easy_as_svm_easy(capsys, halves, tmp_path, monkeypatch):
    """The same messages (up to the numbers), files (a PNG for gnuplot's plot, which
    svm-easy draws only with gnuplot) and scaled data as svm-easy's."""
    train, test = halves
    (tmp_path / "theirs").mkdir()
    (tmp_path / "ours").mkdir()
    script = svm_easy(tmp_path)
    theirs = subprocess.run([sys.executable, str(script), str(train), str(test)],
                            cwd=tmp_path / "theirs", capture_output=True, text=True, timeout=300)
    assert theirs.returncode == 0, theirs.stderr
    monkeypatch.chdir(tmp_path / "ours")
    status, out, _ = run(capsys, "easy", train, test)
    assert status == 0
    assert all(check_messages(theirs.stdout)) and all(check_messages(out))
    ours = sorted(p.name for p in (tmp_path / "ours").iterdir())
    assert ours == sorted([p.name for p in (tmp_path / "theirs").iterdir()] + ["htrain.scale.png"])
    for name in ("htrain.range", "htrain.scale", "htest.scale"):
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "theirs" / name).read_bytes()
    assert len((tmp_path / "theirs" / "htrain.scale.out").read_text().splitlines()) == \
        len((tmp_path / "ours" / "htrain.scale.out").read_text().splitlines())


@pytest.mark.slow
def test_easy_on_svmguide1_reaches_the_guides_accuracy(capsys, data_dir, tmp_path, monkeypatch):
    """The practical guide's example: svmguide1 / svmguide1.t at 96.875% after the grid
    search (within half a point: our folds are not LIBSVM's)."""
    train, test = (plain_copy(data_dir, name, tmp_path) for name in ("svmguide1", "svmguide1.t"))
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "easy", train, test)
    assert status == 0
    accuracy = float(check_messages(out)[7][1])
    assert abs(accuracy - 96.875) <= 0.5, out
