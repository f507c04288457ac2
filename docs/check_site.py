"""Check a built documentation site: links, images, API pages, gallery figures.

Usage: ``python docs/check_site.py docs/_build/html``. Exits non-zero with one line
per problem:

* every relative ``href`` / ``src`` of every page points at a file that exists
  (and every ``#anchor`` into a page at an id that exists there);
* every public name (the ``__all__`` of :data:`PUBLIC_MODULES`) has its API page;
* every gallery example page shows at least one figure it made.
"""

import importlib
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else "docs/_build/html"
    found = list(problems(root))
    for line in found:
        print(line, file=sys.stderr)
    print(f"{root}: {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
