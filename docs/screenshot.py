"""Open built documentation pages in headless Chromium and check they render.

Usage: ``python docs/screenshot.py docs/_build/html [OUT_DIR]``. For the index and
one gallery page, Chromium (Debian's ``chromium`` package) takes a screenshot; a
page passes when its screenshot is not blank: the theme's layout, text and figures
give many distinct colours, where an unstyled or empty page gives a handful.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from matplotlib.image import imread

PAGES = ("index.html", "auto_examples/plot_kernel_choice.html")
#: Distinct colours a rendered page shows at least (an empty one shows 1).
MIN_COLOURS = 64
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1280,1600")


def screenshot(page, out, profile):
    subprocess.run(["chromium", *FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}",
                    page.resolve().as_uri()], check=True, capture_output=True, timeout=120)
    pixels = imread(out)[..., :3]
    return len(np.unique(pixels.reshape(-1, 3), axis=0))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else "docs/_build/html")
    out_dir = Path(argv[1]) if len(argv) > 1 else Path(tempfile.mkdtemp())
    out_dir.mkdir(parents=True, exist_ok=True)
    failed = 0
    with tempfile.TemporaryDirectory() as profile:
        for name in PAGES:
            out = out_dir / (name.replace("/", "_") + ".png")
            colours = screenshot(root / name, out, profile)
            ok = colours >= MIN_COLOURS
            failed += not ok
            print(f"{name}: {colours} colours in {out} ({'ok' if ok else 'BLANK'})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
