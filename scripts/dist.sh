#!/usr/bin/env bash
# ./sluice dist: the distribution tarball, to install Sluice anywhere with a Java 17+ runtime.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF_USAGE'
Usage: ./sluice dist [--out DIR] [--jar FILE]

Builds sluice-VERSION.tar.gz in DIR (default: target/dist/ of the checkout) and prints its path.
It unpacks into sluice-VERSION/ with:
  bin/sluice                 the launcher (POSIX sh; needs only java 17+): run, admin commands, --version
  lib/sluice.jar             the proxy and everything it needs, in one jar
  conf/sluice.yaml           a commented configuration to edit
  systemd/sluice.service     a systemd unit (ExecReload sends SIGHUP; stop drains sessions)

  --jar FILE   package this runnable jar instead of building sluice-server/target/sluice.jar
EOF_USAGE
}

DIST_STAGE=""

main() {
  local out="$SLUICE_ROOT/target/dist" jar=""
  while (($# > 0)); do
    case "$1" in
      --out) out="${2:?--out needs a directory}"; shift 2 ;;
      --jar) jar="${2:?--jar needs a file}"; shift 2 ;;
      -h | --help) usage; return 0 ;;
      *) usage >&2; die "unknown argument '$1'" ;;
    esac
  done
  if [[ -z "$jar" ]]; then
    build_if_needed
    jar="$SLUICE_JAR"
  fi
  [[ -f "$jar" ]] || die "no runnable jar at $jar"
  require_bin java >/dev/null

  # The version the jar itself reports ("Sluice 0.1.0"), so the name and --version agree.
  local version
  version="$(java -jar "$jar" --version | awk 'NR == 1 { print $NF }')"
  [[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || die "cannot read the version from $jar (got '$version')"

  local name="sluice-$version"
  DIST_STAGE="$(mktemp -d -t sluice-dist.XXXXXX)"
  trap 'rm -rf "$DIST_STAGE"' EXIT
  local stage="$DIST_STAGE" root="$DIST_STAGE/$name"
  mkdir -p "$root/bin" "$root/lib" "$root/conf" "$root/systemd"
  install -m 0755 "$SLUICE_ROOT/packaging/bin/sluice" "$root/bin/sluice"
  install -m 0644 "$jar" "$root/lib/sluice.jar"
  install -m 0644 "$SLUICE_ROOT/packaging/conf/sluice.yaml" "$root/conf/sluice.yaml"
  install -m 0644 "$SLUICE_ROOT/packaging/systemd/sluice.service" "$root/systemd/sluice.service"

  mkdir -p "$out"
  local tarball
  tarball="$(cd "$out" && pwd -P)/$name.tar.gz"
  # Owner root and names sorted: the archive does not carry who built it, and lists the same way each time.
  tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -czf "$tarball.tmp" "$name"
  mv -f "$tarball.tmp" "$tarball"
  info "Built $tarball"
  printf '%s\n' "$tarball"
}

main "$@"
