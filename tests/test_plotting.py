"""dualsvm.plotting and `dualsvm plot`: render to files, check the files and the plotted data."""

import json
import sys
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402  (pillow comes with matplotlib)

from dualsvm import LinearSVC  # noqa: E402
from dualsvm import cli, plotting

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(random_state=0, **params).fit(X, y)


def two_blobs(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal([-1.0, -0.5], 0.7, (n, 2)), rng.normal([1.2, 0.8], 0.7, (n, 2))])
    return X, np.repeat([0, 1], n)


def saved_png(figure, path, dpi=50):
    figure.savefig(path, dpi=dpi)
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    width, height = figure.get_size_inches() * dpi
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size == (round(width), round(height))


# --- convergence curves ------------------------------------------------------------

def test_convergence_curves_are_the_histories(load, tmp_path):
    X, y = load("heart_scale")
    models = [fit(X, y, tol=1e-6, monitor=True, shuffle=shuffle) for shuffle in (True, False)]
    ax = plotting.plot_convergence(models, labels=["random", "cyclic"], x="epoch")
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["random", "cyclic"]
    for line, model in zip(lines, models):
        history = model.history_[0]
        gaps = np.array([r["gap"] for r in history])
        keep = gaps > 0
        np.testing.assert_array_equal(line.get_xdata(), np.array([r["epoch"] for r in history])[keep])
        np.testing.assert_array_equal(line.get_ydata(), gaps[keep])
        assert keep.sum() >= len(history) - 1
    assert ax.get_yscale() == "log"
    saved_png(ax.figure, tmp_path / "curves.png")


def test_suboptimality_against_a_given_optimum(load):
    X, y = load("heart_scale")
    model = fit(X, y, tol=1e-3, monitor=True)
    best = fit(X, y, tol=1e-9, max_iter=100_000).primal_[0]
    ax = plotting.plot_convergence(model, y="suboptimality", optimum=best, x="seconds")
    (line,) = ax.get_lines()
    history = model.history_[0]
    expected = np.array([(r["primal"] - best) / best for r in history])
    np.testing.assert_allclose(line.get_ydata(), expected[expected > 0], rtol=1e-12)
    np.testing.assert_array_equal(line.get_xdata(),
                                  np.array([r["seconds"] for r in history])[expected > 0])
    assert ax.get_xscale() == "log" and "P*" in ax.get_ylabel()


def test_lowest_primal_is_the_default_optimum():
    records = [{"epoch": e, "seconds": 0.1 * e, "primal": p, "gap": np.nan}
               for e, p in enumerate([4.0, 2.5, 2.0, 2.0], start=1)]
    ax = plotting.plot_convergence(records, y="suboptimality", x="epoch")
    (line,) = ax.get_lines()
    np.testing.assert_array_equal(line.get_xdata(), [1, 2])
    np.testing.assert_allclose(line.get_ydata(), [1.0, 0.25])


def test_bad_arguments():
    records = [{"epoch": 1, "seconds": 0.1, "primal": 1.0, "gap": 0.1}]
    with pytest.raises(ValueError, match="x must be"):
        plotting.plot_convergence(records, x="time")
    with pytest.raises(ValueError, match="y must be"):
        plotting.plot_convergence(records, y="dual")
    with pytest.raises(ValueError, match="no records"):
        plotting.plot_convergence([[]])
    with pytest.raises(ValueError, match="2 labels for 1"):
        plotting.plot_convergence([records], labels=["a", "b"])


def test_missing_matplotlib_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'dualsvm\[plot\]'"):
        plotting.plot_convergence([{"epoch": 1, "seconds": 1.0, "primal": 1.0, "gap": 0.1}])


# --- traces and the command line ---------------------------------------------------------

def test_plot_command_draws_a_trace(tmp_path, capsys, data_dir):
    trace, out = tmp_path / "heart.jsonl", tmp_path / "heart.png"
    status = cli.main(["train", "-q", "-e", "1e-4", "--trace", str(trace),
                       str(data_dir / "heart_scale"), str(tmp_path / "m")])
    assert status == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    curves = plotting.read_trace(trace)
    assert list(curves) == ["positive class 1"]
    assert [r["epoch"] for r in curves["positive class 1"]] == [r["epoch"] for r in records]

    assert cli.main(["plot", str(trace), "-o", str(out)]) == 0
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (600, 400)
    # the figure the command draws holds the trace's gaps
    ax = plotting.plot_convergence(curves, x="epoch")
    gaps = np.array([r["gap"] for r in records])
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), gaps[gaps > 0])


def test_plot_command_one_curve_per_class(tmp_path, capsys):
    rng = np.random.default_rng(0)
    lines = [f"{c} 1:{rng.normal(c):.4f} 2:{rng.normal(-c):.4f}" for c in (1, 2, 3) * 20]
    data, trace = tmp_path / "three.txt", tmp_path / "three.jsonl"
    data.write_text("\n".join(lines) + "\n")
    assert cli.main(["train", "-q", "--trace", str(trace), str(data), str(tmp_path / "m")]) == 0
    curves = plotting.read_trace(trace)
    assert list(curves) == ["class 1", "class 2", "class 3"]
    assert cli.main(["plot", str(trace), "--x", "seconds", "--y", "primal"]) == 0
    assert (tmp_path / "three.jsonl.png").read_bytes()[:8] == PNG_SIGNATURE
    ax = plotting.plot_convergence(curves, y="primal")
    assert len(ax.get_lines()) == 3


def test_plot_command_errors(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert cli.main(["plot", str(bad)]) == 1
    assert "line 1: not a dualsvm trace record" in capsys.readouterr().err
    assert cli.main(["plot", str(tmp_path / "missing.jsonl")]) == 1
    assert cli.main(["plot", str(bad), "--y", "dual"]) == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli.main(["plot", str(empty)]) == 1
    assert "empty" in capsys.readouterr().err


# --- decision boundaries ------------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"loss": "hinge", "intercept_mode": "exact"}])
def test_captured_models_are_the_models_of_those_epochs(params):
    X, y = two_blobs()
    frames = plotting.capture_epochs(LinearSVC(tol=1e-8, random_state=0, **params), X, y, [1, 3])
    assert [f[0] for f in frames] == [1, 3]
    for epoch, coef, intercept in frames:
        model = fit(X, y, tol=1e-8, max_iter=epoch, **params)
        np.testing.assert_allclose(coef, model.coef_[0], rtol=1e-12)
        assert intercept == pytest.approx(model.intercept_[0], rel=1e-9, abs=1e-12)


def test_capture_ends_with_the_final_model_when_training_converges_early():
    X, y = two_blobs()
    frames = plotting.capture_epochs(LinearSVC(tol=0.1, random_state=0), X, y, [1, 500])
    final = fit(X, y, tol=0.1)
    assert frames[0][0] == 1 and frames[-1][0] == final.n_iter_ < 500
    np.testing.assert_array_equal(frames[-1][1], final.coef_[0])


def test_decision_boundary_lines_and_support_vectors(tmp_path):
    X, y = two_blobs()
    model = fit(X, y, loss="hinge", tol=1e-6)
    coef, b = model.coef_[0], model.intercept_[0]
    ax = plotting.plot_decision_boundary(X, y, coef, b)
    boundary, lower, upper = ax.get_lines()
    for line, level in ((boundary, 0.0), (lower, -1.0), (upper, 1.0)):
        points = np.column_stack([line.get_xdata(), line.get_ydata()])
        np.testing.assert_allclose(points @ coef + b, level, atol=1e-9)
    sign = np.where(y == 1, 1.0, -1.0)
    expected = X[sign * (X @ coef + b) <= 1.0]
    circles = ax.collections[2]
    np.testing.assert_array_equal(circles.get_offsets(), expected)
    assert 0 < len(expected) < len(X)
    saved_png(ax.figure, tmp_path / "boundary.png")


def test_grid_of_frames(tmp_path):
    X, y = two_blobs()
    figure = plotting.decision_boundary_grid(LinearSVC(tol=1e-8, random_state=0), X, y,
                                             [1, 2, 4, 8], ncols=3)
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["epoch 1", "epoch 2", "epoch 4", "epoch 8"]
    assert len(figure.axes) == 6
    saved_png(figure, tmp_path / "grid.png")


def test_animated_gif(tmp_path):
    X, y = two_blobs()
    path = tmp_path / "boundary.gif"
    frames = plotting.decision_boundary_gif(LinearSVC(tol=1e-8, random_state=0), X, y,
                                            [1, 2, 3, 5], path, dpi=50)
    assert len(frames) == 4
    with Image.open(path) as image:
        assert image.format == "GIF"
        assert image.n_frames == 4
        assert image.size == (200, 200)  # 4 x 4 inches at 50 dpi
        assert image.is_animated


def test_boundary_bad_input():
    X, y = two_blobs()
    with pytest.raises(ValueError, match="2-D data"):
        plotting.capture_epochs(LinearSVC(), np.hstack([X, X]), y, [1])
    with pytest.raises(ValueError, match="binary"):
        plotting.capture_epochs(LinearSVC(), X, np.arange(len(y)) % 3, [1])
    with pytest.raises(ValueError, match="epochs"):
        plotting.capture_epochs(LinearSVC(), X, y, [0])
