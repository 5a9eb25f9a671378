"""A class on JupyterHub, end to end, on real Unix users (`python -m autograder hub`).

A hub on free loopback ports with an instructor and three students, each a real user: the
instructor releases chapter 02; two students fetch it, work (one right, one leaving the stubs)
and submit; a third submits a hostile notebook; all three through nbgrader's CLI run as
themselves with their server's Python and settings. The instructor collects, grades with the
course's grader and returns the feedback; each student fetches theirs and finds their score and
a page that typesets its math by itself; formgrader, opened in its own tab from the instructor's
Grading menu, shows the scores of `hub grade`. Each person logs in with their own password and
not with a classmate's; a memory hog in one student's kernel is stopped by their limit while
another student's server keeps answering; the idle culler (timeout 60 s here) stops the Chromium
student's server once it is idle. A student's server runs confined: from its terminal, copies of
`solutions/` laid under /tmp and /opt as decoys (readable by every user's permissions), the checkout
and the instructor's course do not exist, and Check my work runs there, its own sandbox nested in
the server's. The three collected notebooks graded from a folder give the same grades.csv. Users,
processes and files are removed at the end.

Root only (it creates users) and bubblewrap needed (it confines the servers): skipped with the
reason otherwise.
"""
from __future__ import annotations

import csv
import http.cookiejar
import json
import os
import pwd
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder import notebooks
from autograder.hub import config, instructor, lifecycle, limits, users
from autograder.hub.config import HubSettings
from autograder.hub.layout import HubLayout
from autograder.hub.roster import Roster
from autograder.hub.server import free_port
from autograder.notebooks import grade_id_of, is_solution
from autograder.paths import GRADES_BY_TEST_CSV, GRADES_CSV, REPO_ROOT, NbgraderLayout
from tests.helpers import solution_nb

# One hub for the module: under pytest-xdist (--dist loadgroup) its tests stay on one worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub"),
              pytest.mark.skipif(os.geteuid() != 0, reason="the hub test creates Unix users: run it as root"),
              pytest.mark.skipif(not shutil.which("useradd"), reason="useradd is not available"),
              pytest.mark.skipif(not shutil.which("bwrap"), reason="bubblewrap is not installed: the hub confines "
                                 "students' servers with it")]

CH = "02_greedy_speculation"
SHOTS = Path(tempfile.gettempdir()) / "course-screenshots" / "hub"
HOSTILE = """import os, sys
for place in ["{solutions}", "{exchange}/specdec/inbound", "/home"]:
    try:
        print(place, sorted(os.listdir(place))[:3])
    except OSError as err:
        print(place, "refused:", err.strerror)
sys.modules["autograder.calls"] = None
"""


def _proxy_missing() -> str | None:
    try:
        config.proxy_command()
    except Exception as err:  # noqa: BLE001
        return str(err)
    return None


def _as(user: str, layout: HubLayout, args: list[str]) -> subprocess.CompletedProcess:
    proc = instructor.nbgrader_as(user, layout, args, cwd=Path(pwd.getpwnam(user).pw_dir), instructor=False)
    assert proc.returncode == 0, f"{user}: nbgrader {' '.join(args)}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _work(user: str, layout: HubLayout, kind: str, before_submit=None) -> None:
    """Fetch chapter 02 as `user`, do the work (`right`, `stubs` or `hostile`), call `before_submit()`
    if given, submit it."""
    _as(user, layout, ["fetch_assignment", CH])
    _answer(user, layout, kind)
    if before_submit is not None:
        before_submit()
    _as(user, layout, ["submit", CH])


def _answer(user: str, layout: HubLayout, kind: str) -> None:
    """The work of `user` in their fetched copy, saved as them."""
    path = Path(pwd.getpwnam(user).pw_dir) / CH / f"{CH}.ipynb"
    nb = notebooks.read(path)
    assert any(c.cell_type == "code" and "check_button" in c.source for c in nb.cells), \
        "the released copy lacks Check my work"
    if kind in ("right", "hostile"):
        answers = {grade_id_of(c): c.source for c in solution_nb(CH).cells if is_solution(c)}
        for cell in nb.cells:
            if is_solution(cell):
                cell.source = answers[grade_id_of(cell)]
    if kind == "hostile":
        from nbformat.v4 import new_code_cell
        first = next(i for i, c in enumerate(nb.cells) if is_solution(c))
        nb.cells.insert(first + 1, new_code_cell(HOSTILE.format(solutions=lifecycle.SOLUTIONS_DIR,
                                                                exchange=layout.exchange)))
    notebooks.write(nb, path)
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid)


def _wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what} did not happen within {timeout:.0f} s")


def _browser_missing() -> str | None:
    from tests.chromium import missing
    return missing()


def _log_in(browser, url: str, user: str, password: str):
    from tests.browser.conftest import VIEWPORT

    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(f"{url}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", password)
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{user}/lab**", timeout=180_000)
    page.locator(".lm-MenuBar-itemLabel").get_by_text("Nbgrader", exact=True).wait_for(timeout=120_000)
    return context, page


def _instructor_view(browser, url: str, user: str, password: str, students: tuple[str, ...]) -> dict:
    """What the instructor's server offers: the Nbgrader and Grading menus, the folder it opens on,
    and formgrader opened from Grading in its own browser tab: its Manage Students rows."""
    from tests.browser.labui import menu, menu_items

    context, page = _log_in(browser, url, user, password)
    try:
        seen = {"nbgrader menu": menu_items(page, "Nbgrader"), "grading menu": menu_items(page, "Grading"),
                "contents": [c["name"] for c in context.request.get(f"{url}/user/{user}/api/contents").json()["content"]]}
        page.screenshot(path=str(SHOTS / "instructor_lab.png"))
        with context.expect_page() as opened:
            menu(page, "Grading", "Formgrader (opens in a new browser tab)")
        tab = opened.value
        tab.wait_for_load_state()
        seen["formgrader url"] = tab.url
        tab.goto(f"{url}/user/{user}/formgrader/manage_students")
        try:
            for student in students:
                tab.locator("tr", has_text=student).locator("td.score").filter(has_text="/").wait_for(timeout=60_000)
        finally:
            tab.screenshot(path=str(SHOTS / "instructor_formgrader.png"))
        seen["formgrader rows"] = {s: tab.locator("tr", has_text=s).inner_text() for s in students}
        return seen
    finally:
        context.close()


def _kept(check) -> dict:
    """`check()`'s result, or {"failed": the error} (its test reports it)."""
    try:
        return check()
    except Exception as err:  # noqa: BLE001
        import traceback
        return {"failed": "".join(traceback.format_exception(err))[-3000:]}


def _http_session(url: str, user: str, password: str):
    """A urllib opener logged in to the hub as `user` (its login form, with its _xsrf field), or None
    when the hub refuses the password."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(f"{url}/hub/login", timeout=30).read().decode()
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode({"_xsrf": xsrf, "username": user, "password": password}).encode()
    try:
        opener.open(f"{url}/hub/login", data, timeout=60).read()
    except urllib.error.HTTPError as err:
        if err.code == 403:
            return None
        raise
    opener.jar = jar
    return opener


def _api(opener, url: str, user: str, path: str, method: str = "GET", body: dict | None = None):
    """JSON from `user`'s server API (POST with the server's _xsrf cookie as its header)."""
    headers = {}
    if method != "GET":
        xsrf = [c.value for c in opener.jar if c.name == "_xsrf" and c.path.startswith(f"/user/{user}")]
        headers = {"X-XSRFToken": xsrf[-1], "Content-Type": "application/json"}
    req = urllib.request.Request(f"{url}/user/{user}/api/{path}", method=method, headers=headers,
                                 data=None if body is None else json.dumps(body).encode())
    with opener.open(req, timeout=30) as resp:
        return json.loads(resp.read() or b"null")


def _server_ready(opener, url: str, user: str) -> dict:
    """Wait for `user`'s server (their login started it): JupyterLab's page, reached through the hub's
    OAuth redirects once the server runs, sets the server's cookies (its API answers 403 before)."""
    def lab_open():
        try:
            with opener.open(f"{url}/user/{user}/lab", timeout=60) as resp:
                return f"/user/{user}/lab" in resp.geturl() and "/hub/" not in resp.geturl()
        except (urllib.error.URLError, OSError):
            return False
    _wait_for(lab_open, 180, f"{user}'s server")
    return _api(opener, url, user, "status")


def _run_in_kernel(user: str, kernel_id: str, code: str, timeout: float, ping=lambda: None) -> dict | None:
    """Run `code` in `user`'s kernel through its connection file (root reads it); the execute
    reply's content, or None when none came (the kernel died). `ping()` every 5 s meanwhile (the
    kernel's messages bypass the proxy, so the hub would see the server idle); it returns True to
    stop waiting."""
    from jupyter_client import BlockingKernelClient

    conn = Path(pwd.getpwnam(user).pw_dir) / ".local" / "share" / "jupyter" / "runtime" / f"kernel-{kernel_id}.json"
    _wait_for(conn.is_file, 60, f"{user}'s kernel connection file")
    client = BlockingKernelClient()
    client.load_connection_file(str(conn))
    client.start_channels()
    try:
        msg_id = client.execute(code)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                reply = client.get_shell_msg(timeout=5)
            except Exception:  # noqa: BLE001 (queue.Empty: nothing yet)
                if ping():
                    return None
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]
        return None
    finally:
        client.stop_channels()


def _in_terminal(opener, url: str, user: str, script: str, done: Path, timeout: float = 300) -> None:
    """Run the bash `script` in a terminal of `user`'s server, as a student types it (JupyterLab's
    terminal: the REST API opens it, its websocket carries the keys), until it creates `done`. The
    server is pinged meanwhile (the idle culler would see it idle)."""
    import websocket

    home = Path(pwd.getpwnam(user).pw_dir)
    path = home / ".terminal_script.sh"
    path.write_text(script, encoding="utf-8")
    entry = pwd.getpwnam(user)
    os.chown(path, entry.pw_uid, entry.pw_gid)
    name = _api(opener, url, user, "terminals", "POST", {})["name"]
    ws = websocket.create_connection(f"{url.replace('http', 'ws', 1)}/user/{user}/terminals/websocket/{name}",
                                     cookie="; ".join(f"{c.name}={c.value}" for c in opener.jar), timeout=5)
    try:
        ws.send(json.dumps(["stdin", f"bash {path}\r"]))
        deadline = time.monotonic() + timeout
        while not done.exists():
            assert time.monotonic() < deadline, f"the script in {user}'s terminal did not finish in {timeout:.0f} s"
            try:
                ws.recv()
            except websocket.WebSocketTimeoutException:
                _api(opener, url, user, "status")
    finally:
        ws.close()
        _api(opener, url, user, f"terminals/{name}", "DELETE")


def _confined_server(url: str, user: str, password: str, layout: HubLayout, hidden: list[Path]) -> dict:
    """`user` logs in (their server starts) and, in a terminal of JupyterLab, tries to read each of
    `hidden` (readable to them outside their server: checked first), lists / and /tmp, and runs Check
    my work on their chapter 02; what each showed, the server's processes, and what is left of them
    once the server is stopped."""
    import psutil

    home = Path(pwd.getpwnam(user).pw_dir)
    seen = {"outside": {str(p): users.run_as(user, ["head", "-c", "1", str(p)]).returncode for p in hidden}}
    opener = _http_session(url, user, password)
    _server_ready(opener, url, user)
    seen["processes"] = set()
    for pid in users.processes(user):
        try:
            seen["processes"].add(psutil.Process(pid).name())
        except psutil.Error:        # ended meanwhile
            pass
    done, out, check = home / ".confined.done", home / ".confined.out", home / ".check.out"
    tries = "\n".join(f'if head -c 1 "{p}" >/dev/null 2>"$HOME/.err"; then echo "read {p}"; '
                      f'else echo "refused {p}: $(cat "$HOME/.err")"; fi' for p in hidden)
    script = (f'{{\n{tries}\necho "root: $(ls -A / | tr \'\\n\' \' \')"\n'
              f'echo "tmp: $(ls -A /tmp | tr \'\\n\' \' \')"\n}} > {out} 2>&1\n'
              f'python -c "from autograder.grading.sandbox import isolation_available as a; '
              f'print(\'nested sandbox:\', a())" >> {out} 2>&1\n'
              f'python -m autograder check "$HOME/{CH}/{CH}.ipynb" > {check} 2>&1\n'
              f'echo "check exit $?" >> {out}\ntouch {done}\n')
    t = time.perf_counter()
    _in_terminal(opener, url, user, script, done)
    seen["terminal s"] = time.perf_counter() - t
    seen["lines"] = out.read_text().splitlines()
    seen["check"] = check.read_text()
    seen["log"] = (home / ".course_progress.jsonl").is_file()
    # Stopping the server (as the hub and the culler do) ends everything in its sandbox; the next
    # login starts a fresh one.
    xsrf = [c.value for c in opener.jar if c.name == "_xsrf" and c.path.startswith("/hub")]
    opener.open(urllib.request.Request(f"{url}/hub/api/users/{user}/server", method="DELETE",
                                       headers={"X-XSRFToken": xsrf[-1]}), timeout=60).read()
    t = time.perf_counter()
    try:
        _wait_for(lambda: not users.processes(user), 60, f"the end of {user}'s processes")
    except AssertionError:
        pass
    seen["left after stop"], seen["stop s"] = users.processes(user), time.perf_counter() - t
    return seen


def _limits_and_logins(url: str, layout: HubLayout, roster: Roster, state: dict) -> dict:
    """Own passwords (a classmate's refused), then a memory hog in one student's kernel while another
    student's server runs: what happened."""
    passwords = lifecycle.read_passwords(layout)
    _, hog, other = roster.students
    seen = {"own password": _http_session(url, other, passwords[other]) is not None,
            "a classmate's password": _http_session(url, other, passwords[hog]) is not None,
            "the instructor's password": _http_session(url, other, passwords[roster.instructor]) is not None}
    sessions = {u: _http_session(url, u, passwords[u]) for u in (hog, other)}
    for u, opener in sessions.items():
        _server_ready(opener, url, u)
    kernel = _api(sessions[hog], url, hog, "kernels", "POST", {"name": "python3"})

    def ping(stop=lambda: False):
        for u, opener in sessions.items():
            _api(opener, url, u, "status")
        return stop()
    # What one student's server and a kernel with the course's libraries hold (docs/hub.md's count).
    t = time.perf_counter()
    reply = _run_in_kernel(hog, kernel["id"], "import numpy, scipy, matplotlib.pyplot, torch, specdec, widgets", 180,
                           ping)
    seen["imports"] = (reply or {}).get("status"), time.perf_counter() - t
    seen["student memory MiB"] = limits.memory_used(state["cgroups"][hog]) / 2**20
    seen["oom kills before"] = limits.oom_kills(state["cgroups"][hog])
    t = time.perf_counter()
    seen["hog reply"] = _run_in_kernel(hog, kernel["id"], "hog = b'x' * (3 * 2**30)", 120, lambda: ping(
        lambda: limits.oom_kills(state["cgroups"][hog]) > seen["oom kills before"]))
    seen["oom kills after"] = _wait_for(lambda: limits.oom_kills(state["cgroups"][hog]), 60, "the OOM kill")
    seen["hog stopped after s"] = time.perf_counter() - t
    seen["hog's server"] = _api(sessions[hog], url, hog, "status")
    seen["other server"] = _api(sessions[other], url, other, "status")
    seen["other memory MiB"] = limits.memory_used(state["cgroups"][other]) / 2**20
    return seen


def _work_in_browser(browser, user: str, layout: HubLayout, url: str, password: str) -> dict:
    """`user` logs in to the hub in Chromium (the process's one browser, `tests.chromium`), fetches
    chapter 02 from the Assignments tab, works (the answers typed into the file), submits from the
    tab. What the page showed."""
    from tests.browser.labui import menu, menu_items

    SHOTS.mkdir(parents=True, exist_ok=True)
    seen = {}
    home = Path(pwd.getpwnam(user).pw_dir)
    t = time.perf_counter()
    context, page = _log_in(browser, url, user, password)
    try:
        seen["login to JupyterLab"] = time.perf_counter() - t
        seen["landing url"] = page.url
        seen["server processes"] = len(users.processes(user))
        page.wait_for_timeout(2000)          # the news question, if any, comes right after start
        seen["text"] = page.evaluate("() => document.body.innerText")
        seen["nbgrader menu"] = menu_items(page, "Nbgrader")
        seen["formgrader status"] = context.request.get(f"{url}/user/{user}/formgrader").status
        t = time.perf_counter()
        menu(page, "Nbgrader", "Assignment List")
        page.locator("button", has_text="Fetch").first.click()
        _wait_for(lambda: (home / CH / f"{CH}.ipynb").is_file(), 120, "the fetch from the Assignments tab")
        page.screenshot(path=str(SHOTS / "student_assignments_fetched.png"))
        _answer(user, layout, "right")
        page.locator("button", has_text="Submit").first.click()
        inbound = layout.exchange / "specdec" / "inbound"
        _wait_for(lambda: [d for d in inbound.iterdir() if d.name.startswith(f"{user}+{CH}+")], 120,
                  "the submission from the Assignments tab")
        seen["fetch, work, submit in the browser"] = time.perf_counter() - t
        page.wait_for_timeout(1000)
        page.screenshot(path=str(SHOTS / "student_assignments_submitted.png"))
    finally:
        context.close()
    return seen


@pytest.fixture(scope="module")
def hub_class(request):
    reason = _proxy_missing()
    if reason:
        pytest.skip(reason)
    tag = secrets.token_hex(3)
    roster = Roster(f"hi{tag}", (f"hr{tag}", f"hw{tag}", f"hx{tag}"), course="specdec")
    right, wrong, hostile = roster.students
    root = Path(tempfile.mkdtemp(prefix="course-hub-"))
    os.chmod(root, 0o755)
    layout = HubLayout(root / "state")
    # A short idle timeout, activity read every 10 s: the Chromium student's server, idle once they
    # submitted, is culled while the instructor grades.
    settings = HubSettings(port=free_port(), hub_port=free_port(), api_port=free_port(), idle_timeout=60,
                           activity_interval=10)
    times, out = {}, {}
    checkout = (lifecycle.SOLUTIONS_DIR, lifecycle.GIT_DIR)
    out["checkout_modes"] = {"before": [stat.S_IMODE(os.stat(p).st_mode) for p in checkout]}
    # Decoys: copies of solutions/ elsewhere on the machine, readable by every user.
    decoys = [Path(tempfile.gettempdir()) / f"course-decoy-{tag}" / "solutions" / f"{CH}.ipynb",
              Path("/opt") / f"course-decoy-{tag}" / "solutions" / f"{CH}.ipynb"]
    try:
        for decoy in decoys:
            shutil.copytree(lifecycle.SOLUTIONS_DIR, decoy.parent)
            subprocess.run(["chmod", "-R", "a+rX", str(decoy.parent.parent)], check=True)
        t = time.perf_counter()
        state = lifecycle.start(roster, layout, settings)
        times["hub start"] = time.perf_counter() - t
        passwords = lifecycle.read_passwords(layout)
        out["settings"] = settings
        t = time.perf_counter()
        instructor.release(layout, ["02"])
        times["release"] = time.perf_counter() - t
        t = time.perf_counter()
        in_browser = _browser_missing() is None
        with ThreadPoolExecutor(3) as pool:
            # One student in Chromium through the Assignments tab (where Chromium is installed),
            # the others through nbgrader's CLI, at the same time.
            cli = [(wrong, "stubs"), (hostile, "hostile")] + ([] if in_browser else [(right, "right")])
            # The stubs student, before submitting, runs Check my work in a terminal of their
            # (confined) server and tries to read the decoys.
            hidden = [*decoys, lifecycle.SOLUTIONS_DIR / f"{CH}.ipynb", REPO_ROOT / "README.md",
                      layout.course_dir(roster.instructor, roster.course) / "nbgrader_config.py"]
            confined = lambda: out.update(confined=_kept(lambda: _confined_server(  # noqa: E731
                settings.url, wrong, passwords[wrong], layout, hidden)))
            done = [pool.submit(_work, u, layout, k, confined if k == "stubs" else None) for u, k in cli]
            if in_browser:
                out["browser"] = _work_in_browser(request.getfixturevalue("chromium"), right, layout, settings.url,
                                                  passwords[right])
                times.update({k: v for k, v in out["browser"].items() if isinstance(v, float)})
            for future in done:
                future.result()
        times["three students fetch, work, submit"] = time.perf_counter() - t
        t = time.perf_counter()
        out["collected"] = instructor.collect(layout, CH)
        times["collect"] = time.perf_counter() - t
        t = time.perf_counter()
        out["graded"] = instructor.grade(layout, CH)
        times["grade three students"] = time.perf_counter() - t
        t = time.perf_counter()
        instructor.return_feedback(layout, CH)
        times["return feedback"] = time.perf_counter() - t
        t = time.perf_counter()
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(lambda student: _as(student, layout, ["fetch_feedback", CH]), roster.students))
        fetched = {student: sorted((Path(pwd.getpwnam(student).pw_dir) / CH / "feedback").glob("*/*.html"))
                   for student in roster.students}
        times["students fetch feedback"] = time.perf_counter() - t
        # Each check keeps its failure for its own test: the other tests still read the class.
        if in_browser:
            t = time.perf_counter()
            out["instructor view"] = _kept(lambda: _instructor_view(
                request.getfixturevalue("chromium"), settings.url, roster.instructor, passwords[roster.instructor],
                roster.students))
            times["formgrader in its own tab"] = time.perf_counter() - t
        t = time.perf_counter()
        out["limits"] = _kept(lambda: _limits_and_logins(settings.url, layout, roster, state))
        times["logins, two servers, memory hog"] = time.perf_counter() - t
        if in_browser:          # the Chromium student's server, idle since they submitted
            t = time.perf_counter()
            out["culled"] = _kept(lambda: _wait_for(lambda: [
                ln for ln in layout.log.read_text(errors="replace").splitlines() if f"Culling server {right}" in ln],
                settings.idle_timeout + 60, "the idle culler stopping the Chromium student's server"))
            times["culler (waiting for it)"] = time.perf_counter() - t
        course_dir = layout.course_dir(roster.instructor, roster.course)
        out["passwords"] = lifecycle.read_passwords(layout)
        out["grading owners"] = {pwd.getpwuid(os.stat(p).st_uid).pw_name
                                 for p in [course_dir, course_dir / "gradebook.db", *(course_dir / "grading").rglob("*")]}
        out.update(roster=roster, layout=layout, times=times, course_dir=course_dir,
                   graded_rows=_grades(out["graded"]), fetched={s: len(f) for s, f in fetched.items()})
        # Keep what the tests read: cleanup removes the homes and the course directory.
        (root / "pages").mkdir()
        out["pages"] = {}
        for student, found in fetched.items():
            if found:
                out["pages"][student] = root / "pages" / f"{student}.html"
                shutil.copyfile(found[0], out["pages"][student])
        # While the hub runs: who listens where, modes, what a student's Python can read.
        out["listening"] = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout
        with urllib.request.urlopen(f"http://127.0.0.1:{settings.port}/hub/api", timeout=10) as resp:
            out["api_status"] = resp.status
        out["home_modes"] = {u: stat.S_IMODE(os.stat(pwd.getpwnam(u).pw_dir).st_mode) for u in roster.users}
        out["checkout_modes"]["during"] = [stat.S_IMODE(os.stat(p).st_mode) for p in checkout]
        out["modes"] = {name: stat.S_IMODE(os.stat(path).st_mode) for name, path in
                        [("exchange", layout.exchange), ("private", layout.private),
                         *[(f, layout.private / f) for f in ("passwords.txt", "proxy_token")]]}
        probe = ("import autograder.paths as p, pathlib; print(p.in_bundle(), p.SOLUTIONS_DIR.exists()); "
                 f"pathlib.Path('{lifecycle.SOLUTIONS_DIR}/{CH}.ipynb').read_text()")
        out["probe"] = users.run_as(right, [str(layout.python), "-c", probe],
                                    env=config.server_environment(layout, instructor=False))
        out["processes_during"] = {u: len(users.processes(u)) for u in roster.users}
        # The same three notebooks, graded from a folder.
        folder = root / "folder"
        for student in roster.students:
            (folder / student).mkdir(parents=True)
            # What `hub grade` graded: the collected notebooks (the grader sanitizes its own copies).
            for name in (f"{CH}.ipynb", "timestamp.txt"):
                shutil.copyfile(layout.private / "collected" / CH / student / name, folder / student / name)
        subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder), "--out", str(root / "graded")],
                       capture_output=True, text=True)
        out["folder_rows"] = _grades(root / "graded") if (root / "graded" / GRADES_CSV).is_file() else []
        out["by_test"] = {"hub": _by_test(out["graded"]), "folder": _by_test(root / "graded")}
        # The instructor's cleanup, then what is left.
        lifecycle.cleanup(layout)
        out["checkout_modes"]["after"] = [stat.S_IMODE(os.stat(p).st_mode) for p in checkout]
        out["users_left"] = [u for u in roster.users if users.exists(u)]
        out["processes_left"] = subprocess.run(["pgrep", "-f", str(layout.root)], capture_output=True,
                                               text=True).stdout.split()
        out["listening_after"] = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True).stdout
        out["in_hub_folder"] = _running_in(layout.root)
        out["files_left"] = [str(p) for p in (layout.root, course_dir) if p.exists()]
        yield out
    finally:
        if lifecycle.read_state(layout):
            lifecycle.cleanup(layout)
        for user in roster.users:         # whatever a failed start left behind
            users.remove_user(user)
        shutil.rmtree(root, ignore_errors=True)
        for decoy in decoys:
            shutil.rmtree(decoy.parent.parent, ignore_errors=True)
        print("\nstage times (s): " + ", ".join(f"{k} {v:.1f}" for k, v in times.items()))
        measured = {k: v for k, v in (out.get("limits") or {}).items() if "MiB" in k or k.endswith(" s")}
        if measured:
            print("limits: " + ", ".join(f"{k} {v:.0f}" for k, v in measured.items()))


def _running_in(folder: Path) -> list[str]:
    """'pid command' of every process whose working directory is `folder` or below it (deleted or not)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cwd = os.readlink(proc / "cwd").removesuffix(" (deleted)")
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if Path(cwd).is_relative_to(folder):
            found.append(f"{proc.name} {command[:120]}")
    return found


def _by_test(folder: Path) -> list[dict]:
    path = folder / GRADES_BY_TEST_CSV
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _grades(folder: Path) -> list[dict]:
    with open(folder / GRADES_CSV, newline="") as f:
        return list(csv.DictReader(f))


def test_the_hub_answers_on_loopback_only(hub_class):
    s = hub_class["settings"]
    assert hub_class["api_status"] == 200
    for port in (s.port, s.hub_port, s.api_port):
        addrs = re.findall(rf"(\S+):{port}\s", hub_class["listening"])
        assert addrs and set(addrs) <= {"127.0.0.1"}, (port, addrs)


def test_homes_are_private_the_exchange_is_777_and_secrets_are_root_only(hub_class):
    assert set(hub_class["home_modes"].values()) == {0o700}, hub_class["home_modes"]
    modes = hub_class["modes"]
    assert modes.pop("exchange") == 0o777 and modes.pop("private") == 0o700
    assert set(modes.values()) == {0o600}, modes


def test_the_checkout_is_closed_to_group_and_others_while_the_hub_runs_and_given_back_after(hub_class):
    modes = hub_class["checkout_modes"]
    assert all(not m & 0o077 for m in modes["during"]), modes
    assert modes["after"] == modes["before"], modes


def test_no_solution_is_reachable_from_a_student(hub_class):
    """A student's Python imports the student copy of the course (no solutions/ beside it) and
    cannot read the repository's solutions."""
    probe = hub_class["probe"]
    assert probe.stdout.split() == ["True", "False"], probe.stdout + probe.stderr
    assert "PermissionError" in probe.stderr


def test_check_my_work_runs_in_a_student_s_confined_server(hub_class):
    """The self-check (what the Check my work button runs), typed in a terminal of a student's
    server: its kernel starts in a bubblewrap sandbox nested in the server's (the sandbox's probe of
    bubblewrap passes there), the report comes, the progress log is in their home."""
    seen = hub_class.get("confined", {"failed": "the stubs student's terminal never ran"})
    assert "failed" not in seen, seen.get("failed")
    run = seen["check"]
    # Check my work's kernels start in bubblewrap nested in the server's (the check does not warn when
    # they cannot: the probe it uses is asked directly).
    assert "nested sandbox: True" in seen["lines"], seen["lines"]
    assert "Kernel died" not in run, run[-2000:]
    assert re.search(r"Total: 0 / \d+", run), run[-3000:]
    assert "visible tests only" in run            # a student's copy of the course: no hidden tests
    assert seen["log"] and "Permission denied" not in run


def test_a_student_s_terminal_cannot_read_any_copy_of_the_course(hub_class):
    """Copies of solutions/ under /tmp and /opt that every user may read, the checkout itself and the
    instructor's course directory do not exist inside a student's server (bubblewrap's), though
    the student can read the decoys outside it."""
    seen = hub_class.get("confined", {"failed": "the stubs student's terminal never ran"})
    assert "failed" not in seen, seen.get("failed")
    assert "bwrap" in seen["processes"], seen["processes"]
    decoys = [p for p, rc in seen["outside"].items() if "course-decoy-" in p]
    assert len(decoys) == 2 and all(seen["outside"][p] == 0 for p in decoys), seen["outside"]
    refused = [ln for ln in seen["lines"] if ln.startswith("refused ")]
    assert len(refused) == len(seen["outside"]) and not [ln for ln in seen["lines"] if ln.startswith("read ")], \
        seen["lines"]
    assert all(ln.endswith("No such file or directory") for ln in refused), refused
    listed = {ln.split(":")[0]: ln.split(":", 1)[1].split() for ln in seen["lines"] if ln[:5] in ("root:", "tmp: ")}
    assert "opt" not in listed["root"] and not [n for n in listed["tmp"] if n.startswith("course-decoy-")], listed


def test_stopping_a_confined_server_ends_everything_in_it(hub_class):
    """The hub (and the culler) stop a student's server by signalling bubblewrap: its server, kernels
    and terminals end with it, nothing of the student's keeps running."""
    seen = hub_class.get("confined", {"failed": "the stubs student's terminal never ran"})
    assert "failed" not in seen, seen.get("failed")
    assert seen["left after stop"] == [], seen["left after stop"]


def test_each_student_gets_the_grade_their_work_earns(hub_class):
    rows = {r["student_id"]: r for r in hub_class["graded_rows"]}
    right, wrong, hostile = hub_class["roster"].students
    assert set(rows) == {right, wrong, hostile}
    assert all(hub_class["collected"].values())
    assert float(rows[right]["score"]) == float(rows[right]["max_score"]) > 0, rows[right]
    assert float(rows[wrong]["score"]) == 0, rows[wrong]
    assert rows[hostile]["status"].startswith("graded"), rows[hostile]
    assert rows[hostile]["review"], "the hostile cell is not listed for review"
    assert not rows[right]["review"] and not rows[wrong]["review"], "an honest submission is flagged for review"


def test_feedback_reaches_each_student_with_score_and_self_contained_math(hub_class):
    rows = {r["student_id"]: r for r in hub_class["graded_rows"]}
    assert hub_class["fetched"] == {s: 1 for s in hub_class["roster"].students}, hub_class["fetched"]
    for student, page in hub_class["pages"].items():
        html = page.read_text(encoding="utf-8")
        score = f"{float(rows[student]['score']):g}"
        assert re.search(rf"Score:?\s*{re.escape(score)}(\.0)?\s*/\s*{float(rows[student]['max_score']):g}", html), student
        assert 'name="course-feedback"' in html and "<math" in html and "cdnjs" not in html
        assert not re.findall(r'<(?:script|img|link)[^>]+(?:src|href)="(?!data:|https?:|#)[^"]*"', html)


def test_a_student_works_through_the_assignments_tab_without_instructor_menus(hub_class):
    if "browser" not in hub_class:
        pytest.skip(f"no browser: {_browser_missing()}")
    seen = hub_class["browser"]
    assert "Assignment List" in seen["nbgrader menu"], seen["nbgrader menu"]
    assert not {"Formgrader", "Create assignment", "Course List"} & set(seen["nbgrader menu"]), seen["nbgrader menu"]
    assert "notified about official Jupyter news" not in seen["text"]
    assert seen["formgrader status"] == 404          # the server does not serve formgrader to a student
    assert seen["landing url"].endswith("/lab/tree/START_HERE.ipynb"), seen["landing url"]    # the start page


def test_the_instructor_s_server_has_formgrader_on_the_course_directory(hub_class):
    if "browser" not in hub_class:
        pytest.skip(f"no browser: {_browser_missing()}")
    seen = hub_class["instructor view"]
    assert "failed" not in seen, seen.get("failed")
    # nbgrader's own Formgrader entry (an iframe JupyterHub's CSP refuses) is off; Grading opens it in a tab.
    assert "Assignment List" in seen["nbgrader menu"] and "Formgrader" not in seen["nbgrader menu"], seen
    assert seen["grading menu"] == ["Formgrader (opens in a new browser tab)"], seen["grading menu"]
    assert f"/user/{hub_class['roster'].instructor}/formgrader" in seen["formgrader url"], seen
    # It opens on the course directory: the course's config, the released chapter, the one gradebook.
    assert {"nbgrader_config.py", "release", "source", "gradebook.db"} <= set(seen["contents"]), seen["contents"]


def test_formgrader_shows_every_score_of_hub_grade(hub_class):
    """One gradebook: `hub grade` writes the course directory's, which formgrader reads."""
    if "browser" not in hub_class:
        pytest.skip(f"no browser: {_browser_missing()}")
    assert "failed" not in hub_class["instructor view"], hub_class["instructor view"]["failed"]
    rows = hub_class["instructor view"]["formgrader rows"]
    for r in hub_class["graded_rows"]:
        assert f"{float(r['score']):g} / {float(r['max_score']):g}" in rows[r["student_id"]], (r, rows)


def test_each_person_logs_in_with_their_own_password_only(hub_class):
    seen = hub_class["limits"]
    assert "failed" not in seen, seen.get("failed")
    assert seen["own password"] and not seen["a classmate's password"] and not seen["the instructor's password"]
    passwords = hub_class["passwords"]
    assert set(passwords) == set(hub_class["roster"].users) and len(set(passwords.values())) == len(passwords)


def test_a_memory_hog_stops_only_its_own_kernel(hub_class):
    seen = hub_class["limits"]
    assert "failed" not in seen, seen.get("failed")
    assert seen["imports"][0] == "ok", seen
    assert seen["hog reply"] is None or seen["hog reply"]["status"] == "error", seen   # no 3 GiB in a 2 GiB limit
    assert seen["oom kills after"] > seen["oom kills before"], seen
    assert seen["hog's server"]["started"] and seen["other server"]["started"], seen     # both servers answer


def test_the_idle_culler_stops_an_idle_server(hub_class):
    if "browser" not in hub_class:
        pytest.skip(f"no browser: {_browser_missing()}")
    assert "failed" not in hub_class["culled"], hub_class["culled"]
    right = hub_class["roster"].students[0]
    assert any(f"Culling server {right}" in line for line in hub_class["culled"]), hub_class["culled"]


def test_the_grading_folder_belongs_to_the_instructor(hub_class):
    assert hub_class["grading owners"] == {hub_class["roster"].instructor}, hub_class["grading owners"]


def test_the_same_notebooks_graded_from_a_folder_give_the_same_grades(hub_class):
    hub, folder = hub_class["graded_rows"], hub_class["folder_rows"]
    differ = [(h, f) for h, f in zip(hub, folder) if h != f]
    tests = [(h, f) for h, f in zip(*hub_class["by_test"].values()) if h != f]
    assert folder and len(folder) == len(hub) and not differ, f"rows that differ: {differ}; tests: {tests}"


def test_a_returned_feedback_page_typesets_its_math_offline(hub_class, chromium):
    """The page a student fetched, opened from their folder with every network request refused."""
    from tests.browser.test_feedback_page import MATH_JS

    page_file = hub_class["pages"][hub_class["roster"].students[0]]
    context = chromium.new_context()
    try:
        refused = []
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else (refused.append(route.request.url), route.abort()))
        page = context.new_page()
        page.goto(page_file.as_uri())
        math = page.evaluate(MATH_JS)          # MathML, drawn by the browser itself
        assert math and all(d in ("math", "block math") for d, _ in math) and page.locator("code.course-tex").count() == 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "student_feedback.png"), full_page=False)
        assert not refused, refused
    finally:
        context.close()


def test_cleanup_removes_users_processes_ports_and_files(hub_class):
    """The instructor's `cleanup`, run at the end of the class (in the fixture)."""
    s = hub_class["settings"]
    if "browser" in hub_class:
        assert hub_class["browser"]["server processes"], "the browser student's server did not run as that user"
    assert hub_class["users_left"] == [] and hub_class["processes_left"] == []
    assert hub_class["in_hub_folder"] == [], "still running in the hub's folder (its proxy or a service?)"
    assert not [p for p in (s.port, s.hub_port, s.api_port) if re.search(rf":{p}\s", hub_class["listening_after"])]
    assert hub_class["files_left"] == []
