"""JupyterHub for a workshop room on one machine: every learner gets their own Jupyter server with
umkit installed and their own workspace (outputs cleared), opening on 00_start_here.

Started by ``bash run.sh hub`` (which sets the variables below); by hand:
``jupyterhub -f deploy/jupyterhub/jupyterhub_config.py`` with at least UMKIT_HUB_PASSWORD set.

Settings (environment variables):
  UMKIT_HUB_PASSWORD   the room's shared password (8+ characters); learners pick any user name
  UMKIT_HUB_ADMIN      the presenter's admin user name (optional), with
  UMKIT_HUB_ADMIN_PASSWORD  its own password (32+ characters; JupyterHub's rule)
  UMKIT_HUB_IP         address to listen on (default 127.0.0.1; 0.0.0.0 serves the room's network)
  UMKIT_HUB_PORT       port (default 8000)
  UMKIT_HUB_STATE      the hub's folder: database, cookie secret, learners' homes (default .hub/)
  UMKIT_HUB_MEM        memory per learner, e.g. 2G (default 2G; 0 = no limit)
  UMKIT_HUB_CPU        CPU cores per learner, e.g. 1 (default 1; 0 = no limit)
  UMKIT_HUB_MAX_SERVERS  learner servers running at once (default 40)
  UMKIT_HUB_IDLE       seconds before an idle learner server is stopped (default 3600; 0 = never)
  UMKIT_HUB_PROXY      the configurable-http-proxy command (run.sh installs it with npm)
  UMKIT_HUB_INTERNAL_PORT, UMKIT_HUB_PROXY_API_PORT  the hub's and the proxy's loopback ports
                       (default: free ones picked at start)
  UMKIT_HUB_SERVICE_TOKEN  an API token for a "room" service with user/server admin rights
                       (the load test and the CI test use it; unset: no such service)
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)

c = get_config()  # noqa: F821  (JupyterHub's config loader provides it)


def env(name, default=""):
    return os.environ.get(name, default).strip()


state = os.path.abspath(env("UMKIT_HUB_STATE", os.path.join(repo, ".hub")))
os.makedirs(state, 0o700, exist_ok=True)
bindir = os.path.dirname(sys.executable)

c.JupyterHub.ip = env("UMKIT_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(env("UMKIT_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"

from umkit_hub import free_port  # noqa: E402  (this folder is on sys.path above)

# the hub's own port and the proxy's API port stay on loopback; free ones are picked at start so
# that two hubs (a rehearsal beside the room's) never collide on JupyterHub's fixed defaults
c.JupyterHub.hub_port = int(env("UMKIT_HUB_INTERNAL_PORT") or free_port())
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env('UMKIT_HUB_PROXY_API_PORT') or free_port())}"
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "proxy.pid")
if env("UMKIT_HUB_PROXY"):
    c.ConfigurableHTTPProxy.command = [env("UMKIT_HUB_PROXY")]
c.JupyterHub.cleanup_servers = True
# after sign-in a learner goes straight to their own server (started for them), which opens on
# 00_start_here; at most UMKIT_HUB_MAX_SERVERS run at once (one password holder cannot fill the
# machine with accounts), and they start a few at a time
c.JupyterHub.redirect_to_server = True
c.JupyterHub.active_server_limit = int(env("UMKIT_HUB_MAX_SERVERS", "40"))
c.JupyterHub.concurrent_spawn_limit = 20

# --- who may come in: one shared password for the room (JupyterHub's own authenticator) ------
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = env("UMKIT_HUB_PASSWORD")
c.Authenticator.allow_all = True
if env("UMKIT_HUB_ADMIN"):
    c.Authenticator.admin_users = {env("UMKIT_HUB_ADMIN")}
    c.SharedPasswordAuthenticator.admin_password = env("UMKIT_HUB_ADMIN_PASSWORD")
# a user name becomes a folder name: keep it to plain characters
c.Authenticator.username_pattern = r"^[a-z0-9][a-z0-9._-]{0,31}$"

# --- each learner's server ---------------------------------------------------------------
c.JupyterHub.spawner_class = "umkit_hub.UmkitSpawner"
c.UmkitSpawner.home_dir_template = os.path.join(state, "users", "{username}")
c.UmkitSpawner.notebooks_src = os.path.join(repo, "notebooks")
c.UmkitSpawner.umkit_python = sys.executable
c.UmkitSpawner.group_prefix = "h" + __import__("hashlib").sha256(state.encode()).hexdigest()[:8]
c.Spawner.cmd = [os.path.join(bindir, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab/tree/00_start_here.ipynb"
c.Spawner.args = ["--ServerApp.terminals_enabled=False"]
if os.geteuid() == 0:          # containers and cloud VMs: the servers run as the hub's user
    c.Spawner.args.append("--allow-root")
c.Spawner.start_timeout = 120
c.Spawner.interrupt_timeout = 5     # a stopping server: SIGINT, then SIGTERM, then SIGKILL
c.Spawner.term_timeout = 3
c.Spawner.http_timeout = 120
mem, cpu = env("UMKIT_HUB_MEM", "2G"), env("UMKIT_HUB_CPU", "1")
c.Spawner.mem_limit = None if mem in ("", "0") else mem
c.Spawner.cpu_limit = None if cpu in ("", "0") else float(cpu)
# the learner's kernel finds the kit's notebooks' Voila template and settings (as run.sh does)
c.Spawner.environment = {
    "JUPYTER_PATH": os.path.join(repo, "jupyter"),
    "JUPYTER_CONFIG_PATH": os.path.join(repo, "jupyter"),
    "PATH": bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
}
for name in ("UMKIT_BACKEND", "UMKIT_PROFILE", "CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
    if name in os.environ:       # a GPU host: the learners' kernels see what the hub sees
        c.Spawner.environment[name] = os.environ[name]

# --- services: the idle culler, and (optionally) the room's admin token ---------------------
services, roles = [], []
idle = int(env("UMKIT_HUB_IDLE", "3600") or 0)
if idle > 0:
    services.append({"name": "idle-culler",
                     "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                                 f"--timeout={idle}", "--cull-every=60"]})
    roles.append({"name": "idle-culler", "services": ["idle-culler"],
                  "scopes": ["list:users", "read:users:activity", "read:servers",
                             "delete:servers"]})
if env("UMKIT_HUB_SERVICE_TOKEN"):
    services.append({"name": "room", "api_token": env("UMKIT_HUB_SERVICE_TOKEN")})
    roles.append({"name": "room", "services": ["room"],
                  "scopes": ["admin:users", "admin:servers", "access:servers", "list:users"]})
c.JupyterHub.services = services
c.JupyterHub.load_roles = roles
