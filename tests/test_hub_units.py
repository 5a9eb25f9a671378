"""The parts of `python -m autograder hub` that need no root and no hub: the roster's checks, the
exchange's mode, what counts as reachable by students, the hub configuration written, the modes
start changes and cleanup puts back (on a stand-in machine), and the students' copy of the code."""
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from traitlets.config import Config

from autograder.errors import CourseError
from autograder.hub import config, exchange, runtime
from autograder.hub.config import HubSettings
from autograder.hub.layout import HubLayout
from autograder.hub.roster import Roster


@pytest.mark.parametrize("text, message", [
    ('students = ["ann"]', 'needs instructor = "name"'),
    ('instructor = "prof"', "needs students"),
    ('instructor = "prof"\nstudents = ["ann", "ann"]', "ann listed twice"),
    ('instructor = "prof"\nstudents = ["prof"]', "prof listed twice"),
    ('instructor = "root"\nstudents = ["ann"]', "'root' is not a Unix user name"),
    ('instructor = "prof"\nstudents = ["ann"]\nteachers = []', "unknown key(s) teachers"),
    ('instructor = "prof"\nstudents = ["ann"]\ncourse = "a b"', "course 'a b' must be"),
    ("instructor = ", "not a TOML file"),
])
def test_a_bad_roster_is_refused_in_one_sentence(text, message):
    with pytest.raises(CourseError) as err:
        Roster.parse(text, "class.toml")
    assert message in str(err.value) and str(err.value).startswith("class.toml: ")


def test_a_missing_roster_says_what_a_roster_is(tmp_path):
    with pytest.raises(CourseError, match=r"no roster at .* \(a TOML file"):
        Roster.load(tmp_path / "class.toml")


def test_the_exchange_is_exactly_777_whatever_the_umask(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the exchange is owned by root: run as root")
    old = os.umask(0o077)
    try:
        root = exchange.lay_out(tmp_path / "exchange")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o777 and exchange.is_laid_out(root)


def test_a_folder_under_a_private_home_is_not_reachable(tmp_path):
    private = tmp_path / "home"
    (private / "python" / "bin").mkdir(parents=True)
    exe = private / "python" / "bin" / "python3"
    exe.write_text("")
    exe.chmod(0o755)
    os.chmod(tmp_path, 0o755)
    private.chmod(0o755)
    assert runtime.reachable_by_others(exe, execute=True) == all(
        os.stat(p).st_mode & stat.S_IXOTH for p in list(exe.parents)[::-1])
    private.chmod(0o700)
    assert not runtime.reachable_by_others(exe, execute=True)


def test_the_hub_config_binds_loopback_and_keeps_secrets(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "proxy_command", lambda: "/usr/bin/configurable-http-proxy")
    monkeypatch.setattr(HubLayout, "course_dir", lambda self, i, c: tmp_path / "home" / i / c)
    layout = HubLayout(tmp_path / "state")
    layout.root.mkdir()
    roster = Roster("prof", ("ann", "ben"))
    procs = tmp_path / "cgroup.procs"
    config.write_all(roster, layout, HubSettings(port=18000, hub_port=18081, api_port=18001, idle_timeout=600),
                     cgroups={"ann": [str(procs)]})
    c = Config()
    exec(compile(layout.hub_config.read_text(), str(layout.hub_config), "exec"), {"get_config": lambda: c})
    assert (c.JupyterHub.ip, c.JupyterHub.hub_ip, c.Spawner.ip) == ("127.0.0.1",) * 3
    assert c.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:18001"
    assert c.Authenticator.allowed_users == {"prof", "ann", "ben"} and c.Authenticator.admin_users == {"prof"}
    # Each person's own Unix password through PAM: no shared password anywhere in the config.
    assert c.JupyterHub.authenticator_class == "pam" and "SharedPassword" not in layout.hub_config.read_text()
    assert c.Spawner.mem_limit == 2 * 2**30 and c.Spawner.cpu_limit == 1.0
    # The idle culler: a hub service with the scopes it needs, at the timeout asked for.
    (culler,) = c.JupyterHub.services
    assert "--timeout=600" in culler["command"] and "--cull-every=300" in culler["command"]
    assert set(c.JupyterHub.load_roles[0]["scopes"]) == {"list:users", "read:users:activity", "read:servers",
                                                         "delete:servers"}
    # A student's server joins their cgroups before it becomes them (here: this process, no setuid).
    from jupyterhub.spawner import LocalProcessSpawner
    monkeypatch.setattr(LocalProcessSpawner, "make_preexec_fn", lambda self, name: lambda: None)
    spawner_class = c.JupyterHub.spawner_class
    procs.write_text("")
    spawner_class.make_preexec_fn(object.__new__(spawner_class), "ann")()
    assert procs.read_text() == str(os.getpid())
    spawner_class.make_preexec_fn(object.__new__(spawner_class), "prof")()    # the instructor: none
    assert procs.read_text() == str(os.getpid())
    # The instructor's Grading menu opens formgrader in its own browser tab (never framed).
    settings_dir = json.loads((layout.instructor_config / "jupyter_server_config.json").read_text())
    overrides = json.loads((Path(settings_dir["LabApp"]["app_settings_dir"]) / "overrides.json").read_text())
    (item,) = overrides["@jupyterlab/mainmenu-extension:plugin"]["menus"][0]["items"]
    assert item["command"] == "help:open" and item["args"]["newBrowserTab"] is True
    assert item["args"]["url"] == "/user/prof/formgrader"
    assert stat.S_IMODE(os.stat(layout.hub_config).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(layout.private).st_mode) == 0o700
    assert "PYTHONPATH" not in c.Spawner.env_keep and "PATH" not in c.Spawner.env_keep
    student = config.server_environment(layout, instructor=False)["JUPYTER_CONFIG_PATH"].split(os.pathsep)
    assert student[0] == str(layout.student_config) and "hub/student" in student[1]
    nbgrader = (layout.student_config / "nbgrader_config.py").read_text()
    assert f"c.Exchange.root = '{layout.exchange}'" in nbgrader and "course_id = 'specdec'" in nbgrader


def test_each_created_user_gets_their_own_password_kept_across_restarts(tmp_path, monkeypatch):
    from autograder.hub import lifecycle, users

    set_to = {}
    monkeypatch.setattr(users, "set_password", lambda user, pw: set_to.__setitem__(user, pw))
    layout = HubLayout(tmp_path / "state")
    layout.private.mkdir(parents=True)
    roster = Roster("prof", ("ann", "ben", "old"))
    given = lifecycle.give_passwords(layout, roster, created={"prof", "ann", "ben"})
    assert given == set_to and set(given) == {"prof", "ann", "ben"}        # "old" existed: keeps their own
    assert len(set(given.values())) == 3 and min(map(len, given.values())) >= 12
    assert stat.S_IMODE(os.stat(layout.passwords).st_mode) == 0o600
    assert lifecycle.read_passwords(layout) == given and "# old:" in layout.passwords.read_text()
    set_to.clear()
    assert lifecycle.give_passwords(layout, roster, created={"prof", "ann", "ben"}) == given and not set_to


def test_instructor_settings_give_formgrader_its_own_tab_not_an_iframe():
    import json
    page = json.loads((config.HUB_CONFIG_DIR / "instructor" / "labconfig" / "page_config.json").read_text())
    # nbgrader's Formgrader entry frames it inside JupyterLab, which JupyterHub's CSP refuses.
    assert page["disabledExtensions"]["@jupyter/nbgrader:formgrader"] is True
    assert page["disabledExtensions"]["@jupyter/nbgrader:create-assignment"] is False


def test_students_settings_show_the_assignment_list_and_no_instructor_parts():
    import json
    hub = config.HUB_CONFIG_DIR
    page = json.loads((hub / "student" / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert page == {"@jupyter/nbgrader:formgrader": True, "@jupyter/nbgrader:create-assignment": True,
                    "@jupyter/nbgrader:course-list": True, "@jupyter/nbgrader:assignment-list": False}
    server = json.loads((hub / "student" / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.assignment_list"] is True
    assert Path(config.COMMON_CONFIG_DIR / "labconfig" / "page_config.json").is_file()   # the news pop-up off


def test_the_hub_refuses_to_start_when_a_pinned_package_is_missing(tmp_path, monkeypatch):
    """One sentence, before any user is created."""
    if os.geteuid() != 0:
        pytest.skip("the hub starts only as root")
    from autograder.grading import preflight
    from autograder.hub import lifecycle, users

    real = preflight.installed_versions
    monkeypatch.setattr(preflight, "installed_versions",
                        lambda: {k: v for k, v in real().items() if k != "latex2mathml"})
    roster = Roster("zqprof", ("zqann",))
    with pytest.raises(CourseError) as err:
        lifecycle.start(roster, HubLayout(tmp_path / "state"), HubSettings(port=1, hub_port=2, api_port=3))
    msg = str(err.value)
    assert msg.startswith("the hub refused to start: the course environment") and "\n" not in msg
    assert "latex2mathml==" in msg
    assert not [u for u in roster.users if users.exists(u)] and not (tmp_path / "state").exists()


def test_the_hub_refuses_to_start_without_bubblewrap(tmp_path, monkeypatch):
    """Students' servers run inside bubblewrap: without it, one sentence before any user is created."""
    from autograder.hub import confine, lifecycle

    monkeypatch.setattr(lifecycle.os, "geteuid", lambda: 0)
    monkeypatch.setattr(lifecycle, "environment_problem", lambda **k: None)
    monkeypatch.setattr(config, "proxy_command", lambda: "configurable-http-proxy")
    monkeypatch.setenv("PATH", str(tmp_path))          # no bwrap on it
    monkeypatch.setattr(lifecycle.users, "ensure_user", lambda user: pytest.fail("a user was created"))
    with pytest.raises(CourseError) as err:
        lifecycle.start(Roster("prof", ("ann",)), HubLayout(tmp_path / "state"),
                        HubSettings(port=1, hub_port=2, api_port=3))
    assert str(err.value) == f"the hub refused to start: {confine.MISSING}."
    assert not (tmp_path / "state").exists()


def test_a_student_s_server_starts_inside_bubblewrap(tmp_path, monkeypatch):
    """The spawner starts each student's server inside bubblewrap (their home bound at its name,
    the exchange, the course read-only), the instructor's as it is."""
    monkeypatch.setattr(config, "proxy_command", lambda: "/usr/bin/configurable-http-proxy")
    layout = HubLayout(tmp_path / "state")
    layout.root.mkdir()
    config.write_all(Roster("prof", ("ann",)), layout, HubSettings(port=18000, hub_port=18081, api_port=18001))
    c = Config()
    exec(compile(layout.hub_config.read_text(), str(layout.hub_config), "exec"), {"get_config": lambda: c})
    monkeypatch.setattr("pwd.getpwnam", lambda n: type("P", (), {"pw_dir": f"/home/{n}"})())
    spawners = {}
    for name in ("ann", "prof"):
        spawner = spawners[name] = type("S", (), {})()
        spawner.user, spawner.environment, spawner.cmd = type("U", (), {"name": name})(), {}, c.Spawner.cmd
        c.Spawner.pre_spawn_hook(spawner)
    ann = spawners["ann"].cmd
    assert os.path.basename(ann[0]) == "bwrap" and ann[-3:] == c.Spawner.cmd
    at = ann.index("/home/ann")
    assert ann[at - 1:at + 2] == ["--bind", "/home/ann", "/home/ann"] and ann[ann.index("--chdir") + 1] == "/home/ann"
    assert f"{layout.exchange}" in ann and "--unshare-net" not in ann and "--unshare-pid" in ann
    assert spawners["prof"].cmd == c.Spawner.cmd


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """`lifecycle.start` and `cleanup` on a stand-in machine: a temp folder is the checkout
    (`solutions/` and `.git` open to their group), homes are temp folders, users a set (ann exists
    already, with a home of mode 755), and nothing is installed or started."""
    from autograder.hub import lifecycle, server, users

    checkout, homes = tmp_path / "checkout", tmp_path / "home"
    for name, mode in (("solutions", 0o775), (".git", 0o2750)):
        (checkout / name).mkdir(parents=True)
        os.chmod(checkout / name, mode)
    (homes / "ann").mkdir(parents=True)
    os.chmod(homes / "ann", 0o755)
    existing = {"ann"}

    def ensure_user(user):
        created = user not in existing
        existing.add(user)
        (homes / user).mkdir(exist_ok=True)
        os.chmod(homes / user, 0o700)
        return created

    def remove_user(user):
        existing.discard(user)
        shutil.rmtree(homes / user, ignore_errors=True)

    monkeypatch.setattr(lifecycle, "SOLUTIONS_DIR", checkout / "solutions")
    monkeypatch.setattr(lifecycle, "GIT_DIR", checkout / ".git")
    monkeypatch.setattr(lifecycle.os, "geteuid", lambda: 0)
    monkeypatch.setattr(lifecycle, "environment_problem", lambda **k: None)
    monkeypatch.setattr(lifecycle.confine, "problem", lambda: None)
    monkeypatch.setattr(lifecycle, "config_problem", lambda *a, **k: None)
    monkeypatch.setattr(HubLayout, "home", staticmethod(lambda user: homes / user))
    monkeypatch.setattr(users, "exists", lambda user: user in existing)
    monkeypatch.setattr(users, "ensure_user", ensure_user)
    monkeypatch.setattr(users, "remove_user", remove_user)
    monkeypatch.setattr(users, "kill_processes", lambda user: 0)
    monkeypatch.setattr(users, "set_password", lambda user, password: None)
    monkeypatch.setattr(lifecycle, "write_start_page", lambda layout, student: None)
    monkeypatch.setattr(lifecycle.limits, "make", lambda user, mem, cpus: [])
    monkeypatch.setattr(config, "proxy_command", lambda: "configurable-http-proxy")
    monkeypatch.setattr(config, "write_all", lambda *a: None)
    monkeypatch.setattr(config, "write_course_dir", lambda roster, layout: layout.course_dir(roster.instructor,
                                                                                              roster.course))
    monkeypatch.setattr(config, "server_environment", lambda layout, instructor: {})
    monkeypatch.setattr(runtime, "build", lambda layout: None)
    monkeypatch.setattr(exchange, "lay_out", lambda root: root)
    monkeypatch.setattr(server, "start", lambda layout, url: 0)
    monkeypatch.setattr(server, "stop_pid", lambda pid: False)
    return dict(checkout=checkout, homes=homes, existing=existing, layout=HubLayout(tmp_path / "state"))


def _modes(*paths):
    return [stat.S_IMODE(os.stat(p).st_mode) for p in paths]


def test_cleanup_puts_back_every_mode_start_changed(machine):
    """solutions/, .git and a reused user's home get their modes back at cleanup (the step that gives
    the machine back), those from before the first start even when the hub was started twice."""
    from autograder.hub import lifecycle

    checkout, homes, layout = machine["checkout"], machine["homes"], machine["layout"]
    watched = (checkout / "solutions", checkout / ".git", homes / "ann")
    before = _modes(*watched)
    roster = Roster("prof", ("ann", "ben"))
    lifecycle.start(roster, layout, HubSettings(port=1, hub_port=2, api_port=3))
    assert _modes(homes / "ann") == [0o700]
    lifecycle.stop(layout)
    lifecycle.start(roster, layout, HubSettings(port=1, hub_port=2, api_port=3))      # a restart
    recorded = lifecycle.read_state(layout)["modes"]
    assert recorded == {str(p): format(m, "04o") for p, m in zip(watched, before)}, recorded
    lifecycle.cleanup(layout)
    assert _modes(*watched) == before == [0o775, 0o2750, 0o755]
    assert machine["existing"] == {"ann"} and not layout.root.exists()      # prof and ben were created


def test_a_student_in_the_checkout_s_group_cannot_read_the_solutions(machine):
    """Closing only the other users' bits would leave solutions/ and .git open to a student in the
    group that owns the checkout: start closes the group bits too."""
    from autograder.hub import lifecycle

    checkout = machine["checkout"]
    lifecycle.start(Roster("prof", ("ann",)), machine["layout"], HubSettings(port=1, hub_port=2, api_port=3))
    for mode in _modes(checkout / "solutions", checkout / ".git"):
        assert not mode & 0o077, oct(mode)


def test_the_students_copy_of_the_code_carries_chapter_12_s_record(tmp_path):
    """`specdec.engine.lab_record` reads the record beside the library: the hub's copy has it, at the
    same relative path, and nothing else of benchmarks/."""
    from autograder.grading.allowlist import LAB_RECORD
    from autograder.paths import REPO_ROOT

    dest = runtime.copy_code(tmp_path / "code")
    if not (REPO_ROOT / LAB_RECORD).is_file():
        pytest.skip("this copy of the course has no recorded full run")
    assert (dest / LAB_RECORD).read_bytes() == (REPO_ROOT / LAB_RECORD).read_bytes()
    assert [p.relative_to(dest) for p in (dest / "benchmarks").rglob("*") if p.is_file()] == [LAB_RECORD]


def test_a_zombie_is_no_running_process_and_does_not_hold_up_a_cleanup():
    """A dead process whose parent has not collected it (a zombie) survives every signal: it is not
    counted among a user's running processes, so removing the user does not wait on it forever."""
    import getpass
    import os
    import time

    from autograder.hub import users

    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        deadline = time.monotonic() + 10
        while pid in users.processes(getpass.getuser()) and time.monotonic() < deadline:
            time.sleep(0.05)                       # until the child has exited (uncollected: a zombie)
        assert pid not in users.processes(getpass.getuser()), "a zombie is counted as running"
        assert pid in users.processes(getpass.getuser(), zombies=True), "the zombie is not listed when asked for"
    finally:
        os.waitpid(pid, 0)


def test_a_proxy_and_a_service_left_by_a_killed_hub_are_stopped_and_nothing_else(tmp_path):
    """JupyterHub starts configurable-http-proxy and its managed services (the idle culler) in sessions of their own:
    a hub killed on a busy machine leaves them (fresh-clone suite runs left the proxy on the hub's ports, and the
    culler running). `stop` finds them in the hub's folder by command or service variable, and nothing else."""
    import os
    import subprocess
    import sys

    from autograder.hub import server

    layout = HubLayout(tmp_path / "state")
    layout.private.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    service_env = dict(os.environ, JUPYTERHUB_SERVICE_NAME="idle-culler")
    start = lambda cmd, cwd, env=None: subprocess.Popen(cmd, cwd=cwd, env=env, start_new_session=True)
    proxy = start(sleeper + ["configurable-http-proxy"], layout.private)
    service = start(sleeper, layout.private, service_env)
    shell = start(sleeper, layout.private)                      # a person's program in the hub's folder
    other_service = start(sleeper, elsewhere, service_env)      # another hub's service
    try:
        (layout.private / server.PROXY_PID_FILE).write_text(str(proxy.pid))
        assert sorted(server.stop_leftovers(layout)) == sorted([proxy.pid, service.pid])
        assert proxy.wait(timeout=5) is not None and service.wait(timeout=5) is not None
        assert shell.poll() is None and other_service.poll() is None
        assert not (layout.private / server.PROXY_PID_FILE).exists()
        assert server.stop_leftovers(layout) == []                             # nothing left to stop
    finally:
        for p in (proxy, service, shell, other_service):
            p.kill()
            p.wait()
