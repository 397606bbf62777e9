#!/usr/bin/env bash
# umkit: set up everything on a fresh machine and run the whole test suite on the sim backend.
#   bash test.sh              # unit + contract + conformance + notebooks (nbval) + browser
#   bash test.sh -k pool      # extra pytest arguments pass through
# Installs quietly into .venv/ (again only when pyproject.toml changes; log: .venv/umkit-install.log).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_venv.sh
setup_venv test,lab
# Debian packages the tests use, installed when missing (root + apt-get), else skipped with a reason:
#   chromium  the browser tests drive it (no browser download)
#   hipcc     a real HIP compiler (HIP 5.2, LLVM 15): tests/teaching/test_hip_build.py compiles kernels/hip/*.hip
#             and kernels/*.cu for AMD gfx90a with it
#   npm       installs the hub's proxy, configurable-http-proxy, into .hub/proxy/ (tests/deploy)
APT_WANT=()
command -v chromium >/dev/null 2>&1 || APT_WANT+=(chromium)
command -v hipcc >/dev/null 2>&1 || APT_WANT+=(hipcc)
command -v npm >/dev/null 2>&1 || APT_WANT+=(npm)
if [ ${#APT_WANT[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq || true
    for pkg in "${APT_WANT[@]}"; do
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$pkg" >/dev/null \
        || echo "test.sh: could not install $pkg; the tests that need it will be skipped"
    done
    # hipcc pulls in HIP 5.2's runtime, whose unversioned libamdhip64.so hip-python (built for
    # ROCm 7) would dlopen: a mismatched runtime, and the contract tests answer for a machine
    # without ROCm.  Compiling (-c) never links, so divert that one name out of the way.
    lib=$(dpkg -L libamdhip64-dev 2>/dev/null | grep '/libamdhip64\.so$' || true)
    if [ -n "$lib" ] && [ -e "$lib" ] && [ ! -e /dev/kfd ]; then
      dpkg-divert --local --rename --divert "$lib.hidden-by-umkit" --add "$lib" >/dev/null \
        || echo "test.sh: could not divert $lib"
    fi
  else
    echo "test.sh: not root or no apt-get: cannot install ${APT_WANT[*]}; the tests that need" \
         "them (browser: chromium; HIP compile: hipcc) will be skipped"
  fi
fi
. scripts/setup_hub.sh
setup_proxy || echo "test.sh: no configurable-http-proxy: the hub test (tests/deploy) will be skipped"
export UMKIT_BACKEND=sim PYTHONHASHSEED=0
exec "$UMKIT_VENV/bin/python" -m pytest tests --nbval notebooks -p no:cacheprovider "$@"
