#!/bin/sh
# check-layers.sh - fail when an #include crosses the module layering
# (docs/HACKING.md, "Layers").
#
#   sh tests/check-layers.sh [-C DIR] "LAYERS" "DENY"
#
# LAYERS is the Makefile's list, top to bottom (link order): a library
# module may include its own headers and those of the modules to its
# right.  DENY lists exceptions, "from:to" pairs that the order would
# allow but the design does not (e.g. sim:cli).  The commands are the top
# layer, cmd/ (first in LAYERS): they may include any module, and no
# module may include them; a command left in a module (X/cmd/*.c) is
# reported.  bench/ and tests/ are on top too; the headers of tests/ and
# bench/ are for tests/ and bench/ only.  Only quoted includes of our own
# directories ("X/..." with X a module, tests or bench) are checked.
# Each violation is one line "file:line: A may not include B (...)";
# the exit status is 1 if there is any.
#
#   sh tests/check-layers.sh --self-test "LAYERS" "DENY"
# builds a temporary tree with allowed includes, two forbidden ones and a
# command left in a module, and checks that exactly those are reported.
set -u
dir=.
if [ "${1:-}" = "--self-test" ]; then
	shift
	layers=$1 deny=$2
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	set -- $layers
	bottom=$(eval echo "\${$#}") top=$1
	mkdir -p "$tmp/$bottom" "$tmp/$top/cmd" "$tmp/tests"
	printf '#include <stdio.h>\n#include "%s/x.h"\n' "$bottom" > "$tmp/$top/ok.c"
	printf '/* one */\n#include "%s/%s.h"\n' "$top" "$top" > "$tmp/$bottom/bad.c"
	printf '#include "tests/testutil.h"\n' > "$tmp/$top/bad2.c"
	printf '#include "%s/%s.h"\n' "$top" "$top" > "$tmp/$top/cmd/fine.c"
	printf '#include "tests/testutil.h"\n' > "$tmp/tests/fine.c"
	mkdir -p "$tmp/$bottom/cmd"
	printf 'int main(void) { return 0; }\n' > "$tmp/$bottom/cmd/old.c"
	out=$(sh "$0" -C "$tmp" "$layers" "$deny" 2>&1)
	st=$?
	want1="$bottom/bad.c:2: $bottom may not include $top/$top.h"
	want2="$top/bad2.c:1: $top may not include tests/testutil.h"
	want3="$bottom/cmd/old.c:1: a command lives in cmd/, the top layer, not in $bottom/cmd/"
	n=$(printf '%s\n' "$out" | grep -c 'may not include\|a command lives in')
	if [ $st -ne 1 ] || [ "$n" -ne 3 ] ||
	   ! printf '%s\n' "$out" | grep -qF "$want1" ||
	   ! printf '%s\n' "$out" | grep -qF "$want2" ||
	   ! printf '%s\n' "$out" | grep -qF "$want3"; then
		echo "check-layers self-test FAILED: got status $st and:"
		printf '%s\n' "$out"
		exit 1
	fi
	# an exception of DENY is reported too
	for pair in $deny; do
		from=${pair%%:*} to=${pair#*:}
		mkdir -p "$tmp/$from"
		printf '#include "%s/y.h"\n' "$to" > "$tmp/$from/deny.c"
		if sh "$0" -C "$tmp" "$layers" "$deny" 2>&1 | grep -qF "$from/deny.c:1: $from may not include $to/y.h"; then
			:
		else
			echo "check-layers self-test FAILED: exception $pair not reported"
			exit 1
		fi
		rm -f "$tmp/$from/deny.c"
	done
	echo "check-layers self-test: ok (a violation, a tests/ include, a command outside cmd/ and every exception reported)"
	exit 0
fi
if [ "${1:-}" = "-C" ]; then
	dir=$2
	shift 2
fi
layers=$1 deny=${2:-}
cd "$dir" || exit 1
find . \( -path ./build -o -path ./bin -o -path ./.git \) -prune -o \
     -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort |
awk -v layers="$layers" -v deny="$deny" '
function n_parts(f,   t) { return split(f, t, "/") }
BEGIN {
	n = split(layers, L, " ")
	for (i = 1; i <= n; i++) rank[L[i]] = i
	m = split(deny, D, " ")
	for (i = 1; i <= m; i++) denied[D[i]] = 1
	bad = 0; files = 0; incs = 0
}
{
	file = $0
	split(file, parts, "/")
	top = parts[1]
	if (top == "tests" || top == "bench") from = top
	else if (top in rank) from = top
	else from = "other"
	files++
	line = 0
	if (top != "cmd" && (top in rank) && parts[2] == "cmd" && n_parts(file) > 2) {
		printf "%s:1: a command lives in cmd/, the top layer, not in %s/cmd/\n", file, top
		bad++
	}
	while ((getline s < file) > 0) {
		line++
		if (s !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
		inc = s
		sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
		split(inc, ip, "/")
		to = ip[1]
		if (!(to in rank) && to != "tests" && to != "bench") continue
		if (index(inc, "/") == 0) continue
		incs++
		why = ""
		if (to == "tests" || to == "bench") {
			if (from != "tests" && from != "bench") why = "tests/ and bench/ headers are for tests/ and bench/"
		} else if (from == "cmd" || from == "tests" || from == "bench" || from == "other") {
			why = ""
		} else if (to != from && rank[to] < rank[from]) {
			why = to " is above " from " in LAYERS (" layers ")"
		} else if ((from ":" to) in denied) {
			why = "exception " from ":" to " in LAYERS_DENY"
		}
		if (why != "") {
			printf "%s:%d: %s may not include %s (%s)\n", file, line, from, inc, why
			bad++
		}
	}
	close(file)
}
END {
	if (bad) { printf "check-layers: %d violation%s\n", bad, bad == 1 ? "" : "s"; exit 1 }
	printf "check-layers: %d files, %d includes of our modules, layering ok\n", files, incs
}'
