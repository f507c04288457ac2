"""Check a built documentation site and the README's links: links, images, API pages,
gallery figures.

Usage: ``python docs/check_site.py docs/_build/html``. Exits non-zero with one line
per problem:

* every relative ``href`` / ``src`` of every page points at a file that exists
  (and every ``#anchor`` into a page at an id that exists there);
* every public name (the ``__all__`` of :data:`PUBLIC_MODULES`) has its API page;
* every gallery example page shows at least one figure it made;
* every relative link and image of ``README.md`` names a file or folder of the
  repository, every link to a page of ``docs/`` (``.rst``, ``.md``) a page the site
  built (and an ``#anchor`` into it an id there), and every ``#anchor`` into the README
  one of its headings (:func:`readme_problems`). External links are listed on stdout,
  not fetched: the check runs without a network.
"""

import importlib
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: The repository this file belongs to (its README and docs).
REPOSITORY = Path(__file__).resolve().parents[1]
#: Markdown links and images ``[text](target)`` / ``![alt](target "title")``, and
#: HTML ``href`` / ``src`` attributes, in a README.
_MARKDOWN_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
_HTML_LINK = re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']""")
_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.M | re.S)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.M)

#: Modules whose ``__all__`` is the public API; each name needs a page.
PUBLIC_MODULES = ("dualsvm", "dualsvm.dask", "dualsvm.outofcore", "dualsvm.onnx")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append((tag, attrs[key]))


def _parse(path):
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def problems(root):
    root = Path(root)
    pages = {path: _parse(path) for path in root.rglob("*.html")
             if path.relative_to(root).parts[0] not in ("_static", "_sources")}
    if not pages:
        yield f"{root}: no HTML pages"
        return
    for path, page in pages.items():
        for tag, link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                yield f"{path.relative_to(root)}: <{tag}> {link}: no such file"
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if parts.fragment not in ids:
                    yield f"{path.relative_to(root)}: {link}: no anchor #{parts.fragment}"
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if name.startswith("__"):
                continue
            page = root / "generated" / f"{module_name}.{name}.html"
            if not page.exists():
                yield f"{module_name}.{name}: no API page ({page.relative_to(root)})"
    gallery = [p for p in (root / "auto_examples").glob("plot_*.html")]
    if len(gallery) < 8:
        yield f"auto_examples: {len(gallery)} example pages, fewer than 8"
    for path in gallery:
        if not any(tag == "img" and "sphx_glr_" in link and "_thumb" not in link
                   for tag, link in pages[path].links):
            yield f"{path.relative_to(root)}: no figure"


def heading_anchor(heading):
    """The ``#anchor`` GitHub gives a Markdown heading: lower case, punctuation but
    ``-`` and ``_`` dropped, spaces as ``-``."""
    text = re.sub(r"`|\*\*?|__?", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def readme_links(text):
    """Every link and image target of a Markdown text, outside code blocks, in order."""
    text = _FENCE.sub("", text)
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code
    found = [(m.start(), m.group(1)) for pattern in (_MARKDOWN_LINK, _REFERENCE_LINK, _HTML_LINK)
             for m in pattern.finditer(text)]
    return [link for _, link in sorted(found)]


def _docs_page(path, repository):
    """The site's page name of a docs source file (``docs/user_guide/dask.rst`` ->
    ``user_guide/dask``), or None when the file is not a page source."""
    docs = repository / "docs"
    if path.suffix not in (".rst", ".md") or docs not in path.parents:
        return None
    relative = path.relative_to(docs)
    if relative.parts[0].startswith(("_", ".")):
        return None
    return relative.with_suffix("").as_posix()


def readme_problems(repository=REPOSITORY, site=None, external=None):
    """Problems with the links of ``README.md``: each relative link or image must name a
    file or folder of the repository; a link to a page of ``docs/`` must name one the
    site built (with ``site``, the HTML root; without, its source must exist); an
    ``#anchor`` into the README must name one of its headings, into a docs page (with
    ``site``) an id of that page. External links are appended to ``external`` (a list).
    """
    repository = Path(repository)
    readme = repository / "README.md"
    text = readme.read_text(encoding="utf-8")
    anchors = {heading_anchor(h) for h in _HEADING.findall(_FENCE.sub("", text))}
    for link in readme_links(text):
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or link.startswith("mailto:"):
            if external is not None:
                external.append(link)
            continue
        if not parts.path:
            if unquote(parts.fragment) not in anchors:
                yield f"README.md: {link}: no heading with that anchor"
            continue
        target = (repository / unquote(parts.path)).resolve()
        if repository.resolve() not in (target, *target.parents):
            yield f"README.md: {link}: outside the repository"
            continue
        if not target.exists():
            yield f"README.md: {link}: no such file"
            continue
        page = _docs_page(target, repository.resolve())
        if page is None or site is None:
            continue
        built = Path(site) / f"{page}.html"
        if not built.exists():
            yield f"README.md: {link}: the site has no page {page}.html"
        elif parts.fragment and parts.fragment not in _parse(built).ids:
            yield f"README.md: {link}: no anchor #{parts.fragment} in {page}.html"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else "docs/_build/html"
    external = []
    found = list(problems(root)) + list(readme_problems(site=root, external=external))
    for link in external:
        print(f"README.md: external link, not fetched: {link}")
    for line in found:
        print(line, file=sys.stderr)
    print(f"{root}: {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
