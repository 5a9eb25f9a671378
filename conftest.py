# nbgrader executes its config file with `get_config` injected; it is not importable on its own.
collect_ignore = ["autograder/grading/nbgrader_config.py"]
