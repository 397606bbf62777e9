"""The course as a website (``bash run.sh site``, ``site_src/build.py``): built once for the
session into a temporary folder, served from 127.0.0.1, read in headless Chromium.

A page of each edition shows its stored PNG figures, the language switch leads to the twin page
and back, search finds a word in each edition, and no request leaves 127.0.0.1 (every request is
routed and recorded; one to another host is refused and fails the test).  Skipped, with the
reason, where the ``site`` extra (Sphinx, myst-nb, sphinx-book-theme, jieba) is not installed;
the browser part also where Playwright or Chromium is missing (conftest.py)."""
from __future__ import annotations

import functools
import importlib.util
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "site_src" / "build.py"
PAGE = "notebooks/03_migration_prefetch_advice.html"
SEARCH = {"en": "prefetch", "zh": "预取"}
TOOLS = ("sphinx", "myst_nb", "sphinx_book_theme", "jieba")


def load_build():
    spec = importlib.util.spec_from_file_location("umkit_site_build", BUILD)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    missing = [m for m in TOOLS if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"the site extra is not installed in {sys.executable} (missing: "
                    f"{', '.join(missing)}; pip install -e '.[site]')")
    out = tmp_path_factory.mktemp("site") / "site"
    proc = subprocess.run([sys.executable, str(BUILD), "--out", str(out), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the site did not build:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return out


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def served(built_site):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                functools.partial(Quiet, directory=str(built_site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def local_page(page):
    """The browser page with every request routed: those to 127.0.0.1 go on, any other is
    refused and recorded in ``page.outside``."""
    page.outside, page.requests = [], []

    def route(r):
        url = r.request.url
        page.requests.append(url)
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname == "127.0.0.1":
            r.continue_()
        else:
            page.outside.append(url)
            r.abort()
    page.route("**/*", route)
    yield page
    assert page.outside == [], f"requests to another host: {page.outside}"


def figures_loaded(page) -> list[int]:
    """naturalWidth of each stored PNG output on the page (the notebook's figures)."""
    return page.eval_on_selector_all(
        "img[src*='_images/'][src$='.png']",
        "imgs => imgs.map(i => i.complete ? i.naturalWidth : -1)")


# -- without a browser -------------------------------------------------------------------------


def test_the_outside_request_check_finds_a_cdn(tmp_path):
    check = load_build().outside_requests
    (tmp_path / "ok.html").write_text('<a href="https://example.org/">a citation</a>'
                                      '<script src="_static/x.js"></script>')
    assert check(tmp_path) == []
    (tmp_path / "bad.html").write_text(
        '<script defer src="https://cdn.example.org/require.min.js"></script>\n'
        "<link rel='stylesheet' href='//fonts.example.org/css'><img src=http://x.org/a.png>")
    (tmp_path / "bad.css").write_text("@font-face{src:url('https://fonts.example.org/f.woff')}")
    found = check(tmp_path)
    assert len(found) == 4 and all(f.startswith(("bad.html", "bad.css")) for f in found), found


def test_every_page_links_to_its_twin(built_site):
    build = load_build()
    assert build.outside_requests(built_site) == []
    checked = 0
    for ed, other in (("en", "zh"), ("zh", "en")):
        for html in sorted((built_site / ed).rglob("*.html")):
            if "_static" in html.parts:
                continue
            text = html.read_text(encoding="utf-8")
            marker = 'id="umk-lang-switch" href="'
            assert marker in text, f"{html.relative_to(built_site)} has no language switch"
            href = text.split(marker, 1)[1].split('"', 1)[0]
            target = (html.parent / href).resolve()
            rel = html.relative_to(built_site / ed)
            assert target.is_file(), f"{html.relative_to(built_site)}: {href} is not there"
            twin = built_site / other / rel
            # the twin page where the other edition has it, else that edition's front page
            assert target == (twin if twin.is_file() else built_site / other / "index.html"), \
                (html, href)
            checked += 1
    assert checked >= 2 * 20, checked
    for ed in ("en", "zh"):                # each notebook of an edition has a page
        notebooks = ROOT / "notebooks" / ("zh" if ed == "zh" else "")
        for nb in notebooks.glob("*.ipynb"):
            assert (built_site / ed / "notebooks" / (nb.stem + ".html")).is_file(), (ed, nb.name)


# -- in the browser ----------------------------------------------------------------------------


@pytest.mark.browser
def test_a_page_of_each_edition_its_figures_and_the_switch(local_page, served):
    page = local_page
    page.goto(served + "en/" + PAGE, wait_until="load")
    assert page.get_attribute("html", "lang") == "en"
    widths = figures_loaded(page)
    assert widths and all(w > 0 for w in widths), f"figures not loaded: {widths}"
    page.click("#umk-lang-switch")
    page.wait_for_url("**/zh/" + PAGE)
    page.wait_for_load_state("load")
    assert page.get_attribute("html", "lang") in ("zh-CN", "zh_CN", "zh")
    widths = figures_loaded(page)
    assert widths and all(w > 0 for w in widths), f"figures not loaded (zh): {widths}"
    assert "English" in page.inner_text("#umk-lang-switch")
    page.click("#umk-lang-switch")
    page.wait_for_url("**/en/" + PAGE)
    assert any(u.endswith(".png") for u in page.requests), page.requests


@pytest.mark.browser
@pytest.mark.parametrize("edition", ["en", "zh"])
def test_search_finds_a_word(local_page, served, edition):
    page = local_page
    page.goto(f"{served}{edition}/search.html?q={SEARCH[edition]}", wait_until="load")
    hits = page.locator("#search-results ul.search li")
    hits.first.wait_for(timeout=30_000)
    assert hits.count() >= 3, hits.all_inner_texts()
    assert any((a or "").startswith("notebooks/") for a in
               page.locator("#search-results ul.search li a").evaluate_all(
                   "as => as.map(a => a.getAttribute('href'))")), "no notebook among the hits"


@pytest.mark.browser
def test_the_landing_page_offers_both_editions(local_page, served):
    page = local_page
    page.goto(served, wait_until="load")
    page.click("a[href='zh/index.html']")
    page.wait_for_url("**/zh/index.html")
    assert "umkit" in page.title()
    page.click("#umk-lang-switch")
    page.wait_for_url("**/en/index.html")
