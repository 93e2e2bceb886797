#!/bin/sh
# tests/mutants.sh - `make mutants` (not in CI; docs/HACKING.md, "Mutants"):
# plant each small bug of a list, one at a time, in a copy of the tree,
# run the suite there (make check, or the mutant's own TESTS), and print
# which bugs the suite catches (killed) and which it misses (survived).
#
#   sh tests/mutants.sh [LIST] [N,N-M,...]
#
# LIST defaults to tests/mutants.txt; the numbers pick mutants (1-based,
# in file order).  The copy is the working tree as it is (tracked and
# untracked files that git does not ignore), in a temporary directory
# removed at the end (MUTANTS_KEEP=1 keeps it), with shared/ linked
# beside it.  MUTANTS_DRY=1 only checks that each text is found once.
# A mutant's make check runs with its stdin from /dev/null.
#
# Exit status: 0 when every mutant was killed; 1 when one survived, did
# not build, or its text was not found exactly once in its file (a
# broken mutant: mend it); 2 when the unmutated copy fails make check
# (nothing to compare with).
#
# The list: stanzas separated by blank lines, `#` comment lines,
#   file: PATH            the file to mutate
#   find: TEXT            text that occurs exactly once in it
#   replace: TEXT         what it becomes
#   tests: NAME NAME      (optional) the TESTS to run; default all
#   what: ONE LINE        what the bug is
# In TEXT, \t is a tab, \n a newline, \s a space, \\ a backslash;
# leading and trailing blanks of a value are dropped (write \t or \s).
set -u
LIST=${1:-tests/mutants.txt}
PICK=${2:-}
TOP=$(pwd)
[ -f "$LIST" ] || { echo "mutants: no list $LIST" >&2; exit 2; }
[ -f Makefile ] || { echo "mutants: run from the repository's top" >&2; exit 2; }

# shared/ (the contracts the tests read), as tests/testutil.c finds it
SHARED=
for c in "${SB_SHARED:-}" "$TOP/../shared" \
         "$(cd "$(git rev-parse --git-common-dir 2>/dev/null || echo .)/.." 2>/dev/null && pwd)/../shared"; do
	if [ -n "$c" ] && [ -d "$c/spec" ]; then SHARED=$(cd "$c" && pwd); break; fi
done

TMP=$(mktemp -d /tmp/sbmutants.XXXXXX) || exit 2
cleanup() { [ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$TMP/tree" "$TMP/orig"
git ls-files -z --cached --others --exclude-standard |
	perl -0ne 'chomp; print "$_\0" if -f $_' |
	xargs -0 tar cf - | tar xf - -C "$TMP/tree" || exit 2
[ -n "$SHARED" ] && ln -s "$SHARED" "$TMP/shared"
echo "mutants: copy in $TMP/tree${SHARED:+, shared/ -> $SHARED}"

MK="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2"

# The list as one line per mutant: n<TAB>file<TAB>tests<TAB>what, and the
# find/replace texts (unescaped) in $TMP/N.find, $TMP/N.replace.
perl -e '
	my ($list, $dir) = @ARGV;
	open my $f, "<", $list or die "mutants: $list: $!\n";
	my (%m, $n, $ln) = ();
	my $un = sub { my $s = shift; $s =~ s/\\([tns\\])/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1 eq "s" ? " " : "\\"/ge; $s };
	my $flush = sub {
		return unless %m;
		for my $k (qw(file find replace what)) {
			die "mutants: $list:$m{line}: stanza without $k:\n" unless defined $m{$k};
		}
		$n++;
		open my $o, ">", "$dir/$n.find" or die; print $o $un->($m{find}); close $o;
		open $o, ">", "$dir/$n.replace" or die; print $o $un->($m{replace}); close $o;
		print join("\t", $n, $m{file}, $m{tests} // "-", $m{what}), "\n";
		%m = ();
	};
	while (<$f>) {
		$ln = $.;
		chomp;
		if (/^\s*$/) { $flush->(); next; }
		next if /^#/;
		if (/^(file|find|replace|tests|what):\s?(.*?)\s*$/) {
			$m{line} //= $ln;
			die "mutants: $list:$ln: $1 given twice\n" if defined $m{$1};
			$m{$1} = $2;
		} else {
			die "mutants: $list:$ln: not file:, find:, replace:, tests: or what:\n";
		}
	}
	$flush->();
' "$LIST" "$TMP" > "$TMP/index" || exit 2
TOTAL=$(wc -l < "$TMP/index")

picked() { # is mutant $1 in PICK?
	[ -z "$PICK" ] && return 0
	echo "$PICK" | tr ',' '\n' | while IFS=- read a b; do
		[ "$1" -ge "$a" ] && [ "$1" -le "${b:-$a}" ] && echo y
	done | grep -q y
}

cd "$TMP/tree" || exit 2
DRY=${MUTANTS_DRY:-0} # 1: only check that every text is found once
echo "mutants: the unmutated copy first (make check)"
if [ "$DRY" = 1 ]; then :; elif ! $MK check < /dev/null > "$TMP/base.log" 2>&1; then
	tail -20 "$TMP/base.log"
	echo "mutants: the unmutated copy fails make check (log above): nothing to compare" >&2
	exit 2
fi
[ "$DRY" = 1 ] || grep "^tests:" "$TMP/base.log"

# The test programs that failed, from a make check log.
failed_tests() {
	awk '/^== /{p=$2; sub(".*/", "", p)} /^\[  FAILED  \] [0-9]/ || /^\[  ERROR   \]/ {print p}' "$1" |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

killed=0; survived=0; stale=0
: > "$TMP/table"
while IFS="$(printf '\t')" read -r n file tests what; do
	picked "$n" || continue
	if [ ! -f "$file" ]; then
		printf '%s\t%s\t%s\t%s\t%s\n' "$n" "STALE" "$file" "no such file" "$what" >> "$TMP/table"
		stale=$((stale + 1)); continue
	fi
	cp "$file" "$TMP/orig/$n"
	cnt=$(perl -0777 -e '
		my ($file, $fi, $re) = @ARGV;
		local $/; open my $h, "<", $fi or die; my $find = <$h>;
		open $h, "<", $re or die; my $rep = <$h>;
		open $h, "<", $file or die; my $s = <$h>; close $h;
		my $c = () = $s =~ /\Q$find\E/g;
		if ($c == 1) { $s =~ s/\Q$find\E/$rep/; open $h, ">", $file or die; print $h $s; close $h; }
		print $c;' "$file" "$TMP/$n.find" "$TMP/$n.replace")
	if [ "$cnt" != 1 ]; then
		printf '%s\t%s\t%s\t%s\t%s\n' "$n" "STALE" "$file" "find: text occurs $cnt times" "$what" >> "$TMP/table"
		stale=$((stale + 1)); continue
	fi
	if [ "$DRY" = 1 ]; then
		printf '%s\t%s\t%s\t%s\t%s\n' "$n" "found" "$file" "-" "$what" >> "$TMP/table"
		cat "$TMP/orig/$n" > "$file"
		continue
	fi
	start=$(date +%s)
	printf 'mutants: %s/%s %s: %s ... ' "$n" "$TOTAL" "$file" "$what"
	[ "$tests" = - ] && tests=
	if [ -n "$tests" ]; then
		$MK check TESTS="$tests" < /dev/null > "$TMP/$n.log" 2>&1; rc=$?
	else
		$MK check < /dev/null > "$TMP/$n.log" 2>&1; rc=$?
	fi
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		res=SURVIVED; how="make check passed"; survived=$((survived + 1))
	elif ! grep -q '^tests:' "$TMP/$n.log"; then
		# caught, but by the compiler: a mutant that says nothing of
		# the tests (mend it so that it builds)
		res=NOBUILD; how=$(grep -m1 'error:' "$TMP/$n.log"); stale=$((stale + 1))
	else
		res=killed; how=$(failed_tests "$TMP/$n.log"); killed=$((killed + 1))
		[ -n "$how" ] || how="make check failed"
	fi
	echo "$res ($secs s)"
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$res" "$file" "$how${tests:+ [TESTS=$tests]}" "$what" >> "$TMP/table"
	# restore (a new mtime, so that make rebuilds what the mutant touched)
	cat "$TMP/orig/$n" > "$file"
done < "$TMP/index"

echo
echo "| # | result | file | caught by | bug |"
echo "|---|---|---|---|---|"
awk -F'\t' '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}' "$TMP/table"
echo
echo "mutants: $killed killed, $survived survived, $stale broken (not found once, or not building) (of $TOTAL in $LIST)"
[ $survived -eq 0 ] && [ $stale -eq 0 ]
