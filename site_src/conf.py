"""Sphinx configuration of the course website, shared by both editions (site_src/build.py stages
the sources and sets UMKIT_SITE_EDITION to en or zh for each build).  Nothing here loads from
another host: the notebooks are not executed, widget JavaScript is off (build.py turns widgets
into stills), no math renderer is needed (the notebooks have no math), and the theme's fonts and
icons ship with it."""
import json
import os
import posixpath

EDITION = os.environ.get("UMKIT_SITE_EDITION", "en")
OTHER = "zh" if EDITION == "en" else "en"

project = "umkit"
author = "the umkit authors"
copyright = "the umkit authors"
language = "zh_CN" if EDITION == "zh" else "en"
html_title = "umkit：GPU 统一内存课程" if EDITION == "zh" else "umkit: GPU unified memory, the course"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["umkit-site.css"]

# the notebooks as committed: their stored sim outputs, never run at build time
nb_execution_mode = "off"
nb_ipywidgets_js = {}                    # myst-nb's default loads require.js and the widget
                                         # manager from CDNs; build.py renders widgets as stills
nb_output_stderr = "show"
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "deflist", "html_image"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]      # notebooks start at their title, some skip a level

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"undoc-members": False}

html_theme = "sphinx_book_theme"
html_theme_options = {
    "article_header_end": ["lang-switch.html", "article-header-buttons.html"],
    "use_download_button": False,        # the .ipynb download works; the rest are off or online
    "use_fullscreen_button": True,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "home_page_in_toc": True,
}
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_search_language = "zh" if EDITION == "zh" else "en"
if EDITION == "zh":                      # Chinese words for the search index are cut by jieba
    import logging
    import jieba
    jieba.setLogLevel(logging.WARNING)
    html_js_files = [("zh-stemmer.js", {"priority": 100})]   # a Sphinx 9 gap: _static/zh-stemmer.js


# the other edition's pages (build.py writes the list); search and genindex are in both
_OTHER_PAGES = {"search", "genindex"}
if os.environ.get("UMKIT_SITE_PAGES"):
    with open(os.environ["UMKIT_SITE_PAGES"], encoding="utf-8") as f:
        _OTHER_PAGES |= set(json.load(f)[OTHER])


def _twin(app, pagename, templatename, context, doctree):
    """The link to this page's twin in the other edition, relative to this page (the editions
    share page names: build.py stages them so); the other edition's front page where this page
    has no twin yet (a notebook not yet translated)."""
    up = "../" * (pagename.count("/") + 1)
    twin = pagename if pagename in _OTHER_PAGES else "index"
    context["umkit_twin"] = posixpath.join(up + OTHER, twin + ".html")
    context["umkit_twin_missing"] = twin != pagename
    context["umkit_twin_label"] = "English" if EDITION == "zh" else "中文"
    context["umkit_twin_lang"] = "en" if EDITION == "zh" else "zh-CN"
    context["umkit_twin_title"] = {
        ("zh", False): "Read this page in English", ("en", False): "本页的中文版",
        ("zh", True): "This page has no English version yet: the English edition",
        ("en", True): "本页还没有中文版：中文版首页"}[EDITION, twin != pagename]
    context["umkit_edition"] = EDITION


def setup(app):
    app.connect("html-page-context", _twin)
