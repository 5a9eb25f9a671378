"""Interactive figures for the course notebooks (ipywidgets + matplotlib).

Each widget lives in its own module and is built by a function that returns a widget
without displaying it, so notebooks call `display(...)` and tests can drive it.
"""
