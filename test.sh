#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the whole test suite on the sim backend.
#   bash test.sh              # unit + contract + conformance + notebooks (nbval) + browser
#   bash test.sh -k pool      # extra pytest arguments pass through
# Installs quietly into .venv/ (again only when pyproject.toml changes; log: .venv/umkit-install.log).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_venv.sh
setup_venv test,lab
# the browser tests drive Debian's Chromium (no browser download); skipped with a reason if absent
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
    || echo "test.sh: could not install chromium; the browser tests will be skipped"
fi
export UMKIT_BACKEND=sim PYTHONHASHSEED=0
exec "$UMKIT_VENV/bin/python" -m pytest tests --nbval notebooks -p no:cacheprovider "$@"
