"""`python -m autograder hub start|stop|cleanup|release|collect|grade|return` (`./course hub ...`).

    python -m autograder hub start class.toml          # users, passwords, limits, exchange, hub on 127.0.0.1:8000
    python -m autograder hub release 02 03             # the learner copies to the exchange
    python -m autograder hub collect 02
    python -m autograder hub grade 02                  # the course's grader on what was collected
    python -m autograder hub return 02                 # feedback pages, math included
    python -m autograder hub stop                      # the hub and every server it started
    python -m autograder hub cleanup                   # also the users it created and its files;
                                                       # the modes start changed put back
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .layout import DEFAULT_STATE, HubLayout


def add_hub_parser(sub) -> None:
    p = sub.add_parser("hub", help="run a class on JupyterHub on this machine (root): users, exchange, hub")
    hub = p.add_subparsers(dest="hub_command", required=True)

    def state(q):
        q.add_argument("--state", default=str(DEFAULT_STATE),
                       help=f"the hub's folder (config, secrets, exchange; default {DEFAULT_STATE})")
        return q

    q = state(hub.add_parser("start", help="create or reuse the roster's users, lay out the exchange, start the hub"))
    q.add_argument("roster", help='TOML file: course = "id", instructor = "user", students = ["user", ...]')
    q.add_argument("--ip", default="127.0.0.1", help="address the hub listens on (default 127.0.0.1)")
    q.add_argument("--port", type=int, default=8000, help="the hub's public port (default 8000)")
    q.add_argument("--hub-port", type=int, default=8081, help="the hub's internal API port (default 8081)")
    q.add_argument("--proxy-api-port", type=int, default=8001, help="the proxy's API port (default 8001)")
    q.add_argument("--mem-limit", default="2G",
                   help="memory of each student's server and kernels together, e.g. 2G or 512M (default 2G)")
    q.add_argument("--cpu-limit", type=float, default=1.0, help="CPU cores each student may use (default 1)")
    q.add_argument("--idle-timeout", type=int, default=3600,
                   help="stop a server idle this many seconds (jupyterhub-idle-culler; 0: never; default 3600)")
    state(hub.add_parser("stop", help="stop the hub and every server it started"))
    state(hub.add_parser("cleanup", help="stop, then remove the users the hub created, their homes and its folder, and put back the modes start changed (solutions/, .git, reused users' homes)"))
    q = state(hub.add_parser("release", help="release chapters to the students (the learner copies in chapters/)"))
    q.add_argument("chapters", nargs="+", help="chapter names or numbers, e.g. 02")
    for name, text in (("collect", "collect the students' submissions of a chapter"),
                       ("grade", "grade the collected submissions of a chapter with the course's grader"),
                       ("return", "return the graded chapter's feedback to the students")):
        q = state(hub.add_parser(name, help=text))
        q.add_argument("chapter")


def main(args: argparse.Namespace) -> int:
    from . import instructor, lifecycle
    from .config import HubSettings
    from .roster import Roster

    layout = HubLayout(Path(args.state).resolve())
    cmd = args.hub_command
    if cmd == "start":
        settings = HubSettings(port=args.port, hub_port=args.hub_port, api_port=args.proxy_api_port, ip=args.ip,
                               mem_limit=args.mem_limit, cpu_limit=args.cpu_limit, idle_timeout=args.idle_timeout)
        lifecycle.start(Roster.load(Path(args.roster)), layout, settings)
    elif cmd == "stop":
        lifecycle.stop(layout)
    elif cmd == "cleanup":
        lifecycle.cleanup(layout)
    elif cmd == "release":
        instructor.release(layout, args.chapters)
    elif cmd == "collect":
        instructor.collect(layout, args.chapter)
    elif cmd == "grade":
        instructor.grade(layout, args.chapter)
    else:
        instructor.return_feedback(layout, args.chapter)
    return 0
