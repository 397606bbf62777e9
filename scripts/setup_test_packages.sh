# umkit: the Debian packages the tests use -- sourced by test.sh.
#   umkit_test_packages       install the missing ones (root + apt-get), else say which tests skip
#   umkit_hide_hip_runtime    hide HIP 5.2's libamdhip64.so while the tests run; put back at exit
#
# The packages, each installed only when its command is missing:
#   chromium  the browser tests drive it (no browser download)
#   hipcc     a real HIP compiler (HIP 5.2, LLVM 15): tests/teaching/test_hip_build.py compiles
#             kernels/hip/*.hip and kernels/*.cu for AMD gfx90a with it
#   npm       installs the hub's proxy, configurable-http-proxy, into .hub/proxy/ (tests/deploy)
#   gettext   msgfmt: test.sh checks the translation catalogues (umkit/i18n/*.po) with
#             `msgfmt --check-format` (tests/runtime/test_i18n_po.py runs it too)
#   fonts-wqy-microhei  a CJK font, so that Chromium draws the Chinese edition's text
#             (tests/browser/test_zh_browser.py fails on missing-glyph boxes without one)
# Without recommended packages and upgrading nothing: each install is simulated first, and a
# package whose install would upgrade an installed package is skipped (its tests say why).

UMKIT_APT_OPTS=(-y --no-install-recommends --no-upgrade)

umkit_pkg_say() { echo "test.sh: $*" >&2; }

umkit_test_packages() {
  local want=() pkg plan upgrades
  command -v chromium >/dev/null 2>&1 || want+=(chromium)
  command -v hipcc >/dev/null 2>&1 || want+=(hipcc)
  command -v npm >/dev/null 2>&1 || want+=(npm)
  command -v msgfmt >/dev/null 2>&1 || want+=(gettext)
  [ -n "$(fc-list :lang=zh 2>/dev/null)" ] || want+=(fonts-wqy-microhei)
  [ ${#want[@]} -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    umkit_pkg_say "not root or no apt-get: cannot install ${want[*]}; the tests that need them" \
                  "(browser: chromium and a CJK font; HIP compile: hipcc; hub: npm; catalogue check: gettext's msgfmt) will be skipped"
    return 0
  fi
  apt-get update -qq >/dev/null 2>&1 || true
  for pkg in "${want[@]}"; do
    # "Inst NAME [OLD] (NEW ...)": an installed package would be upgraded
    plan=$(LANG=C apt-get install -s "${UMKIT_APT_OPTS[@]}" "$pkg" 2>/dev/null) || {
      umkit_pkg_say "apt-get cannot install $pkg here; the tests that need it will be skipped"
      continue
    }
    upgrades=$(printf '%s\n' "$plan" | sed -n 's/^Inst \([^ ]*\) \[.*/\1/p' | tr '\n' ' ')
    if [ -n "$upgrades" ]; then
      umkit_pkg_say "installing $pkg would upgrade ${upgrades% }: not installed, the tests" \
                    "that need it are skipped"
      continue
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -qq "${UMKIT_APT_OPTS[@]}" "$pkg" >/dev/null \
      || umkit_pkg_say "could not install $pkg; the tests that need it will be skipped"
  done
}

# hipcc brings HIP 5.2's runtime, whose unversioned libamdhip64.so hip-python (built for ROCm 7)
# would dlopen: a mismatched runtime, where the contract tests answer for a machine without ROCm.
# Compiling (-c) never links, so that one name is diverted away while the tests run, and put back
# when this shell exits (normally, on an error, or on Ctrl-C / SIGTERM).
UMKIT_HIDDEN_HIP=""

umkit_restore_hip_runtime() {
  [ -n "$UMKIT_HIDDEN_HIP" ] || return 0
  dpkg-divert --local --rename --divert "$UMKIT_HIDDEN_HIP.hidden-by-umkit" --remove \
    "$UMKIT_HIDDEN_HIP" >/dev/null 2>&1 || umkit_pkg_say "could not restore $UMKIT_HIDDEN_HIP" \
    "(dpkg-divert --rename --remove $UMKIT_HIDDEN_HIP puts it back)"
  UMKIT_HIDDEN_HIP=""
}

umkit_hide_hip_runtime() {
  local lib
  [ "$(id -u)" = 0 ] && command -v dpkg-divert >/dev/null 2>&1 || return 0
  [ -e "${UMKIT_KFD:-/dev/kfd}" ] && return 0                  # a real AMD GPU: keep its runtime
  lib=$(dpkg -L libamdhip64-dev 2>/dev/null | grep '/libamdhip64\.so$' || true)
  [ -n "$lib" ] || return 0
  if [ ! -e "$lib" ] && [ -e "$lib.hidden-by-umkit" ]; then       # left by an interrupted run
    UMKIT_HIDDEN_HIP=$lib
  elif [ -e "$lib" ]; then
    dpkg-divert --local --rename --divert "$lib.hidden-by-umkit" --add "$lib" >/dev/null 2>&1 \
      || { umkit_pkg_say "could not divert $lib"; return 0; }
    UMKIT_HIDDEN_HIP=$lib
  else
    return 0
  fi
  trap 'umkit_restore_hip_runtime' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
