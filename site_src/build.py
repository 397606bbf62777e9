"""Build the course as a static website: both editions of the notebooks (their stored sim outputs
and figures, never executed), the READMEs, docs/ and the API of the learner's root (``umkit``'s
``__all__``), with Sphinx, myst-nb and sphinx-book-theme, offline.

    python site_src/build.py [--out site] [--jobs 2]         (bash run.sh site does this)

The sources are staged in a temporary folder, one per edition (the repository's files are never
touched), one Sphinx project per edition, so each edition has its own search index in its own
language (Chinese words are cut with jieba) and the theme's words in its language:

    site/index.html         the choice of edition
    site/en/ ...            README.md as the front page, notebooks/, docs/, api
    site/zh/ ...            README.zh-CN.md as the front page, notebooks/zh/ as notebooks/, docs/, api

Every page links to its twin in the other edition (conf.py, ``lang-switch.html``).  While
staging, a notebook's interactive widgets become a still picture of their saved state (HTML,
images, disabled controls) so no widget JavaScript is loaded; links to repository files that are
not on the site become plain text.  After the build every HTML page is checked for a request to
an outside host (script, link, img, iframe, source, CSS url()/@import); any found fails the
build."""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "site_src"
EDITIONS = ("en", "zh")
#: (edition, the README that is its front page, its notebooks folder)
SOURCES = {"en": (ROOT / "README.md", ROOT / "notebooks"),
           "zh": (ROOT / "README.zh-CN.md", ROOT / "notebooks" / "zh")}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
STILL_NOTE = {"en": "A still of an interactive widget, as it was saved: run the notebook "
                    "(<code>bash run.sh</code>) to use it.",
              "zh": "交互控件保存时的静态画面：运行本笔记本（<code>bash run.sh --lang zh</code>）即可操作。"}
ONLY_ENGLISH = {"zh": "```{note}\n本页只有英文版。\n```\n\n"}
#: a request to an outside host in built HTML/CSS: src/href of the tags that load something
OUTSIDE = re.compile(
    r"""<(?:script|img|iframe|source|video|audio|embed|track|input)\b[^>]*?\bsrc\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|<link\b[^>]*?\bhref\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|<object\b[^>]*?\bdata\s*=\s*["']?\s*(?:https?:)?//"""
    r"""|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?\s*(?:url\()?\s*["']?(?:https?:)?//""",
    re.I)


# ---------------------------------------------------------------------------------------------
# staging


def _staged_name(path: Path, edition: str) -> str | None:
    """Where a repository file lies in an edition's staged tree (None: not on the site)."""
    notebooks = SOURCES[edition][1]
    for folder, name in ((notebooks, "notebooks"), (ROOT / "docs", "docs")):
        try:
            rel = path.relative_to(folder).as_posix()
        except ValueError:
            continue
        if edition == "en" and rel.startswith("zh/"):
            return None
        return f"{name}/{rel}"
    return None


def _relink(text: str, src: Path, page: str, edition: str, staged: Path) -> str:
    """Rewrite the relative links of markdown from the repository file ``src`` for its place
    ``page`` (a path in the staged tree): a file on the site gets its staged path; the other
    README is the twin edition's front page; a repository file that is not on the site is named
    in plain text."""
    other = "zh" if edition == "en" else "en"
    up = "../" * page.count("/")

    def link(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo = (src.parent / path).resolve()
        if repo.name in ("README.md", "README.zh-CN.md") and repo.parent == ROOT:
            return f'<a href="{up}../{other}/index.html">{label}</a>'
        name = _staged_name(repo, edition)
        if name and (staged / name).exists():
            return f"[{label}]({up}{name}{'#' + anchor if anchor else ''})"
        rel = repo.relative_to(ROOT).as_posix() if repo.is_relative_to(ROOT) else path
        return label if label.strip("`") == rel else f"{label} (`{rel}` in the repository)"
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, text)


def _md_links(text: str, edition: str, staged: Path) -> str:
    """A README as an edition's front page: its links relinked, and each backticked notebook or
    workshop README name a link to its page."""
    text = _relink(text, SOURCES[edition][0], "index.md", edition, staged)

    def code(m):
        name = m.group(1)
        rel = name[len("notebooks/"):] if name.startswith("notebooks/") else name
        if edition == "zh" and rel.startswith("zh/"):
            rel = rel[len("zh/"):]
        if (staged / "notebooks" / rel).is_file():
            return f"[`{name}`](notebooks/{rel})"
        return m.group(0)
    # a backticked name not already inside a link's label
    return re.sub(r"(?<!\[)`((?:notebooks/)?[\w/.-]+\.(?:ipynb|md))`(?!\])", code, text)


def _still(mid: str, state: dict, depth: int = 0) -> str:
    """A widget's saved state as static HTML (no script): HTML widgets their value, boxes their
    children, images their picture, controls disabled."""
    model = state.get(mid)
    if model is None or depth > 30:
        return ""
    s, name = model["state"], model["model_name"]
    kids = [c[len("IPY_MODEL_"):] for c in s.get("children", []) if isinstance(c, str)]
    desc = html.escape(s.get("description") or "")
    label = f"<span class='umk-still-desc'>{desc}</span> " if desc else ""
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<div class='umk-still-html'>{label}{s.get('value', '')}</div>"
    if name == "LabelModel":
        return f"<span>{html.escape(s.get('value', ''))}</span>"
    if name in ("VBoxModel", "BoxModel", "GridBoxModel", "HBoxModel"):
        row = " umk-still-row" if name == "HBoxModel" else ""
        inner = "".join(_still(k, state, depth + 1) for k in kids)
        return f"<div class='umk-still-box{row}'>{inner}</div>"
    if name == "ImageModel":
        data = model.get("_buffer", "")
        fmt = html.escape(s.get("format", "png"))
        width = f" width='{html.escape(str(s['width']))}'" if s.get("width") else ""
        return f"<img class='umk-still-img' alt='' src='data:image/{fmt};base64,{data}'{width}>" \
            if data else ""
    if name == "DropdownModel":
        labels, index = s.get("_options_labels", []), s.get("index")
        opts = "".join(f"<option{' selected' if i == index else ''}>{html.escape(str(o))}</option>"
                       for i, o in enumerate(labels))
        return f"<label class='umk-still-ctl'>{label}<select disabled>{opts}</select></label>"
    if name == "ButtonModel":
        return f"<button class='umk-still-ctl' disabled>{desc}</button>"
    if name in ("IntProgressModel", "FloatProgressModel"):
        return (f"<label class='umk-still-ctl'>{label}<progress value='{s.get('value', 0)}' "
                f"max='{s.get('max', 100)}'></progress></label>")
    if "value" in s and not isinstance(s["value"], (dict, list)):
        return (f"<label class='umk-still-ctl'>{label}<input disabled "
                f"value='{html.escape(str(s['value']))}'></label>")
    return ""


def _widget_state(nb: dict) -> dict:
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for model in state.values():                   # binary buffers (an Image's value) inline
        for buf in model.get("buffers", []) or []:
            if buf.get("path") == ["value"] and buf.get("encoding") == "base64":
                model["_buffer"] = buf["data"]
    return state


def _stage_notebook(src: Path, dest: Path, page: str, edition: str, staged: Path) -> int:
    """Copy a notebook with its links relinked and each widget output replaced by its still;
    returns how many stills."""
    nb = json.loads(src.read_text(encoding="utf-8"))
    state, n = _widget_state(nb), 0

    def relink(source):
        text = "".join(source) if isinstance(source, list) else source
        return _relink(text, src, page, edition, staged)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = relink(cell["source"])
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/markdown" in data:
                data["text/markdown"] = relink(data["text/markdown"])
            if WIDGET_VIEW in data:
                still = _still(data[WIDGET_VIEW]["model_id"], state)
                note = f"<div class='umk-still-note'>{STILL_NOTE[edition]}</div>"
                out["data"] = {"text/html": f"<div class='umk-still'>{still}{note}</div>"}
                n += 1
    nb.get("metadata", {}).pop("widgets", None)     # myst-nb would load widget JS from a CDN
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return n


API_INTRO = {
    "en": ("API: the learner's root (`umkit`)",
           "Every public name of `import umkit` (its `__all__`), with its docstring. The notebooks "
           "use these; everything else is a lazy attribute (`umkit.ecg`, `umkit.widgets`, ...)."),
    "zh": ("API：学习者用的 `umkit`",
           "`import umkit` 的全部公开名字（`__all__`）及其文档字符串（英文）。笔记本用的就是这些；"
           "其余的是按需加载的属性（`umkit.ecg`、`umkit.widgets` 等）。"),
}


def _api_page(edition: str) -> str:
    import inspect
    os.environ.setdefault("UMKIT_BACKEND", "sim")
    import umkit
    title, intro = API_INTRO[edition]
    lines = [f"# {title}", "", intro, ""]
    noindex = "   :no-index:\n" if edition == "zh" else ""
    for name in umkit.__all__:
        obj = getattr(umkit, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            directive, opts = "autoexception", ""
        elif inspect.isclass(obj):
            directive, opts = "autoclass", "   :members:\n"
        elif callable(obj):
            directive, opts = "autofunction", ""
        else:
            directive, opts = "autodata", "   :annotation:\n"
        lines += ["```{eval-rst}", f".. {directive}:: umkit.{name}", opts + noindex, "```", ""]
    return "\n".join(lines)


def stage(edition: str, dest: Path) -> dict:
    """Lay out one edition's sources in ``dest``; returns what it staged."""
    readme, notebooks = SOURCES[edition]
    (dest / "notebooks").mkdir(parents=True)
    stills, pages = 0, []
    nbs = sorted(notebooks.glob("*.ipynb")) + sorted(notebooks.glob("workshop/*.ipynb"))
    (dest / "docs").mkdir()
    for p in nbs + [notebooks / "workshop" / "README.md"] + sorted((ROOT / "docs").glob("*.md")):
        if p.is_file():                          # first the files, so that links can find them
            name = _staged_name(p, edition)
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).touch()
    for nb in nbs:
        rel = nb.relative_to(notebooks)
        page = "notebooks/" + rel.as_posix()
        stills += _stage_notebook(nb, dest / page, page, edition, dest)
        pages.append(page[:-len(".ipynb")])
    wreadme = notebooks / "workshop" / "README.md"
    if wreadme.is_file():
        (dest / "notebooks" / "workshop" / "README.md").write_text(_relink(
            wreadme.read_text(encoding="utf-8"), wreadme, "notebooks/workshop/README.md",
            edition, dest), encoding="utf-8")
    for doc in sorted((ROOT / "docs").glob("*.md")):
        text = _relink(doc.read_text(encoding="utf-8"), doc, "docs/" + doc.name, edition, dest)
        if edition in ONLY_ENGLISH:                  # after the title line
            first, _, rest = text.partition("\n")
            text = f"{first}\n\n{ONLY_ENGLISH[edition]}{rest}"
        (dest / "docs" / doc.name).write_text(text, encoding="utf-8")
    (dest / "api.md").write_text(_api_page(edition), encoding="utf-8")
    front = _md_links(readme.read_text(encoding="utf-8"), edition, dest)
    course = [p for p in pages if re.match(r"notebooks/\d\d\w*_", p)]
    extra = [p for p in pages if p not in course]
    if (dest / "notebooks" / "workshop" / "README.md").is_file():
        extra.append("notebooks/workshop/README")
    docs = ["docs/" + d.stem for d in sorted((dest / "docs").glob("*.md"))]
    cap = {"en": ("The notebooks", "The workshop", "Reference"),
           "zh": ("笔记本", "工作坊", "参考")}[edition]
    toc = "".join(f"\n```{{toctree}}\n:hidden:\n:caption: {c}\n\n" + "\n".join(ps) + "\n```\n"
                  for c, ps in zip(cap, (course, extra, docs + ["api"])))
    (dest / "index.md").write_text(front.rstrip() + "\n" + toc, encoding="utf-8")
    return {"notebooks": len(pages), "widget stills": stills, "docs": len(docs)}


# ---------------------------------------------------------------------------------------------
# building and checking


def outside_requests(site: Path) -> list[str]:
    """Every place in the built site's HTML and CSS that would load something from another host."""
    found = []
    for p in sorted(site.rglob("*")):
        if p.suffix not in (".html", ".css") or not p.is_file():
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        for m in OUTSIDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{p.relative_to(site)}:{line}: {text[m.start():m.end() + 60]!r}")
    return found


def _landing(out: Path) -> None:
    (out / "index.html").write_text("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>umkit: GPU unified memory, the course</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;
line-height:1.5}a.ed{display:block;font-size:1.4rem;margin:1rem 0}</style></head>
<body><h1>umkit</h1>
<p>GPU unified (managed) memory, taught and made usable: the course, read without running it.
The numbers on these pages are the sim backend's model output, stored with the notebooks.</p>
<a class="ed" lang="en" href="en/index.html">English edition</a>
<a class="ed" lang="zh-CN" href="zh/index.html">中文版</a>
</body></html>
""", encoding="utf-8")
    (out / ".nojekyll").write_text("")


def missing_tools() -> list[str]:
    import importlib.util
    return [m for m in ("sphinx", "myst_nb", "sphinx_book_theme", "jieba")
            if importlib.util.find_spec(m) is None]


def build(out: Path, jobs: int = 2, quiet: bool = False) -> int:
    missing = missing_tools()
    if missing:
        print(f"site: {', '.join(missing)} not installed in {sys.executable}: the `site` extra "
              "installs them (pip install -e '.[site]')", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="umkit-site-") as stage_dir:
        return _build(out, Path(stage_dir), jobs, quiet)


def _build(out: Path, stage_dir: Path, jobs: int, quiet: bool) -> int:
    t0 = time.monotonic()
    for ed in EDITIONS:
        info = stage(ed, stage_dir / ed)
        if not quiet:
            print(f"site: staged {ed}: {info}", file=sys.stderr)
    pages = {ed: sorted(p.relative_to(stage_dir / ed).with_suffix("").as_posix()
                        for p in (stage_dir / ed).rglob("*") if p.suffix in (".md", ".ipynb"))
             for ed in EDITIONS}
    (stage_dir / "pages.json").write_text(json.dumps(pages))      # conf.py: which pages have twins
    env = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0", MPLBACKEND="Agg",
               UMKIT_SITE_PAGES=str(stage_dir / "pages.json"))
    procs = []
    for ed in EDITIONS:
        cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(HERE),
               "-d", str(stage_dir / f".doctrees-{ed}"), str(stage_dir / ed), str(stage_dir / "html" / ed)]
        log = open(stage_dir / f"sphinx-{ed}.log", "w")
        procs.append((ed, subprocess.Popen(cmd, cwd=ROOT, env=dict(env, UMKIT_SITE_EDITION=ed),
                                           stdout=log,
                                           stderr=subprocess.STDOUT), log))
        if jobs < 2:
            procs[-1][1].wait()
    rc = 0
    for ed, proc, log in procs:
        proc.wait()
        log.close()
        text = (stage_dir / f"sphinx-{ed}.log").read_text()
        if text.strip():
            print(f"site: sphinx ({ed}) said:\n{text.rstrip()}", file=sys.stderr)
        if proc.returncode:
            print(f"site: sphinx ({ed}) failed with {proc.returncode}", file=sys.stderr)
            rc = 1
    if rc:
        return rc
    tmp = out.with_name(out.name + ".new")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for ed in EDITIONS:      # (myst-nb writes outputs' files beside the output folder, not in it)
        shutil.move(str(stage_dir / "html" / ed), str(tmp / ed))
    _landing(tmp)
    bad = outside_requests(tmp)
    if bad:
        print("site: these would load from another host when the site is read:\n  "
              + "\n  ".join(bad[:40]), file=sys.stderr)
        shutil.rmtree(tmp)
        return 1
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    if not quiet:
        print(f"site: built {out} in {time.monotonic() - t0:.0f} s (open {out}/index.html; "
              f"or serve it: python -m http.server -d {out})", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "site"), help="where the site goes (default site/)")
    ap.add_argument("--jobs", type=int, default=2, help="1 builds the editions one after the other")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    return build(Path(a.out).resolve(), a.jobs, a.quiet)


if __name__ == "__main__":
    sys.exit(main())
