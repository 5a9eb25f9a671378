"""Interactive figures for the course notebooks.

Three live figures are anywidget ES modules (`roofline.js`, `batch_speedup.js`, `tree_mask.js`, with
their maths in `*_math.js`): they compute and draw in the browser, in JupyterLab and on the book's
pages alike, from data the Python side sends once. The numeric drill form (`drills.py`) is plain
ipywidgets. Each lives in its own module and is built by a function that displays nothing, so
tests can drive it: `roofline_widget()` and `batch_speedup_widget()` return an object whose `.box`
a notebook displays, `tree_mask_explorer()` an object a cell shows by ending with it (or its `.box`),
`numeric_drill_widget()` the form itself.
"""
