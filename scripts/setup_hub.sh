# umkit: the JupyterHub's proxy -- sourced by run.sh (hub) and test.sh.
#   setup_proxy    installs configurable-http-proxy (npm) into .hub/proxy/ when missing;
#                  sets UMKIT_HUB_PROXY to it (one already set to a proxy is kept). Returns 1 (and says why) when npm is missing.
UMKIT_CHP_VERSION=${UMKIT_CHP_VERSION:-5.3.0}

setup_proxy() {
  local bin=.hub/proxy/node_modules/.bin/configurable-http-proxy
  if [ -n "${UMKIT_HUB_PROXY:-}" ] && [ -x "$UMKIT_HUB_PROXY" ]; then export UMKIT_HUB_PROXY; return 0; fi
  if [ ! -x "$bin" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "umkit: the hub needs configurable-http-proxy, installed with npm (Node.js), and npm is" \
           "missing: install Node.js (Debian: apt-get install npm)" >&2
      return 1
    fi
    mkdir -p .hub/proxy
    echo "umkit: installing configurable-http-proxy $UMKIT_CHP_VERSION into .hub/proxy/ (npm)" >&2
    if ! npm install --no-audit --no-fund --loglevel=error --prefix .hub/proxy \
         "configurable-http-proxy@$UMKIT_CHP_VERSION" >>.hub/proxy/install.log 2>&1; then
      echo "umkit: npm could not install configurable-http-proxy (see .hub/proxy/install.log)" >&2
      return 1
    fi
  fi
  UMKIT_HUB_PROXY="$PWD/$bin"
  export UMKIT_HUB_PROXY
}
