#!/usr/bin/env bash
# Runs integration test classes, or the whole suite, N times and tallies the failures by test.
# A failure that comes and goes is a defect to find, not noise: this is how it is found.
#
#   scripts/repeat-tests.sh [-n N] [--port P] [--out DIR] CLASS_PATTERN
#       N runs of `mvn verify` in sluice-it with -Dtest=CLASS_PATTERN (surefire's syntax:
#       'ReplicaFailureTest', 'dev/sluice/it/faults/**', 'PoolTimeoutsTest,SessionPoolTest'),
#       each in a new JVM with a newly started sandbox, in this checkout. Every module comes from
#       this checkout's reactor (-am), never from ~/.m2, where another checkout may have put its own.
#   scripts/repeat-tests.sh [-n N] [--port P] [--out DIR] --suite
#       N runs of `./sluice test` (everything, as CI runs it), each in a fresh clone of HEAD.
#
# Every run's surefire reports and Maven log are kept under DIR/run-K (default:
# target/repeat/<timestamp>); the tally lists each test that failed with the runs it failed in,
# and the script exits 1 when any run failed.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly DEFAULT_RUNS=5

usage() {
  sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

runs=$DEFAULT_RUNS
port=""
out=""
pattern=""
suite=0
while (($# > 0)); do
  case "$1" in
    -n) runs="${2:?-n needs a number}"; shift 2 ;;
    --port) port="${2:?--port needs a port}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --suite) suite=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; die "unknown option '$1'" ;;
    *) pattern="$1"; shift ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "-n takes a positive number, not '$runs'"
((suite == 1)) || [[ -n "$pattern" ]] || { usage >&2; die "name a test class pattern, or --suite"; }
out="${out:-$SLUICE_ROOT/target/repeat/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"

maven_port_args=()
[[ -z "$port" ]] || maven_port_args=("-Dsluice.sandbox.port=$port")

# run_classes K: one run of the classes in this checkout; its reports go to $out/run-K.
run_classes() {
  local k="$1" dir="$out/run-$1"
  mkdir -p "$dir"
  rm -rf "$SLUICE_ROOT/sluice-it/target/surefire-reports"
  local rc=0
  (cd "$SLUICE_ROOT" && mvn -B -pl sluice-it -am verify "-Dtest=$pattern" -Dsurefire.failIfNoSpecifiedTests=false \
    "${maven_port_args[@]}") >"$dir/maven.log" 2>&1 || rc=$?
  cp -r "$SLUICE_ROOT/sluice-it/target/surefire-reports" "$dir/" 2>/dev/null || true
  if ! compgen -G "$dir/surefire-reports/TEST-*.xml" >/dev/null; then
    warn "run $k ran no test: does '$pattern' name a class (surefire's -Dtest syntax)?"
    return 1
  fi
  return "$rc"
}

# run_suite K: one run of ./sluice test in a fresh clone of HEAD; its reports go to $out/run-K.
run_suite() {
  local k="$1" dir="$out/run-$1" clone
  mkdir -p "$dir"
  clone="$(mktemp -d "${TMPDIR:-/tmp}/sluice-repeat-XXXXXX")"
  git -C "$SLUICE_ROOT" clone -q "$SLUICE_ROOT" "$clone/sluice"
  git -C "$clone/sluice" checkout -q "$(git -C "$SLUICE_ROOT" rev-parse HEAD)"
  local rc=0
  (cd "$clone/sluice" && ./sluice test "${maven_port_args[@]}") >"$dir/maven.log" 2>&1 || rc=$?
  local module
  for module in "$clone"/sluice/*/target/surefire-reports; do
    [[ -d "$module" ]] || continue
    mkdir -p "$dir/$(basename "$(dirname "$(dirname "$module")")")"
    cp -r "$module" "$dir/$(basename "$(dirname "$(dirname "$module")")")/"
  done
  # The clone's sandbox is stopped by the test JVM; its data is not worth keeping.
  rm -rf "$clone"
  return "$rc"
}

# failed_tests DIR: "Class.method" of every test case with a failure or an error in DIR's reports.
failed_tests() {
  local report
  find "$1" -name 'TEST-*.xml' -print0 | while IFS= read -r -d '' report; do
    awk '
      /<testcase / {
        match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
        match($0, /classname="[^"]*"/); cls = substr($0, RSTART + 11, RLENGTH - 12)
        open = 1
      }
      open && /<(failure|error)[ >]/ { print cls "." name; open = 0 }
      /<\/testcase>/ { open = 0 }
    ' "$report"
  done
}

declare -A failures=()
failed_runs=0
for ((k = 1; k <= runs; k++)); do
  started=$SECONDS
  if ((suite == 1)); then
    run_suite "$k" && status=passed || status=failed
  else
    run_classes "$k" && status=passed || status=failed
  fi
  [[ "$status" == passed ]] || failed_runs=$((failed_runs + 1))
  while IFS= read -r test; do
    [[ -n "$test" ]] || continue
    failures["$test"]="${failures["$test"]:-}${failures["$test"]:+,}$k"
  done < <(failed_tests "$out/run-$k")
  info "run $k/$runs $status in $((SECONDS - started)) s (reports: $out/run-$k)"
done

printf '\n%d of %d runs failed (%s)\n' "$failed_runs" "$runs" "$out"
if ((${#failures[@]} > 0)); then
  printf '%-100s %s\n' "test" "failed in runs"
  for test in "${!failures[@]}"; do
    printf '%-100s %s\n' "$test" "${failures[$test]}"
  done | sort
fi
((failed_runs == 0))
