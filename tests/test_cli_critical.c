/*
 * test_cli_critical.c - golden tests of bin/critical's weights
 * (docs/viz.md, Weights: `--weights N`, default 5, the N records with the
 * most work on the path, each re-simulated 10% faster).
 *
 * The program: one thread, seven records of work 10, 20, ..., 70 (trace
 * units), six `sleep 1` between them.  Alone on its processor every
 * record is on the path: makespan 280 + 6 = 286.  A record of work w made
 * 10% faster saves w / 10 of work and as much makespan: weight 1, makespan
 * 286 - w / 10.  The five with the most work are lines 8, 7, 6, 5, 4
 * (works 70 .. 30): makespans 279, 280, 281, 282, 283.  By hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/testutil.h"

static const char chain[] =
	"shadowbind-trace 1\n"
	"1 10 sleep 1\n"
	"1 20 sleep 1\n"
	"1 30 sleep 1\n"
	"1 40 sleep 1\n"
	"1 50 sleep 1\n"
	"1 60 sleep 1\n"
	"1 70 exit\n";

/* The weight lines of critical's output, in order: "line L ... makespan M"
 * pairs written as "L:M;". */
static void weights_of(const char *out, char *buf, size_t len)
{
	buf[0] = 0;
	const char *p = strstr(out, "\nweights");
	if (!p)
		return;
	p = strchr(p + 1, '\n');
	while (p && strncmp(p + 1, "  line ", 7) == 0) {
		unsigned line = 0, ms = 0;
		const char *m = strstr(p + 1, "makespan ");
		const char *e = strchr(p + 1, '\n');
		if (sscanf(p + 8, "%u", &line) != 1 || !m || (e && m > e) || sscanf(m + 9, "%u", &ms) != 1)
			break;
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%u:%u;", line, ms);
		p = e;
	}
}

static void test_weights(void **state)
{
	(void)state;
	static const struct {
		const char *args, *want;
	} cases[] = {
		{"", "8:279;7:280;6:281;5:282;4:283;"}, /* the default: 5 */
		{"--weights 2", "8:279;7:280;"},
		{"--weights 9", "8:279;7:280;6:281;5:282;4:283;3:284;2:285;"}, /* all 7 */
	};
	char *path = tu_tmpfile(chain);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *out = NULL, *err = NULL, got[256];
		int st = tu_cmdf("critical", &out, &err, "%s '%s'", cases[i].args, path);
		if (st != 0)
			fail_msg("critical %s: status %d: %s", cases[i].args, st, err);
		assert_non_null(strstr(out, "critical path: makespan 286 tick"));
		weights_of(out, got, sizeof got);
		if (strcmp(got, cases[i].want))
			fail_msg("critical %s: weights %s, want %s\n%s", cases[i].args, got, cases[i].want,
			         out);
		assert_non_null(strstr(out, "weight 1.000"));
		free(out);
		free(err);
	}
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
