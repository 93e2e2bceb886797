#!/bin/sh
# checklists.sh - follow docs/HACKING.md's checklists on a copy of the tree:
# add a throwaway algorithm, policy, operation and command touching only
# the files each list names, build, and check that each works where the
# list says it appears.  Exit 0 when all four do; the copy is removed.
#
#   sh tests/checklists.sh [TMPDIR]
#
# Not part of `make check` (a full build of the copy: about a minute on
# two cores).  Run it after changing a checklist or the files it names.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/checklists.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
say() { printf 'checklists: %s\n' "$*"; }
bad() { say "FAILED: $*"; fail=1; }

# The tree as committed plus the working changes (no build outputs).
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$work"
cd "$work"

# --- An algorithm: alloc/alg_throwaway.c and one ALLOC_TABLE line ----------
cat > alloc/alg_throwaway.c <<'EOF'
/* alg_throwaway.c - tests/checklists.sh's algorithm: binpacking's floor only. */
#include "alloc/allocint.h"

static int run(struct alloc_ctx *c)
{
	(void)c;
	return 0;
}

const struct alloc_algorithm alloc_alg_throwaway = {
	.name = "throwaway",
	.summary = "tests/checklists.sh: binpacking's floor only",
	.run = run,
	.search = 0,
	.baseline = 0,
};
EOF
sed -i 's/^\tX(auto)$/\tX(auto)        \\\n\tX(throwaway)/' alloc/allocint.h

# --- A policy: fifo2, a copy of fifo's class ----------------------------------
sed -i 's/enum sim_policy { SIM_PS = 0, SIM_FIFO, SIM_RR, SIM_NPOLICIES };/enum sim_policy { SIM_PS = 0, SIM_FIFO, SIM_RR, SIM_FIFO2, SIM_NPOLICIES };/' sim/sim.h
sed -i 's/#define SIM_POLICY_SYNTAX "ps, fifo, rr:Q with Q >= 1"/#define SIM_POLICY_SYNTAX "ps, fifo, rr:Q with Q >= 1, fifo2"/' sim/sim.h
sed -e 's/sim_class_fifo\b/sim_class_fifo2/' -e 's/\.name = "fifo"/.name = "fifo2"/' \
	sim/fifo.c > sim/fifo2.c
# fifo2.c's static functions are fifo.c's: only the class is new
sed -i 's/extern const struct sim_class sim_class_ps, sim_class_fifo, sim_class_rr;/extern const struct sim_class sim_class_ps, sim_class_fifo, sim_class_rr, sim_class_fifo2;/' sim/simint.h
sed -i 's/^\t\[SIM_RR\] = &sim_class_rr,$/\t[SIM_RR] = \&sim_class_rr,\n\t[SIM_FIFO2] = \&sim_class_fifo2,/' sim/run.c

# --- An operation: post2, a copy of post (same operand, role, effect) ------------
# Mechanically: its enum value (trace.h), its row (ops.c), and in every
# other file the operation checklist names, post2 wherever post is named
# ("case TRACE_POST:" gains "case TRACE_POST2:", "X == TRACE_POST" becomes
# "(X == TRACE_POST || X == TRACE_POST2)").  A trace with every post
# written post2 must then behave as the trace itself (with latency too:
# this found sim/program.c, which the list lacked).  Not followed here
# (no mechanical copy checks them): the recorder's wrapper (post2 is never
# recorded), the tests' hand rows and the docs.
sed -i 's|^\tTRACE_SLEEP,\(.*\)$|\tTRACE_SLEEP,\1\n\tTRACE_POST2,      /* tests/checklists.sh: a copy of post            */|' trace/trace.h
awk '
	/^\t\[TRACE_POST\] = \{$/ { grab = 1 }
	grab { row = row $0 "\n" }
	grab && /^\t\},$/ { grab = 0 }
	/^const struct trace_kindinfo/ { done = 1 }
	!done && /^\};$/ && row != "" {
		sub(/\[TRACE_POST\]/, "[TRACE_POST2]", row)
		sub(/"post"/, "\"post2\"", row)
		printf "%s", row
		row = ""
	}
	{ print }
' trace/ops.c > trace/ops.c.new && mv trace/ops.c.new trace/ops.c
# The operation checklist's files (docs/HACKING.md, "A trace operation",
# items 3 to 8) that name operations in code.
OPFILES="trace/validate.c sim/direct.h sim/pairing.h sim/models.c sim/simint.h
	sim/program.c viz/sched.c gen/serial.c bound/lower.c record/spool.c
	tests/refsim.c"
for f in $OPFILES; do
	sed -i -E -e 's/^([ \t]*)case TRACE_POST:/\1case TRACE_POST2:\n&/' \
		-e 's/([A-Za-z_][][A-Za-z0-9_.>-]*) == TRACE_POST\b/(\1 == TRACE_POST || \1 == TRACE_POST2)/g' "$f"
done
grep -q TRACE_POST2 trace/ops.c || bad "the operation's row was not added to trace/ops.c"

# --- A command: cmd/throwaway.c ------------------------------------------------
cat > cmd/throwaway.c <<'EOF'
/* throwaway - tests/checklists.sh's command: the machine as parsed. */
#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cmd/common.h"
#include "sim/sim.h"
#include "trace/trace.h"

static struct args {
	struct cmd_machine M;
	const char *path;
} A;

static struct cli_opt opts[] = {
	CMD_MACHINE_OPTS(&A.M, CLI_M_BIT(CPUS) | CLI_M_BIT(POLICY) | CLI_M_BIT(LATENCY)),
	{CLI_END}};

static const struct cli_cmd cmd = {
	.name = "throwaway",
	.usage = "[options] TRACE",
	.about = "Print the machine as parsed (tests/checklists.sh).",
	.opts = opts,
};

int main(int argc, char **argv)
{
	cmd_machine_init(&A.M, NULL);
	int nops, rc = cli_parse(&cmd, argc, argv, &nops);
	if (rc != CLI_CONTINUE)
		return rc;
	if (nops != 1)
		return cli_usage(&cmd, "one trace");
	char why[600];
	struct trace *tr = NULL;
	if (cli_trace_load(argv[1], &tr, why, sizeof why) != CLI_OK)
		return cli_errorf(CLI_EINPUT, "%s", why);
	struct sim_params par = A.M.par;
	if ((rc = cmd_machine_load(&A.M, &cmd, tr, &par)) == CLI_OK) {
		char pb[32];
		printf("cpus %u policy %s latency %" PRIu64 "\n", par.cpus,
		       sim_policy_format(&par, pb, sizeof pb), par.latency);
		rc = cmd_flush(&cmd);
	}
	cli_machine_release(&A.M.m);
	trace_free(tr);
	return rc;
}
EOF

say "building the copy with a throwaway algorithm, policy, operation and command"
if ! make -j2 all >build.log 2>&1; then
	tail -20 build.log
	bad "the copy does not build"
	exit 1
fi
make check-layers >/dev/null 2>&1 || bad "check-layers"

T=build/checklists.trace
bin/progen --family transactions --threads 6 --seed 1 -o $T 2>/dev/null

bin/allocate --list-algorithms | grep -q '^throwaway ' ||
	bad "allocate --list-algorithms does not list the throwaway algorithm"
bin/allocate -q -k 2 -a throwaway $T >/dev/null ||
	bad "allocate -a throwaway failed"
printf '[search]\nalgorithm = throwaway\n[machine]\ncpus = 2\n' > build/c.ini
bin/allocate -q --config build/c.ini $T >/dev/null ||
	bad "[search] algorithm = throwaway not taken"

a=$(bin/simulate --unbound -k 2 --policy fifo $T | sed 's/^policy fifo$/policy X/')
b=$(bin/simulate --unbound -k 2 --policy fifo2 $T | sed 's/^policy fifo2$/policy X/')
[ -n "$a" ] && [ "$a" = "$b" ] || bad "simulate --policy fifo2 differs from fifo"
bin/allocate -q -k 2 --policy fifo2 $T >/dev/null || bad "allocate --policy fifo2"
bin/simulate --policy fifo3 $T 2>&1 | grep -q "fifo2" ||
	bad "the policy message does not name fifo2"

out=$(bin/throwaway -k 3 --policy fifo2 --latency 5 $T) || bad "bin/throwaway failed"
[ "$out" = "cpus 3 policy fifo2 latency 5" ] || bad "bin/throwaway printed '$out'"
bin/throwaway --help | grep -q -- '--policy P' || bad "bin/throwaway --help lacks --policy"
if bin/throwaway --binding x $T >/dev/null 2>&1; then
	bad "bin/throwaway takes --binding, a row it left out"
fi

# The operation: post2 for every post, the same results; the names from the row.
sed 's/^\([0-9][0-9]* [0-9][0-9]*\) post /\1 post2 /' $T > build/post2.trace
grep -q ' post2 ' build/post2.trace || bad "the transactions program has no post to rewrite"
for c in "simulate" "simulate --unbound -k 2 --policy fifo" "simulate --unbound -k 2 --model strict" \
	"simulate --unbound -k 3 --model client-server" "critical --unbound -k 2" \
	"simulate --unbound -k 2 --latency 5" "simulate --latency 3" \
	"critical --unbound -k 2 --latency 4" "bound -k 2 --no-lower" \
	"allocate -q -k 2 --max-tests 50" "allocate -q -k 2 --max-tests 50 --latency 7"; do
	a=$(bin/$c $T 2>&1 | sed 's/sha256:[0-9a-f]*//; s/checklists\.trace//')
	b=$(bin/$c build/post2.trace 2>&1 | sed 's/sha256:[0-9a-f]*//; s/post2\.trace//; s/post2/post/g')
	[ -n "$a" ] && [ "$a" = "$b" ] || bad "$c: post2 differs from post"
done
bin/progen --stats build/post2.trace | grep -q '^op\.post2 [1-9]' ||
	bad "progen --stats does not count post2"
printf 'shadowbind-trace 1\nthread 1 main\n1 0 post2\n1 0 exit\n' > build/bad.trace
bin/simulate build/bad.trace 2>&1 | grep -q 'post2' ||
	bad "a post2 without its operand: the message does not name post2"

[ $fail = 0 ] && say "ok: algorithm, policy, operation and command as docs/HACKING.md lists them"
exit $fail
