#!/bin/sh
# tests/stress_load.sh [N] [make arguments...]: runs 'make check' N times in
# a row (default 10) while two CPU-bound processes compete for the cores,
# the way a loaded CI machine or a busy laptop runs the suite.  Stops at
# the first failing run and shows its failures; prints each run's summary
# line and time, and the total.  Example: tests/stress_load.sh 2 SANITIZE=1
set -u
n=${1:-10}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 2
mkdir -p tests/out
hogs=""
stop_hogs() {
	[ -n "$hogs" ] && kill $hogs 2>/dev/null
	hogs=""
}
trap 'stop_hogs' EXIT
trap 'stop_hogs; exit 130' INT TERM HUP
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
start=$(date +%s)
i=1
while [ "$i" -le "$n" ]; do
	t0=$(date +%s)
	log=tests/out/stress-load-$i.log
	if make --no-print-directory check "$@" >"$log" 2>&1; then
		echo "run $i/$n: $(tail -n 1 "$log") ($(($(date +%s) - t0)) s)"
	else
		echo "run $i/$n FAILED ($(($(date +%s) - t0)) s): $(tail -n 1 "$log")"
		grep -A 12 '^not ok' "$log" | head -n 80
		echo "full log: $log"
		exit 1
	fi
	i=$((i + 1))
done
echo "$n runs of make check passed under load in $(($(date +%s) - start)) s"
