#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the kit.
#   bash run.sh          # JupyterLab on the notebooks (real GPU when usable, else the sim backend)
#   bash run.sh ecg      # headless: the memory ECG -> ecg.png + ecg.json
#   bash run.sh voila    # the workshop dashboard (strategy panel only)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[lab]'
.venv/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
case "${1:-lab}" in
  lab)   exec .venv/bin/jupyter lab notebooks/ ;;
  ecg)   shift; exec .venv/bin/umkit ecg --out ecg.png --json ecg.json "$@" ;;
  voila) exec .venv/bin/voila notebooks/dashboard.ipynb ;;
  *)     exec .venv/bin/umkit "$@" ;;
esac
