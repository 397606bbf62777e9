"""JupyterHub for a workshop room on one machine: every learner gets their own Jupyter server with
umkit installed and their own workspace (outputs cleared), opening on 00_start_here.

Started by ``bash run.sh hub`` (which sets the variables below); by hand:
``jupyterhub -f deploy/jupyterhub/jupyterhub_config.py`` with at least UMKIT_HUB_PASSWORD set.

Settings (environment variables):
  UMKIT_HUB_PASSWORD   the room's shared password (8+ characters); a learner's first sign-in
                       under a name gives it followed by a word of their own, which that name
                       then needs (umkit_hub.UmkitAuthenticator)
                       (or UMKIT_HUB_PASSWORD_FILE: a file holding it; run.sh uses STATE/hub/password)
  UMKIT_HUB_ADMIN      the presenter's admin user name (optional), with
  UMKIT_HUB_ADMIN_PASSWORD  its own password (32+ characters; JupyterHub's rule), or
                       UMKIT_HUB_ADMIN_PASSWORD_FILE
  UMKIT_HUB_IP         address to listen on (default 127.0.0.1; 0.0.0.0 serves the room's network)
  UMKIT_HUB_PORT       port (default 8000)
  UMKIT_HUB_STATE      the hub's folder (default .hub/): STATE/hub/ holds the database, cookie
                       secret, password and pid files (0700); STATE/users/ the learners' homes
  UMKIT_HUB_MEM        memory per learner, e.g. 2G (default 2G; 0 = no limit)
  UMKIT_HUB_CPU        CPU cores per learner, e.g. 1 (default 1; 0 = no limit)
  UMKIT_HUB_MAX_SERVERS  learner servers running at once (default 40)
  UMKIT_HUB_MAX_LEARNERS learner accounts the room's password may create (default 50; 0 = no limit)
  UMKIT_HUB_SUBDOMAIN_HOST  e.g. https://hub.example.org: each learner's server on a subdomain of
                       its own (every *.hub.example.org name must point at the hub); unset: one
                       shared origin
  UMKIT_HUB_SIGNIN_DELAY seconds a throttled name or address first waits (default 10; doubles
                       with each further failure, at most 300)
  UMKIT_HUB_NPROC      as root: processes and threads per learner account (default 2048; 0 = no
                       limit)
  UMKIT_HUB_IDLE       seconds before an idle learner server is stopped (default 3600; 0 = never)
  UMKIT_HUB_PROXY      the configurable-http-proxy command (run.sh installs it with npm)
  UMKIT_HUB_INTERNAL_PORT, UMKIT_HUB_PROXY_API_PORT  the hub's and the proxy's loopback ports
                       (default: free ones picked at start)
  UMKIT_HUB_SERVICE_TOKEN  an API token for a "room" service with user/server admin rights
                       (the load test and the CI test use it; unset: no such service), or
                       UMKIT_HUB_SERVICE_TOKEN_FILE
  UMKIT_HUB_ID         marks this hub's processes (run_hub.py sets it; stopping finds them by it)

Run as root, each learner's server runs as a system account of its own (umkit_hub.py says what
holds in each mode; so does README.md).  Secrets given in the environment are removed from it here,
so the proxy and the services started by the hub do not inherit them.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)

c = get_config()  # noqa: F821  (JupyterHub's config loader provides it)


def env(name, default=""):
    return os.environ.get(name, default).strip()


def secret(name):
    """NAME from the environment (then removed from it: no child inherits it) or NAME_FILE."""
    value = os.environ.pop(name, "").strip()
    path = os.environ.pop(name + "_FILE", "").strip()
    if not value and path:
        with open(path) as f:
            value = f.read().strip()
    return value


from umkit_hub import ISOLATED, free_port, hub_prefix  # noqa: E402  (this folder is on sys.path)

state = os.path.abspath(env("UMKIT_HUB_STATE", os.path.join(repo, ".hub")))
private = os.path.join(state, "hub")          # the hub's own files: nobody else may enter
homes = os.path.join(state, "users")
# isolated: learners pass through STATE and STATE/users to their own home (0711: no listing);
# shared: they run as the hub's user anyway
for d, mode in ((state, 0o711 if ISOLATED else 0o700), (private, 0o700),
                (homes, 0o711 if ISOLATED else 0o700)):
    os.makedirs(d, mode, exist_ok=True)
    os.chmod(d, mode)
for name in ("jupyterhub.sqlite", "jupyterhub_cookie_secret"):   # a state folder from before
    if os.path.exists(os.path.join(state, name)) and not os.path.exists(os.path.join(private, name)):
        os.replace(os.path.join(state, name), os.path.join(private, name))
bindir = os.path.dirname(sys.executable)
hub_id = env("UMKIT_HUB_ID") or __import__("secrets").token_hex(8)
os.environ["UMKIT_HUB_ID"] = hub_id       # the proxy and the services carry it too

if ISOLATED:
    # every learner account must be able to run the kit's Python and read the notebooks: check
    # it as the machine's "nobody" before serving anyone
    import subprocess  # noqa: E402
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import jupyterhub.singleuser, umkit, sys; "
             "open(sys.argv[1]).close(); open(sys.argv[2]).close()",
             os.path.join(repo, "notebooks", "00_start_here.ipynb"),
             os.path.join(here, "server", "umkit_contents.py")],
            user=65534, group=65534, extra_groups=[], cwd="/", capture_output=True, text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": "/"}, timeout=120)
        why = probe.stderr.strip()[-300:] if probe.returncode else ""
    except OSError as err:       # the interpreter itself is out of reach (e.g. under /root)
        why = f"{err.strerror}: {err.filename}"
    if why:
        raise SystemExit(
            "umkit hub: learners' accounts cannot use the kit here: another user cannot run "
            f"{sys.executable} or read {repo}/notebooks ({why}). Every "
            "folder above the checkout and its .venv must be searchable by all (chmod o+x) and "
            "their files readable (chmod -R o+rX): keep the checkout under /opt or /srv, not in "
            "/root.")

c.JupyterHub.ip = env("UMKIT_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env("UMKIT_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"

# the hub's own port and the proxy's API port stay on loopback; free ones are picked at start so
# that two hubs (a rehearsal beside the room's) never collide on JupyterHub's fixed defaults
c.JupyterHub.hub_port = int(env("UMKIT_HUB_INTERNAL_PORT") or free_port())
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('UMKIT_HUB_PROXY_API_PORT') or free_port())}"
c.JupyterHub.db_url = "sqlite:///" + os.path.join(private, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(private, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(private, "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = os.path.join(private, "proxy.pid")
if env("UMKIT_HUB_PROXY"):
    c.ConfigurableHTTPProxy.command = [env("UMKIT_HUB_PROXY")]
c.JupyterHub.cleanup_servers = True
# after sign-in a learner goes straight to their own server (started for them), which opens on
# 00_start_here; at most UMKIT_HUB_MAX_SERVERS run at once (one password holder cannot fill the
# machine with accounts), and they start a few at a time
c.JupyterHub.redirect_to_server = True
c.JupyterHub.active_server_limit = int(env("UMKIT_HUB_MAX_SERVERS", "40"))
c.JupyterHub.concurrent_spawn_limit = 20

# --- who may come in: one shared password for the room (JupyterHub's own authenticator), with
# failed sign-ins throttled and the number of learner accounts capped --------------------------
c.JupyterHub.authenticator_class = "umkit_hub.UmkitAuthenticator"
c.SharedPasswordAuthenticator.user_password = secret("UMKIT_HUB_PASSWORD")
c.Authenticator.allow_all = True
admin_password = secret("UMKIT_HUB_ADMIN_PASSWORD")
if env("UMKIT_HUB_ADMIN"):
    c.Authenticator.admin_users = {env("UMKIT_HUB_ADMIN")}
    c.SharedPasswordAuthenticator.admin_password = admin_password
c.UmkitAuthenticator.max_learners = int(env("UMKIT_HUB_MAX_LEARNERS", "50") or 0)
# every learner's server shares the hub's web origin unless each has a subdomain of its own
# (JupyterHub's Security Overview: each name must point at the hub, most easily a wildcard DNS
# name for *.HOST); with it, a page one learner's server serves is another site
if env("UMKIT_HUB_SUBDOMAIN_HOST"):
    c.JupyterHub.subdomain_host = env("UMKIT_HUB_SUBDOMAIN_HOST")
    if env("UMKIT_HUB_SUBDOMAIN_HOST").startswith("https://"):
        # the hub's cookies locked to its own host (__Host- prefix): a learner's subdomain
        # cannot set a cookie the hub reads ("cookie tossing"); needs HTTPS
        c.JupyterHub.cookie_host_prefix_enabled = True
c.UmkitAuthenticator.delay = float(env("UMKIT_HUB_SIGNIN_DELAY", "10") or 10)
# a learner's name, once taken, needs the word its first sign-in gave after the room's password
c.UmkitAuthenticator.words_file = os.path.join(private, "learner_words.json")
c.JupyterHub.template_paths = [os.path.join(here, "templates")]   # the sign-in page says how
# a user name becomes a folder name and (as root) part of a system account's name: plain
# characters, at most 20
c.Authenticator.username_pattern = r"^[a-z0-9][a-z0-9._-]{0,19}$"

# --- each learner's server ---------------------------------------------------------------
c.JupyterHub.spawner_class = "umkit_hub.UmkitSpawner"
c.UmkitSpawner.notebooks_src = os.path.join(repo, "notebooks")
c.UmkitSpawner.umkit_python = sys.executable
c.UmkitSpawner.home_dir_template = os.path.join(homes, "{username}")
c.UmkitSpawner.group_prefix = hub_prefix(state)
c.UmkitSpawner.hub_id = hub_id
c.UmkitSpawner.max_processes = int(env("UMKIT_HUB_NPROC", "2048") or 0)
c.Spawner.cmd = [os.path.join(bindir, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab/tree/00_start_here.ipynb"
# no terminals; the file browser and the contents API stay inside the workspace, symlinks
# resolved (server/umkit_contents.py)
c.Spawner.args = ["--ServerApp.terminals_enabled=False",
                  "--ServerApp.contents_manager_class=umkit_contents.NoEscapeContentsManager"]
if ISOLATED:
    # kernels talk over unix sockets in the learner's own 0700 runtime folder, not over loopback
    # TCP ports that every local user can connect to (a kernel's output channel needs no key to
    # listen to)
    c.Spawner.args.append("--KernelManager.transport=ipc")
c.Spawner.start_timeout = 120
c.Spawner.interrupt_timeout = 1     # a stopping server: SIGINT, then SIGTERM, then SIGKILL,
c.Spawner.term_timeout = 1          # then every process of the learner (umkit_hub.py)
c.Spawner.kill_timeout = 1
c.Spawner.http_timeout = 120
mem, cpu = env("UMKIT_HUB_MEM", "2G"), env("UMKIT_HUB_CPU", "1")
c.Spawner.mem_limit = None if mem in ("", "0") else mem
c.Spawner.cpu_limit = None if cpu in ("", "0") else float(cpu)
# the learner's kernel finds the kit's notebooks' Voila template and settings (as run.sh does)
c.Spawner.environment = {
    "JUPYTER_PATH": os.path.join(repo, "jupyter"),
    "JUPYTER_CONFIG_PATH": os.path.join(repo, "jupyter"),
    "PATH": bindir + os.pathsep + "/usr/bin:/bin",
    "PYTHONPATH": os.path.join(here, "server"),      # umkit_contents, readable by every learner
}
# a learner's own config files (~/.jupyter), user-installed extensions and Python's user
# site-packages are not loaded by their server: a learner cannot make it serve pages of theirs
# that way (their code can still replace the server process: see the README)
c.Spawner.disable_user_config = True
c.Spawner.environment["PYTHONNOUSERSITE"] = "1"
if ISOLATED:
    # the hub's kernel (server/umkit_kernel.py): ipykernel with its subprocess-output pipe on a
    # unix socket in the learner's runtime folder, not on a loopback TCP port (found first on
    # JUPYTER_PATH, it stands in for the python3 kernel)
    c.Spawner.environment["JUPYTER_PATH"] = (os.path.join(here, "server", "jupyter") + os.pathsep
                                             + c.Spawner.environment["JUPYTER_PATH"])
for name in ("UMKIT_BACKEND", "UMKIT_PROFILE", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
    if name in os.environ:       # a GPU host: the learners' kernels see what the hub sees
        c.Spawner.environment[name] = os.environ[name]

# --- services: the idle culler, and (optionally) the room's admin token ---------------------
services, roles = [], []
idle = int(env("UMKIT_HUB_IDLE", "3600") or 0)
if idle > 0:
    services.append({"name": "idle-culler",
                     "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                                 f"--timeout={idle}", "--cull-every=60"],
                     "environment": {"UMKIT_HUB_ID": hub_id}})
    roles.append({"name": "idle-culler", "services": ["idle-culler"],
                  "scopes": ["list:users", "read:users:activity", "read:servers",
                             "delete:servers"]})
service_token = secret("UMKIT_HUB_SERVICE_TOKEN")
if service_token:
    services.append({"name": "room", "api_token": service_token})
    roles.append({"name": "room", "services": ["room"],
                  "scopes": ["admin:users", "admin:servers", "access:servers", "list:users"]})
c.JupyterHub.services = services
c.JupyterHub.load_roles = roles
