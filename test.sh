#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the whole test suite on the sim backend.
#   bash test.sh              # unit + contract + conformance + notebooks (nbval) + browser
#   bash test.sh -k pool      # extra pytest arguments pass through
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,lab]'
.venv/bin/python -m ipykernel install --sys-prefix --name python3 >/dev/null
# the browser test drives Debian's Chromium (no browser download); skipped with a reason if absent
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "test.sh: could not install chromium; the browser test will be skipped"
fi
export UMKIT_BACKEND=sim PYTHONHASHSEED=0
exec .venv/bin/python -m pytest tests --nbval notebooks -p no:cacheprovider "$@"
