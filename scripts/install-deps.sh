#!/usr/bin/env bash
# Installs what this project needs and the machine lacks: Debian packages
# (only the missing ones), the tree-sitter grammar sources `review` compiles
# (grammars/, every mode: the build needs them) and the npm packages of the
# test peers.
# Usage: scripts/install-deps.sh [build|test|bench|deb]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-test}

pkgs=(meson ninja-build gcc pkg-config libcurl4-openssl-dev libjansson-dev libssl-dev python3
      libtree-sitter-dev unicode-data nodejs npm)  # unicode-data: escape.c's table
case "$what" in
  test) pkgs+=(check libsubunit-dev valgrind clang libclang-rt-14-dev groff-base man-db curl openssl
               clang-tools clang-format bsdutils cmark-gfm python3-jsonschema zsh fish bash-completion) ;;
    # bsdutils: script(1), a terminal for test_follow; cmark-gfm: GitHub's Markdown, for test_markdown_gfm;
    # python3-jsonschema: validates review's SARIF against the schema @microsoft/jest-sarif ships;
    # zsh, fish, bash-completion: test_complete drives each shell's completion (bash is there
    # already; bash-completion is what a Debian user's interactive bash loads, and not in a base image)
  bench) pkgs+=(hyperfine time jq python3) ;;
  deb) pkgs+=(dpkg-dev debhelper fakeroot lintian check libsubunit-dev bash-completion zsh fish groff-base man-db
              cmark-gfm openssl) ;;
    # deb: scripts/build-deb.sh, which builds the package (debian/control's Build-Depends) and lints it
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere than Debian's package; only the command matters.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do
    [[ $p == nodejs || $p == npm ]] || filtered+=("$p")
  done
  missing=("${filtered[@]}")
fi
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) == 0 ]] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci of a folder whenever its lock file changed since the last one.
npm_ci() { # folder, npm ci options...
  local dir=$1 stamp=$1/node_modules/.lock-stamp
  shift
  if [[ ! -f $stamp ]] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error "$@")
    cp "$dir/package-lock.json" "$stamp"
  fi
}

# The grammars' C sources (src/parser.c, src/scanner.c), compiled by meson:
# no install script runs (their Node bindings are not wanted).
npm_ci grammars --ignore-scripts

if [[ $what != build && $what != deb ]]; then
  # The test peers (MCP SDK, server-everything, conformance suite, Node 22,
  # oidc-provider; marked, mermaid and jsdom for tests/sim/md-check.mjs):
  # reinstalled whenever the lock file changed.
  npm_ci tests/npm
fi
