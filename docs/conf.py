"""Sphinx configuration of the dualsvm documentation site.

Build: ``pip install -e ".[docs]" && sphinx-build -W -b html docs docs/_build/html``.
The gallery (``examples/``) is executed at build time by sphinx-gallery.
"""

import os
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.abspath("."))  # gallery helpers

import dualsvm  # noqa: E402

project = "dualsvm"
author = "the dualsvm developers"
copyright = "2026, the dualsvm developers"
version = release = dualsvm.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False

intersphinx_mapping = {}  # no network at build time

html_theme = "pydata_sphinx_theme"
html_title = f"dualsvm {version}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = []
templates_path = ["_templates"]

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "min_reported_time": 0,
}


def _skip_metadata_requests(app, what, name, obj, skip, options):
    # scikit-learn generates set_*_request methods (metadata routing) whose
    # docstrings point into scikit-learn's own documentation.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
