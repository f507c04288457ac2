"""The documentation site's checker finds what it claims to find.

The site itself is built and checked in CI (``.ci/run``); these tests make sure
``docs/check_site.py`` fails on a broken site, so a green check means something.
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location("check_site", ROOT / "docs" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(tmp_path, index_body):
    (tmp_path / "generated").mkdir()
    (tmp_path / "auto_examples").mkdir()
    checker = _checker()
    for module_name in checker.PUBLIC_MODULES:
        for name in importlib.import_module(module_name).__all__:
            if not name.startswith("__"):
                (tmp_path / "generated" / f"{module_name}.{name}.html").write_text("<p></p>")
    for k in range(8):
        (tmp_path / "auto_examples" / f"plot_{k}.html").write_text(
            f'<img src="../_images/sphx_glr_plot_{k}_001.png">')
    (tmp_path / "_images").mkdir()
    for k in range(8):
        (tmp_path / "_images" / f"sphx_glr_plot_{k}_001.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text(index_body)
    (tmp_path / "page.html").write_text('<h1 id="top">x</h1>')
    return checker


def test_a_whole_site_passes(tmp_path):
    checker = _site(tmp_path, '<a href="page.html#top">ok</a> <a href="https://example.org/x">out</a>')
    assert list(checker.problems(tmp_path)) == []


@pytest.mark.parametrize("body, message", [
    ('<a href="missing.html">x</a>', "missing.html: no such file"),
    ('<a href="page.html#nowhere">x</a>', "no anchor #nowhere"),
    ('<img src="_images/gone.png">', "gone.png: no such file"),
])
def test_broken_links_are_found(tmp_path, body, message):
    checker = _site(tmp_path, body)
    assert any(message in line for line in checker.problems(tmp_path))


def test_a_missing_api_page_and_a_gallery_page_without_figure_are_found(tmp_path):
    checker = _site(tmp_path, "<p></p>")
    next((tmp_path / "generated").glob("dualsvm.LinearSVC.html")).unlink()
    (tmp_path / "auto_examples" / "plot_3.html").write_text("<p>no figure</p>")
    found = list(checker.problems(tmp_path))
    assert any("dualsvm.LinearSVC: no API page" in line for line in found)
    assert any("plot_3.html: no figure" in line for line in found)
