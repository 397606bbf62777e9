#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the whole test suite on the sim backend.
#   bash test.sh              # unit + contract + conformance + notebooks (nbval) + browser
#                             # (nbval collects notebooks/ recursively: the Chinese edition,
#                             # notebooks/zh/, is checked exactly like the English notebooks)
#   bash test.sh -k pool      # extra pytest arguments pass through
# Installs quietly into .venv/ (again only when pyproject.toml changes; log: .venv/umkit-install.log).
# As root with apt-get, the Debian packages some tests use are installed when missing (chromium,
# hipcc, npm: scripts/setup_test_packages.sh says which tests), without recommended packages and
# upgrading no installed package; HIP 5.2's libamdhip64.so is hidden while the tests run and put
# back when they end.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_venv.sh
setup_venv test,lab,site
. scripts/setup_test_packages.sh
umkit_test_packages
. scripts/setup_hub.sh
setup_proxy || echo "test.sh: no configurable-http-proxy: the hub test (tests/deploy) will be skipped"
umkit_hide_hip_runtime                  # undone by its exit trap, whatever way the tests end
export UMKIT_BACKEND=sim PYTHONHASHSEED=0
rc=0
"$UMKIT_VENV/bin/ruff" check --quiet . || { echo "test.sh: ruff found the problems above" >&2; rc=1; }
"$UMKIT_VENV/bin/python" -m pytest tests --nbval notebooks -p no:cacheprovider --durations=30 "$@" || rc=$?
exit "$rc"
