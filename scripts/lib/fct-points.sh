# shellcheck shell=bash
# Sourced by the scripts that run many `qjump sim fct` points at the points of a Fig. 9 run
# (sim-ns2-limiter, sim-seeds): the checks of the options they share and the runner of the points.

# fct_points_check JOBS FIG9 checks -j and -f, and sets qjump to the binary: it exits 2 with a
# message when either option is not usable, 1 when qjump or python3 is missing.
fct_points_check() {
	case "$1" in '' | *[!0-9]* | 0) echo "$0: -j needs a positive integer, got '$1'" >&2; exit 2 ;; esac
	[ -r "$2" ] || { echo "$0: cannot read $2: give a qjump sim run fig9 results.json with -f" >&2; exit 2; }
	qjump="${QJUMP:-$(dirname "$0")/../bin/qjump}"
	[ -x "$qjump" ] || { echo "$0: no qjump binary at $qjump (make build, or set QJUMP)" >&2; exit 1; }
	command -v python3 >/dev/null || { echo "$0: needs python3" >&2; exit 1; }
	python3 - "$2" <<'PY' || exit 2
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    sys.exit(f"{sys.argv[1]} is not JSON ({e}): give a qjump sim run fig9 results.json with -f")
if not isinstance(d, dict) or d.get("experiment") != "sim-fig9":
    sys.exit(f"{sys.argv[1]} is not a qjump sim run fig9 results.json")
PY
}

# fct_points_run OUT JOBS runs each line of its standard input, "FILE SCHEME WORKLOAD LOAD FLOWS
# SEED ARRIVALS" (ARRIVALS steady or drain: with or without --steady), as `qjump sim fct --json`
# into OUT/FILE.json, JOBS at a time. A point's JSON appears
# only when it is whole and one that exists is kept, so that a run stopped half-way is continued
# by the same command with the same OUT.
fct_points_run() {
	export qjump
	OUT="$1" xargs -P "$2" -L 1 bash -c '
		f="$OUT/$0" what="$1 $2 $3 seed $5 $6"
		arrivals=()
		[ "$6" = steady ] && arrivals=(--steady)
		[ -e "$f.json" ] && { echo "   $what: done before" >&2; exit 0; }
		"$qjump" sim fct --scheme "$1" --workload "$2" --load "$3" --flows "$4" --seed "$5" "${arrivals[@]}" --json \
			>"$f.json.part" 2>"$f.err" || { echo "$what failed: $(tail -1 "$f.err")" >&2; exit 255; }
		mv "$f.json.part" "$f.json" && rm -f "$f.err"
		echo "   $what done" >&2'
}
