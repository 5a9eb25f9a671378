"""A class on JupyterHub on one machine: `python -m autograder hub ...` (`./course hub ...`).

One concept a module:

    roster      who is in the class (a TOML file: instructor, students, course id)
    layout      every path of a hub's state folder (config, secrets, exchange, students' Python)
    users       Unix users: created or reused, homes mode 700, removed with their processes; a
                generated password of their own for each user the hub creates (PAM checks it)
    limits      a memory and CPU limit per student: a cgroup their server joins at start
    confine     what a student's server sees: bubblewrap with their home, the exchange, the course
    runtime     the Python and course code students' servers run (shared read-only, no solutions)
    exchange    nbgrader's exchange folder, exactly mode 777
    config      the JupyterHub configuration written for a roster (loopback, PAM, limits, idle culler,
                per-user settings, formgrader in its own tab)
    server      start, wait for, and stop the hub process
    instructor  release, collect, grade, return feedback over the exchange
    cli         the `hub` subcommand
"""
