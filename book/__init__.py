"""The course as a static HTML book (`./course book`): executed chapters, rendered by Sphinx with MyST-NB."""
