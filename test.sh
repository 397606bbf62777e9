#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the test suite on the sim backend.
#   bash test.sh              # the fast lane, for a developer's inner loop: unit, contract,
#                             # conformance and the English notebooks (nbval); no browser, hub,
#                             # soak, packaging or `slow` tests, no Chinese-edition nbval
#   bash test.sh --all        # the full lane (what CI runs): everything above, plus the browser,
#                             # hub, soak, packaging and slow tests and nbval of notebooks/zh/
#   bash test.sh -k pool      # extra pytest arguments pass through (after --all, if given)
# Both lanes print the 30 slowest tests (--durations=30) and the lane's wall time. Tests run in
# parallel (pytest-xdist, --dist loadfile: a file's tests, and a notebook's cells, stay together
# and in order), one worker per CPU core in the fast lane and one more in the full lane, the
# files longest first (tests/seconds.json, read by conftest.py); UMKIT_TEST_WORKERS=N sets the
# workers (0: none).
# Installs quietly into .venv/ (again only when pyproject.toml changes; log: .venv/umkit-install.log).
# As root with apt-get, the Debian packages some tests use are installed when missing (chromium, gettext,
# hipcc, npm: scripts/setup_test_packages.sh says which tests), without recommended packages and
# upgrading no installed package; HIP 5.2's libamdhip64.so is hidden while the tests run and put
# back when they end.
set -euo pipefail
cd "$(dirname "$0")"
lane=fast
if [ "${1:-}" = "--all" ]; then lane=full; shift; fi
. scripts/setup_venv.sh
setup_venv test,lab,site
. scripts/setup_test_packages.sh
umkit_test_packages
. scripts/setup_hub.sh
if [ "$lane" = full ]; then
  setup_proxy || echo "test.sh: no configurable-http-proxy: the hub test (tests/deploy) will be skipped"
fi
umkit_hide_hip_runtime                  # undone by its exit trap, whatever way the tests end
export UMKIT_BACKEND=sim PYTHONHASHSEED=0
rc=0
"$UMKIT_VENV/bin/ruff" check --quiet . || { echo "test.sh: ruff found the problems above" >&2; rc=1; }
if command -v msgfmt >/dev/null 2>&1; then     # the translation catalogues, as gettext reads them
  for po in umkit/i18n/*.po i18n/*/*.po; do
    msgfmt --check-format -o /dev/null "$po" || { echo "test.sh: msgfmt --check-format: $po" >&2; rc=1; }
  done
else
  echo "test.sh: no msgfmt (gettext): the catalogues' format check is left to tests/runtime/test_i18n_po.py" >&2
fi
workers=()
if "$UMKIT_VENV/bin/python" -c "import xdist" 2>/dev/null; then
  # the fast lane is CPU-bound: a worker per core. The full lane waits much of its time on
  # servers, browsers and pip: a worker more than the cores keeps them busy meanwhile
  # (the cores this process may run on, as nproc counts them)
  n=$("$UMKIT_VENV/bin/python" -c "import os; print(len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1)")
  if [ "$lane" = full ]; then n=$(( n + 1 )); fi
  workers=(-n "${UMKIT_TEST_WORKERS:-$n}" --dist loadfile --no-loadscope-reorder)
fi
t0=$(date +%s)
if [ "$lane" = full ]; then
  "$UMKIT_VENV/bin/python" -m pytest tests --nbval notebooks -p no:cacheprovider --durations=30 ${workers[@]+"${workers[@]}"} "$@" || rc=$?
else
  # English notebooks only (the Chinese edition runs the same code, its shown strings and comments
  # translated: the full lane runs it)
  "$UMKIT_VENV/bin/python" -m pytest tests notebooks/[0-9]*.ipynb notebooks/dashboard.ipynb notebooks/workshop \
    --nbval -p no:cacheprovider --durations=30 ${workers[@]+"${workers[@]}"} \
    --ignore=tests/browser --ignore=tests/deploy --ignore=tests/soak --ignore=tests/packaging \
    -m "not slow and not browser" "$@" || rc=$?
fi
echo "test.sh: $lane lane finished in $(( $(date +%s) - t0 )) s (rc=$rc)$([ "$lane" = fast ] && echo '; bash test.sh --all runs everything')"
exit "$rc"
