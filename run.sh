#!/usr/bin/env bash
# umkit: set everything up on this machine, then run the kit.
#   bash run.sh [COMMAND] [OPTIONS...]       OPTIONS pass through to the program COMMAND starts
#
#   bash run.sh                  JupyterLab on workspace/: your own copies of the notebooks, outputs
#                                cleared (made from notebooks/; copies you edited are never overwritten)
#   bash run.sh lab --no-browser --port 8888 --ServerApp.token=''   (options go to jupyter lab)
#   bash run.sh voila [OPTIONS]  the workshop dashboard (notebooks/workshop/dashboard.ipynb) in Voila,
#                                offline (no CDN fetches)
#   bash run.sh ecg [OPTIONS]    the memory ECG headless -> artifacts/ecg.png + artifacts/ecg.json
#   bash run.sh doctor           the environment report (also: calibrate, workspace; see `umkit -h`)
#   bash run.sh help             this text
#
# As root (containers, cloud VMs) JupyterLab gets --allow-root. On a machine with an NVIDIA driver
# (nvidia-smi or /proc/driver/nvidia) or ROCm (/dev/kfd or /opt/rocm) the GPU extras are installed
# too (UMKIT_GPU=cuda|rocm|none overrides); if they fail to install, the kit runs on the sim backend
# and says so. pip runs again only when pyproject.toml changes (log: .venv/umkit-install.log).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_venv.sh

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

cmd=${1:-lab}
[ $# -gt 0 ] && shift
case "$cmd" in
  -h|--help|help) usage; exit 0 ;;
  -*) set -- "$cmd" "$@"; cmd=lab ;;            # `bash run.sh --port 9000`: options for lab
esac

setup_venv lab auto
V=$UMKIT_VENV/bin
ROOT_OPT=()
[ "$(id -u)" = 0 ] && ROOT_OPT=(--allow-root)   # JupyterLab refuses root without it
# the repository's jupyter/ folder: Voila's offline template and settings (voila.json)
export JUPYTER_PATH="$PWD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
export JUPYTER_CONFIG_PATH="$PWD/jupyter${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"

case "$cmd" in
  lab)
    "$V/python" -m umkit.cli workspace --src notebooks --dest workspace --quiet
    exec "$V/jupyter" lab "${ROOT_OPT[@]}" --ServerApp.root_dir="$PWD/workspace" \
      --ServerApp.default_url=/lab/tree/00_start_here.ipynb "$@" ;;
  voila)
    # Voila's standalone server has no root check (and no --allow-root option)
    exec "$V/voila" notebooks/workshop/dashboard.ipynb "$@" ;;
  ecg)
    mkdir -p artifacts
    exec "$V/python" -m umkit.cli ecg --out artifacts/ecg.png --json artifacts/ecg.json "$@" ;;
  *)
    exec "$V/python" -m umkit.cli "$cmd" "$@" ;;
esac
