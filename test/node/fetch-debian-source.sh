#!/usr/bin/env bash
# Prints a directory holding Node.js's own timer tests, unpacked from Debian's source package of
# Node.js, for `npm run test:node` where the running version's tarball cannot be downloaded from
# nodejs.org (this repository's CI reaches only the npm registry and Debian's mirror):
#
#     QTIMERS_NODE_SOURCE=$(test/node/fetch-debian-source.sh) npm run test:node
#
# usage: test/node/fetch-debian-source.sh [MAJOR]
#   MAJOR  the Node.js major version wanted (default: that of the `node` on PATH).  Debian has
#          one version per suite (bookworm 18, trixie 20, sid 22, experimental 24 when this was
#          written): the newest version of that major is taken, or, if Debian has none or the
#          mirror lacks its files, the newest other one it has.  Its patch version differs from
#          the running Node's as a rule, which the runner reports as a warning.
# The package is downloaded with apt-get (its index in a private directory: the system's apt
# state is not touched) from the Debian mirror this machine's apt sources name, its upstream
# tarball checked against the SHA-256 of the signed index, and unpacked once into $QTIMERS_NODE_TESTS_CACHE (default
# ~/.cache/qtimers-node-tests)/debian/VERSION; later calls print that directory at once.
# Progress and errors go to stderr; stdout is the directory only.  Exit status 2 on failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cache=${QTIMERS_NODE_TESTS_CACHE:-$HOME/.cache/qtimers-node-tests}/debian
major=${1:-$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)}
[[ $major =~ ^[0-9]+$ ]] || { echo "fetch-debian-source: no Node.js major version (give one, or put node on PATH)" >&2; exit 2; }

# unpacked before: nothing to download
if [ -d "$cache/major-$major/test/parallel" ]; then
  cd "$cache/major-$major" && pwd -P
  exit 0
fi

command -v apt-get >/dev/null || { echo "fetch-debian-source: needs apt-get (a Debian-based system)" >&2; exit 2; }
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" || exit 2
# the mirror this machine's binary packages come from, for its suites' source packages
mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
: > "$cache/apt/sources.list"
for suite in bookworm trixie sid experimental; do
  echo "deb-src [signed-by=$keyring] $mirror $suite main" >> "$cache/apt/sources.list"
done
apt=(-o "Dir::Etc::SourceList=$cache/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache")
log="$cache/apt/log"
echo "fetch-debian-source: reading Debian's source index from $mirror" >&2
if ! apt-get "${apt[@]}" update > "$log" 2>&1; then
  cat "$log" >&2
  echo "fetch-debian-source: apt-get update failed" >&2
  exit 2
fi

# every version of the nodejs source package, newest first; the newest of the wanted major wins
versions=$(apt-cache "${apt[@]}" showsrc nodejs 2>/dev/null | awk '/^Version:/ { print $2 }' | sort -rV | uniq)
[ -n "$versions" ] || { echo "fetch-debian-source: no nodejs source package in $mirror" >&2; exit 2; }
# the newest version of the wanted major first, then the others, newest first: a mirror may lack
# one's files (the one this was written on lacked experimental's), and another version's tests
# still test the timers
candidates=$( (echo "$versions" | grep "^$major\."; echo "$versions" | grep -v "^$major\.") )

# fetch VERSION: unpack its upstream tarball into $cache/UPSTREAM unless there already
fetch() {
  local version=$1 upstream sha256 tarball_name tarball dl
  upstream=${version%%+*}             # 20.19.2+dfsg-1+deb13u3 -> 20.19.2
  upstream=${upstream%%-*}
  dest="$cache/$upstream"
  [ -d "$dest/test/parallel" ] && return 0
  # the upstream tarball's name and SHA-256, from the signed index's record of this version
  read -r sha256 tarball_name < <(apt-cache "${apt[@]}" showsrc nodejs 2>/dev/null | awk -v v="$version" '
    /^Package:/ { record = 0 } /^Version:/ { record = ($2 == v) }
    record && /^Checksums-Sha256:/ { sums = 1; next } /^[^ ]/ { sums = 0 }
    record && sums && $3 ~ /\.orig\.tar\.(xz|gz)$/ { print $1, $3; exit }')
  [ -n "${tarball_name:-}" ] || { echo "fetch-debian-source: no upstream tarball listed for nodejs $version" >&2; return 1; }
  dl="$cache/download"
  rm -rf "$dl" && mkdir -p "$dl" || return 1
  echo "fetch-debian-source: downloading nodejs $version (about 25 MB)" >&2
  # apt-get may fail on a file the tests do not need (a mirror missing the .dsc): the checksum decides
  (cd "$dl" && apt-get "${apt[@]}" source --download-only "nodejs=$version") > "$log" 2>&1
  tarball="$dl/$tarball_name"
  if [ ! -f "$tarball" ] || ! echo "$sha256  $tarball" | sha256sum -c --status -; then
    grep '^E:' "$log" | head -3 >&2
    echo "fetch-debian-source: could not download $tarball_name with the SHA-256 Debian's index lists" >&2
    rm -rf "$dl"
    return 1
  fi
  node "$here/source.js" unpack "$tarball" "$dest" >&2 || return 1
  rm -rf "$dl"
}

dest=
for version in $candidates; do
  if fetch "$version"; then
    [[ $version == "$major".* ]] || echo "fetch-debian-source: no Node.js $major from Debian here; took $version" >&2
    break
  fi
  dest=
done
[ -n "$dest" ] || { echo "fetch-debian-source: no nodejs source package could be downloaded" >&2; exit 2; }
# remembered for this major only when it is this major's: a fallback is looked for again next time
[[ $(basename "$dest") == "$major".* ]] && ln -sfn "$(basename "$dest")" "$cache/major-$major"
rm -rf "$cache/apt"                   # the index (60 MB) is only needed to download
cd "$dest" && pwd -P
