#!/usr/bin/env bash
# umkit: set everything up on this machine, then run the kit.
#   bash run.sh [COMMAND] [OPTIONS...]       OPTIONS pass through to the program COMMAND starts
#
#   bash run.sh                  JupyterLab on workspace/: your own copies of the notebooks, outputs
#                                cleared (made from notebooks/; copies you edited are never overwritten)
#   bash run.sh lab --no-browser --port 8888 --IdentityProvider.token=''   (options go to jupyter lab)
#   bash run.sh --lang zh        the Chinese edition (中文版): JupyterLab in Simplified Chinese (its zh-CN
#                                language pack) on workspace-zh/, made from notebooks/zh/; umkit prints
#                                Chinese there (UMKIT_LANG=zh)
#   bash run.sh voila [OPTIONS]  the workshop dashboard (notebooks/workshop/dashboard.ipynb) in Voila,
#                                (--lang zh: the Chinese one, notebooks/zh/workshop/dashboard.ipynb)
#                                offline (no CDN fetches)
#   bash run.sh ecg [OPTIONS]    the memory ECG headless -> artifacts/ecg.png + artifacts/ecg.json
#   bash run.sh hub [OPTIONS]    JupyterHub for a room: each learner signs in with the room's password
#                                and gets their own server and workspace (deploy/jupyterhub/README.md);
#                                as root each learner runs as a system account of their own; as an
#                                ordinary user learners are not isolated; --max-learners 50 caps accounts;
#                                --mem 2G --cpu 1 --idle 3600 per learner; other options go to
#                                jupyterhub (--ip 0.0.0.0 to serve the room's network, --port 8000)
#   bash run.sh site [--out DIR] the course as a static website in site/ (both editions, their stored
#                                outputs, docs/ and the API; offline, nothing executed): open
#                                site/index.html (installs the `site` extra: Sphinx, myst-nb)
#   bash run.sh doctor           the environment report (also: calibrate, workspace; see `umkit -h`)
#   bash run.sh help             this text
#
# The `umkit` command lives in the kit's venv: .venv/bin/umkit doctor, or `bash run.sh doctor`, or
# `source .venv/bin/activate` once per shell (JupyterLab's terminals, started by run.sh, have it).
# As root (containers, cloud VMs) JupyterLab gets --allow-root. On a machine with an NVIDIA driver
# (nvidia-smi or /proc/driver/nvidia) or ROCm (/dev/kfd or /opt/rocm) the GPU extras are installed
# too (UMKIT_GPU=cuda|rocm|none overrides); if they fail to install, the kit runs on the sim backend
# and says so. pip runs again only when pyproject.toml changes (log: .venv/umkit-install.log).
set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$SELF")"
. scripts/setup_venv.sh

usage() { sed -n '2,/^[^#]/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'; }   # the header comment

cmd=${1:-lab}
[ $# -gt 0 ] && shift
case "$cmd" in
  -h|--help|help) usage; exit 0 ;;
  -*) set -- "$cmd" "$@"; cmd=lab ;;            # `bash run.sh --port 9000`: options for lab
esac

UI_LANG=en WS=workspace LAB_LANG_OPT=()           # --lang zh: the Chinese edition (lab, voila)
if [ "$cmd" = lab ] || [ "$cmd" = voila ]; then
  REST=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --lang) [ $# -ge 2 ] || { echo "umkit: --lang needs a value: en or zh" >&2; exit 2; }
              UI_LANG=$2; shift 2 ;;
      --lang=*) UI_LANG=${1#--lang=}; shift ;;
      *) REST+=("$1"); shift ;;
    esac
  done
  set -- ${REST[@]+"${REST[@]}"}
  case "$UI_LANG" in en) ;; zh) WS=workspace-zh ;;
    *) echo "umkit: --lang $UI_LANG: use en or zh" >&2; exit 2 ;; esac
fi

EXTRAS=lab
[ "$cmd" = hub ] && EXTRAS=lab,hub
if [ "$cmd" = site ]; then                      # the course website: site_src/build.py
  setup_venv lab,site
  exec "$UMKIT_VENV/bin/python" site_src/build.py "$@"
fi
setup_venv "$EXTRAS" auto
V=$UMKIT_VENV/bin
case "$V" in /*) ;; *) V="$PWD/$V" ;; esac
export PATH="$V:$PATH"      # what run.sh starts (lab terminals, `!umkit doctor`) finds the command
ROOT_OPT=()
[ "$(id -u)" = 0 ] && ROOT_OPT=(--allow-root)   # JupyterLab refuses root without it
# the repository's jupyter/ folder: Voila's offline template and settings (voila.json)
export JUPYTER_PATH="$PWD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
export JUPYTER_CONFIG_PATH="$PWD/jupyter${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"

case "$cmd" in
  lab)
    if [ "$UI_LANG" = zh ]; then
      # JupyterLab's own menus in Chinese: its zh-CN language pack, and the locale set by the
      # settings overrides in i18n/zh/jupyterlab/ (nothing else lives in that settings folder)
      "$V/python" -m pip show -q jupyterlab-language-pack-zh-CN >/dev/null 2>&1 \
        || [ "${UMKIT_SKIP_INSTALL:-0}" = 1 ] || umkit_pip jupyterlab-language-pack-zh-CN \
        || umkit_say "could not install jupyterlab-language-pack-zh-CN: JupyterLab's menus stay English"
      export UMKIT_LANG=zh
      LAB_LANG_OPT=(--LabApp.app_settings_dir="$PWD/i18n/zh/jupyterlab")
    fi
    "$V/python" -m umkit.cli workspace --src notebooks --dest "$WS" --lang "$UI_LANG" --quiet
    echo "umkit: in another shell, the umkit command is $V/umkit (e.g. $V/umkit doctor)," \
         "or bash run.sh doctor, or source $V/activate first" >&2
    exec "$V/jupyter" lab "${ROOT_OPT[@]}" ${LAB_LANG_OPT[@]+"${LAB_LANG_OPT[@]}"} \
      --ServerApp.root_dir="$PWD/$WS" --ServerApp.default_url=/lab/tree/00_start_here.ipynb \
      --LabApp.default_url=/lab/tree/00_start_here.ipynb "$@" ;;   # the URL it prints opens it too
  voila)
    # Voila's standalone server has no root check (and no --allow-root option)
    if [ "$UI_LANG" = zh ]; then                  # the Chinese dashboard (notebooks/zh/)
      export UMKIT_LANG=zh
      exec "$V/voila" notebooks/zh/workshop/dashboard.ipynb "$@"
    fi
    exec "$V/voila" notebooks/workshop/dashboard.ipynb "$@" ;;
  hub)
    . scripts/setup_hub.sh
    setup_proxy || exit 1
    HUB_ARGS=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --mem|--cpu|--idle|--max-learners)
          [ $# -ge 2 ] || { echo "umkit hub: $1 needs a value (e.g. --mem 2G, --cpu 1, --idle 3600, --max-learners 50)" >&2; exit 2; }
          case "$1" in --mem) export UMKIT_HUB_MEM=$2 ;; --cpu) export UMKIT_HUB_CPU=$2 ;;
                       --idle) export UMKIT_HUB_IDLE=$2 ;;
                       --max-learners)
                         case "$2" in ''|*[!0-9]*) echo "umkit hub: --max-learners $2: give a whole number (0 = no limit)" >&2; exit 2 ;; esac
                         export UMKIT_HUB_MAX_LEARNERS=$2 ;; esac
          shift 2 ;;
        *) HUB_ARGS+=("$1"); shift ;;
      esac
    done
    STATE=${UMKIT_HUB_STATE:-$PWD/.hub}
    case "$STATE" in /*) ;; *) STATE="$PWD/$STATE" ;; esac
    umask 077                                   # whatever the hub writes is its own
    mkdir -p "$STATE/hub" && chmod 700 "$STATE/hub"     # the hub's private files
    for f in jupyterhub.pid hub/jupyterhub.pid; do
      if [ -s "$STATE/$f" ] && kill -0 "$(cat "$STATE/$f")" 2>/dev/null; then
        echo "umkit hub: a hub is already running from $STATE (pid $(cat "$STATE/$f")):" \
             "stop it first, or give this one its own folder with UMKIT_HUB_STATE=DIR" >&2
        exit 1
      fi
    done
    [ -s "$STATE/password" ] && [ ! -e "$STATE/hub/password" ] && mv "$STATE/password" "$STATE/hub/password"
    # secrets reach the hub in files of STATE/hub/ (0700), never in an environment
    if [ -n "${UMKIT_HUB_PASSWORD:-}" ]; then
      printf '%s\n' "$UMKIT_HUB_PASSWORD" >"$STATE/hub/password.env"
      pwfile="$STATE/hub/password.env"; where="from UMKIT_HUB_PASSWORD"
    else                                        # one password for the room, kept across restarts
      [ -s "$STATE/hub/password" ] || "$V/python" -c "import secrets; print(secrets.token_urlsafe(9))" >"$STATE/hub/password"
      pwfile="$STATE/hub/password"; where="kept in $STATE/hub/password; set UMKIT_HUB_PASSWORD to choose it"
    fi
    for s in ADMIN_PASSWORD SERVICE_TOKEN; do
      v="UMKIT_HUB_$s"
      if [ -n "${!v:-}" ]; then
        printf '%s\n' "${!v}" >"$STATE/hub/$s"; export "${v}_FILE=$STATE/hub/$s"
      fi
      unset "$v"
    done
    echo "umkit hub: learners sign in with a user name of their own and, the first time, the room's password, a space and a word of their own (4+ characters; that name needs the same word from then on): $(cat "$pwfile") ($where)"
    unset UMKIT_HUB_PASSWORD
    export UMKIT_HUB_PASSWORD_FILE="$pwfile" UMKIT_HUB_STATE="$STATE"
    echo "umkit hub: names are case-insensitive, and a name once taken opens only with its own word:" \
         "ask learners to pick distinct names and remember their word; at most ${UMKIT_HUB_MAX_LEARNERS:-50} learners (--max-learners); repeated wrong" \
         "passwords make a name or an address wait (an admin user, UMKIT_HUB_ADMIN, can stop servers at /hub/admin)"
    if [ "$(id -u)" = 0 ]; then
      echo "umkit hub: learners are isolated: each learner's server runs as a system account of its" \
           "own (made on first sign-in, named after the learner), with a private home under $STATE/users;" \
           "the hub's files and secrets are root's only (deploy/jupyterhub/README.md)"
    else
      echo "umkit hub: WARNING: learners are NOT isolated from each other. Not run as root, every" \
           "learner's server runs as $(id -un): any learner's code can read and change every other" \
           "learner's files, read the hub's database, cookie secret and the room's password, and" \
           "stop other learners' servers. What still holds: sign-in throttling, the learner cap, the" \
           "file browser staying inside each workspace, and stopping within seconds. Run it as root" \
           "(a system account per learner) to keep learners apart (deploy/jupyterhub/README.md)" >&2
    fi
    exec "$V/python" deploy/jupyterhub/run_hub.py ${HUB_ARGS[@]+"${HUB_ARGS[@]}"} ;;
  ecg)   # an earlier run's artifacts are kept: the new ones are ecg-2.png/.json, ... (--force replaces)
    if [ -e artifacts ] && [ ! -d artifacts ]; then
      echo "run.sh ecg: 'artifacts' here is a file, not a folder: the ECG is written to artifacts/ecg.png and" \
           "artifacts/ecg.json; move that file away, or run .venv/bin/umkit ecg --out FILE.png --json FILE.json" >&2
      exit 2
    fi
    mkdir -p artifacts || { echo "run.sh ecg: cannot make the folder artifacts/ here (see above)" >&2; exit 2; }
    keep=--numbered
    for a in "$@"; do [ "$a" = --force ] && keep=; done
    exec "$V/python" -m umkit.cli ecg $keep --out artifacts/ecg.png --json artifacts/ecg.json "$@" ;;
  doctor|calibrate|workspace|plan|port-check|measure)
    exec "$V/python" -m umkit.cli "$cmd" "$@" ;;
  *)
    echo "run.sh: unknown command '$cmd'. The commands: lab (default), voila, ecg, hub, doctor," \
         "calibrate, workspace, plan, port-check, measure, help (bash run.sh help)" >&2
    exit 2 ;;
esac
