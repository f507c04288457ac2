"""The documentation site's checker finds what it claims to find; the README's links
resolve and its examples run; the Architecture page draws the layers the code has.

The site itself is built and checked in CI (``.ci/run``); these tests make sure
``docs/check_site.py`` fails on a broken site or README, so a green check means something.
"""

import importlib.util
import re
import subprocess
import sys
import textwrap
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


# --- the README ---------------------------------------------------------------------


def test_the_readme_is_short_and_every_link_of_it_resolves():
    checker = _checker()
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250
    external = []
    assert list(checker.readme_problems(ROOT, external=external)) == []
    links = checker.readme_links((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "docs/figures/speed.png" in links and "docs/architecture.rst" in links


def _repository(tmp_path, readme):
    (tmp_path / "docs" / "user_guide").mkdir(parents=True)
    (tmp_path / "docs" / "user_guide" / "dask.rst").write_text("Dask\n====\n")
    (tmp_path / "docs" / "figure.png").write_bytes(b"png")
    (tmp_path / "README.md").write_text(readme)
    site = tmp_path / "site"
    (site / "user_guide").mkdir(parents=True)
    (site / "user_guide" / "dask.html").write_text('<h1 id="on-a-real-cluster">x</h1>')
    return site


def test_good_readme_links_pass_and_external_ones_are_listed(tmp_path):
    site = _repository(tmp_path, "# dualsvm\n\n## A Dask cluster, `LinearSVC`\n\n"
                                 "[dask](docs/user_guide/dask.rst#on-a-real-cluster) "
                                 "![figure](docs/figure.png) [up](#a-dask-cluster-linearsvc) "
                                 "[sklearn](https://scikit-learn.org/)\n"
                                 "```\n[not a link](nowhere.md)\n```\n")
    checker, external = _checker(), []
    assert list(checker.readme_problems(tmp_path, site=site, external=external)) == []
    assert external == ["https://scikit-learn.org/"]


@pytest.mark.parametrize("body, message", [
    ("[x](docs/missing.rst)", "docs/missing.rst: no such file"),
    ("![x](docs/gone.png)", "docs/gone.png: no such file"),
    ("[x](#nowhere)", "#nowhere: no heading with that anchor"),
    ("[x](docs/user_guide/dask.rst#nowhere)", "no anchor #nowhere in user_guide/dask.html"),
    ("[x](../outside.md)", "outside the repository"),
])
def test_broken_readme_links_are_found(tmp_path, body, message):
    site = _repository(tmp_path, f"# dualsvm\n\n{body}\n")
    found = list(_checker().readme_problems(tmp_path, site=site))
    assert any(message in line for line in found), found


def test_a_docs_page_the_site_did_not_build_is_found(tmp_path):
    site = _repository(tmp_path, "[x](docs/user_guide/dask.rst)\n")
    (site / "user_guide" / "dask.html").unlink()
    found = list(_checker().readme_problems(tmp_path, site=site))
    assert found == ["README.md: docs/user_guide/dask.rst: the site has no page "
                     "user_guide/dask.html"]


@pytest.mark.slow
def test_the_readme_examples_run(tmp_path):
    """Every Python example of the README, as a user runs it from a clone (its data
    paths are relative to the repository), in one fresh process."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 3
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    script = tmp_path / "readme_examples.py"  # a file: Dask's workers re-import __main__
    script.write_text('if __name__ == "__main__":\n' + "".join(
        textwrap.indent(block, "    ") for block in blocks))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


# --- the Architecture page --------------------------------------------------------


def _drawn_layers():
    """{layer: text of its row} of the drawing on docs/architecture.rst."""
    rows, layer = {}, None
    for line in (ROOT / "docs" / "architecture.rst").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*\|\s*(\d)?\s*\|(.*)$", line)
        if match:
            layer = int(match.group(1)) if match.group(1) else layer
            rows[layer] = rows.get(layer, "") + " " + match.group(2)
    return rows


def test_the_architecture_drawing_shows_every_folder_at_its_layer():
    from test_architecture import SOURCE, _layer

    expected = {}
    for entry in sorted(SOURCE.iterdir()):
        if entry.name.startswith(("_", ".")) and entry.name != "__main__.py":
            continue
        if entry.suffix == ".py":
            expected[entry.name] = _layer(f"dualsvm.{entry.stem}")
        elif entry.is_dir() and (entry / "__init__.py").exists():
            layers = {p.stem: _layer(f"dualsvm.{entry.name}.{p.stem}")
                      for p in entry.glob("*.py") if p.stem != "__init__"}
            if len(set(layers.values())) == 1:
                expected[f"{entry.name}/"] = layers.popitem()[1]
            else:  # a folder across layers (dask/): each module at its own
                expected.update({f"{entry.name}/{stem}.py": layer
                                 for stem, layer in layers.items() if not stem.startswith("_")})
    rows = _drawn_layers()
    assert sorted(rows) == list(range(1, 9))
    misplaced = [f"{name} (layer {layer})" for name, layer in expected.items()
                 if not re.search(rf"(?<![\w/]){re.escape(name)}", rows[layer])
                 or any(re.search(rf"(?<![\w/]){re.escape(name)}", text)
                        for other, text in rows.items() if other != layer)]
    assert misplaced == []
