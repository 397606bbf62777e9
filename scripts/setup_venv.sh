# umkit: create .venv/ and install the kit into it -- sourced by run.sh and test.sh.
#   setup_venv EXTRAS [GPU]     e.g. setup_venv lab auto   |   setup_venv test,lab
# EXTRAS: pyproject extras to install (comma-separated). GPU "auto": add the GPU extras when this
# machine has an NVIDIA driver (cuda) or ROCm (rocm): the extra that matches its version (cu13,
# cu12, rocm7, rocm10; umkit_pick_extra says which and why). Override: UMKIT_GPU=cuda|rocm|none
# or an extra's name.
# pip runs only when pyproject.toml or the extras changed since the last install (a stamp file in
# .venv/), quietly, with its output in .venv/umkit-install.log. If the GPU extras fail to install,
# the kit is installed without them (the sim backend) and says so; it never aborts over them.

UMKIT_VENV=${UMKIT_VENV:-.venv}

umkit_say() { echo "umkit: $*" >&2; }

# which GPU stack this machine has: cuda, rocm or nothing
umkit_detect_gpu() {
  case "${UMKIT_GPU:-auto}" in
    cuda|rocm) echo "$UMKIT_GPU"; return ;;
    cu12|cu13) echo cuda; return ;;
    rocm7|rocm10) echo rocm; return ;;
    none|sim|off|no|0) return ;;
  esac
  if command -v nvidia-smi >/dev/null 2>&1 || [ -e /proc/driver/nvidia/version ]; then
    echo cuda
  elif [ -e /dev/kfd ] || [ -d /opt/rocm ]; then
    echo rocm
  fi
}

# the installed ROCm's version (7.1.0), or the NVIDIA driver's (580.105.08); empty if unknown
umkit_stack_version() {
  local v=""
  if [ "$1" = rocm ]; then
    v=$(head -c 64 "${UMKIT_ROCM_PATH:-/opt/rocm}/.info/version" 2>/dev/null) \
      || v=$(hipconfig --version 2>/dev/null | head -c 64) || true
  else
    v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1) \
      || true
    [ -n "$v" ] || v=$(grep -o 'Kernel Module[^0-9]*[0-9][0-9.]*' /proc/driver/nvidia/version \
                       2>/dev/null | grep -o '[0-9][0-9.]*$') || true
  fi
  echo "$v" | grep -o '^[0-9][0-9.]*' | head -n 1 || true
}

# which extra serves this stack: "EXTRA WHY" (EXTRA empty when none does). UMKIT_GPU=cu12|cu13|
# rocm7|rocm10 names one outright.
umkit_pick_extra() {
  local stack=$1 v major
  case "${UMKIT_GPU:-auto}" in cu12|cu13|rocm7|rocm10) echo "$UMKIT_GPU UMKIT_GPU=$UMKIT_GPU"; return ;; esac
  v=$(umkit_stack_version "$stack"); major=${v%%.*}
  if [ "$stack" = rocm ]; then
    case "$major" in
      7) echo "rocm7 ROCm $v" ;;
      10) echo "rocm10 ROCm $v (no CuPy wheel for ROCm 10 yet: the pool and CuPy arrays are unavailable)" ;;
      "") echo "rocm7 ROCm of unknown version (no /opt/rocm/.info/version, no hipconfig): assuming 7" ;;
      *) echo " ROCm $v: umkit's extras serve ROCm 7 and 10" ;;
    esac
  else
    if [ -z "$major" ]; then echo "cu13 NVIDIA driver of unknown version: assuming CUDA 13 (driver 580 or newer)"
    elif [ "$major" -ge 580 ]; then echo "cu13 NVIDIA driver $v (580 or newer runs CUDA 13)"
    elif [ "$major" -ge 525 ]; then echo "cu12 NVIDIA driver $v (525-579 runs CUDA 12, not 13)"
    else echo " NVIDIA driver $v: CUDA 12 needs 525 or newer"; fi
  fi
}

umkit_pip() {  # quiet pip into the venv; output appended to the install log
  "$UMKIT_VENV/bin/python" -m pip install -q --disable-pip-version-check "$@" \
    >>"$UMKIT_VENV/umkit-install.log" 2>&1
}

# the stamp: "<sha256 of pyproject.toml> <extras installed, comma-separated> <GPU extra: cu13|cu12|rocm7|rocm10|none|failed>"
umkit_stamp_ok() {  # umkit_stamp_ok SHA EXTRAS GPU: is what the stamp records enough?
  local stamp="$UMKIT_VENV/.umkit-install-stamp" sha have_extras have_gpu e
  [ -f "$stamp" ] || return 1
  read -r sha have_extras have_gpu <"$stamp" || return 1
  [ "$sha" = "$1" ] || return 1
  for e in ${2//,/ }; do
    case ",$have_extras," in *",$e,"*) ;; *) return 1 ;; esac
  done
  [ -z "$3" ] || [ "$have_gpu" = "$3" ] || [ "$have_gpu" = failed ] || return 1
  if [ "$have_gpu" = failed ] && [ -n "$3" ]; then
    umkit_say "the GPU extra ($3) did not install last time (see $UMKIT_VENV/umkit-install.log): the kit uses the sim backend; delete $stamp to try again"
  fi
  return 0
}

setup_venv() {
  local extras=$1 gpu_mode=${2:-} gpu="" sha result
  if [ "${UMKIT_SKIP_INSTALL:-0}" = 1 ]; then return 0; fi   # use $UMKIT_VENV as it is
  if [ "$gpu_mode" = auto ]; then gpu=$(umkit_detect_gpu); fi
  if [ ! -x "$UMKIT_VENV/bin/python" ]; then
    umkit_say "creating $UMKIT_VENV/ (Python: ${PYTHON:-python3})"
    "${PYTHON:-python3}" -m venv "$UMKIT_VENV" || { umkit_say "could not create $UMKIT_VENV/ (is python3-venv installed?)"; return 1; }
  fi
  sha=$(sha256sum pyproject.toml | cut -d' ' -f1)
  local pick="" extra="" why=""
  if [ -n "$gpu" ]; then      # the extra this machine's ROCm / driver version needs (the stamp keeps it)
    pick=$(umkit_pick_extra "$gpu"); extra=${pick%% *}; why=${pick#* }
  fi
  umkit_stamp_ok "$sha" "$extras" "${extra:-${gpu:+failed}}" && return 0
  local old_sha old_extras old_gpu e
  if [ -f "$UMKIT_VENV/.umkit-install-stamp" ]; then    # keep what an earlier run installed
    read -r old_sha old_extras old_gpu <"$UMKIT_VENV/.umkit-install-stamp" || true
    for e in ${old_extras//,/ }; do
      case ",$extras," in *",$e,"*) ;; *) extras="$extras,$e" ;; esac
    done
  fi
  : >"$UMKIT_VENV/umkit-install.log"
  umkit_say "installing umkit [$extras] into $UMKIT_VENV/ (the first time takes a few minutes; log: $UMKIT_VENV/umkit-install.log)"
  umkit_pip --upgrade pip || true
  result=${extra:-none}
  if [ -n "$gpu" ]; then
    if [ -z "$extra" ]; then
      umkit_say "found $why; installing without GPU extras: the kit will use the sim backend"
      result=failed
      gpu=""
    else
      umkit_say "found $why: installing the $extra extra"
      if ! umkit_pip -e ".[$extras,$extra]"; then
        umkit_say "the $extra extra failed to install (see $UMKIT_VENV/umkit-install.log); continuing without it: the kit will use the sim backend"
        result=failed
        gpu=""
      fi
    fi
  fi
  if [ -z "$gpu" ]; then
    if ! umkit_pip -e ".[$extras]"; then
      umkit_say "installing umkit failed; the end of $UMKIT_VENV/umkit-install.log:"
      tail -n 25 "$UMKIT_VENV/umkit-install.log" >&2
      return 1
    fi
  fi
  "$UMKIT_VENV/bin/python" -m ipykernel install --sys-prefix --name python3 >>"$UMKIT_VENV/umkit-install.log" 2>&1 || true
  echo "$sha $extras $result" >"$UMKIT_VENV/.umkit-install-stamp"
  umkit_say "installed"
}
