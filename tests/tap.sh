# Shared by the bash TAP tests (source it after cd to the repository
# root): a temporary directory removed on exit, and `ok STATUS TEXT`, which
# prints one TAP line for a check whose exit status is STATUS. End a test
# with `tap_end`: the plan line, and a failing exit if any check failed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
tap_end() {
    echo "1..$n"
    exit $((failed > 0))
}
