"""Sphinx configuration of the course book (`./course book`; see book/build.py).

The sources are staged by book/build.py: `index.md` (the start page with the course map),
`references.md` and one executed, static-ready notebook per chapter. Nothing is executed here
(`nb_execution_mode = "off"`) and nothing is fetched: MathJax is served from the site's own
`_static/mathjax/` (on every page: the search page shows math in its results too), the widget
scripts a notebook page would load from a CDN are switched off, and the theme's external buttons
(launch, download of the executed source) are not used; book/build.py puts the learner's notebooks
and the course bundle in `downloads/` and each chapter page links to them.

`templates/layout.html` removes pydata-sphinx-theme's top bar (see there why: it made the menu
button dead). `static/course.js` typesets math in search results and, under file://, gives the
search page the summaries it would otherwise fetch (book/search_text.py writes them).
"""
import os

from book.site_info import site_info

_info = site_info()

project = "Speculative decoding, an interactive course"
author = "the course authors"
copyright = "the course authors"
language = "en"
version = release = _info.version

extensions = ["myst_nb", "sphinx_copybutton"]
master_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")]

# MyST: $...$ and $$...$$ math, \begin{align} blocks, headings as link targets.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
myst_dmath_double_inline = True   # $$...$$ inside a paragraph, as JupyterLab renders it
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure"]

# Notebooks arrive executed; show every output as stored, stderr included (a learner sees it too).
nb_execution_mode = "off"
nb_output_stderr = "show"
nb_merge_streams = True
nb_ipywidgets_js = {}            # the default loads require.js and the widget manager from CDNs
nb_code_prompt_hide = "Hide the plotting code"
nb_code_prompt_show = "Show the plotting code"

# MathJax 3 from the site itself (book/build.py copies it to _static/mathjax/).
mathjax_path = "mathjax/tex-chtml.js"

# Copy buttons copy the code only, never prompts or output.
copybutton_exclude = ".linenos, .gp, .go"

html_theme = "sphinx_book_theme"
html_title = "Speculative decoding"
html_copy_source = False          # no _sources/ copies of the notebooks
html_show_sourcelink = False
html_use_index = False            # no index terms in the chapters: no empty "Index" page
html_last_updated_fmt = None
html_static_path = ["static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]
# The light/dark mode a first visit starts in (pydata-sphinx-theme reads it from html_context): left
# unset, the theme's first script sets the mode to "" and logs "Got invalid theme mode: ." on every page.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    # The repository link is the footer's (book/site_info.py): the theme's button accepts only GitHub,
    # GitLab and Bitbucket addresses and fails the build on any other host.
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "extra_footer": _info.footer_html(),
}


def setup(app):
    # MathJax on every page, the search page included (its results quote headings with math).
    app.set_html_assets_policy("always")
