"""Sphinx configuration of the course book (`./course book`; see book/build.py).

The sources are staged by book/build.py: `index.md` (the start page with the course map) and one
executed, static-ready notebook per chapter. Nothing is executed here (`nb_execution_mode = "off"`)
and nothing is fetched: MathJax is served from the site's own `_static/mathjax/`, the widget
scripts a notebook page would load from a CDN are switched off, and the theme's external buttons
(repository, launch, download) are not used.
"""
project = "Speculative decoding, an interactive course"
author = "the course authors"
copyright = "the course authors"
language = "en"

extensions = ["myst_nb"]
master_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

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

# MathJax 3 from the site itself (book/build.py copies it to _static/mathjax/).
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "sphinx_book_theme"
html_title = "Speculative decoding"
html_copy_source = False          # no _sources/ copies of the notebooks
html_show_sourcelink = False
html_last_updated_fmt = None
html_static_path = ["static"]
html_css_files = ["course.css"]
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "home_page_in_toc": True,
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
