/*
 * test_cli_readme.c - the README's shell examples run as written (issue 11
 * item 7): every ```sh block is run, line by line, with /bin/sh in a
 * temporary directory where bin/ is the build under test, examples/ the
 * shipped examples, build/examples/ the example programs, and trace.log a
 * generated program (the README's stand-in for "your trace").  Every line
 * must exit 0.
 *
 * Markers in README.md (invisible when rendered):
 *   <!-- doctest: skip (why) -->   on the line before a ```sh block: the
 *                                  block is not run (printed as skipped);
 *   <!-- doctest: expect TEXT -->  after a block: its standard output
 *                                  contains TEXT;
 * and a line of a block whose comment says `# illustrative` is skipped
 * (printed).  A comment `# makespan N` must match the line's output.
 *
 * Two tests: test_readme runs the blocks that need nothing but the
 * commands; test_readme_examples the blocks that run an example program
 * (a line naming build/examples/), and calls skip() when they are not
 * built, so the closing line counts it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/testutil.h"

struct block {
	size_t line;        /* of the ``` fence */
	char *skip;         /* reason, or NULL */
	char **cmd;         /* lines */
	size_t *cmd_line;
	size_t n;
	char **expect;
	size_t nexpect;
};

static char *dup_range(const char *b, const char *e)
{
	char *s = malloc((size_t)(e - b) + 1);
	memcpy(s, b, (size_t)(e - b));
	s[e - b] = 0;
	return s;
}

/* The text of "<!-- doctest: WORD TEXT -->" after WORD, or NULL. */
static char *marker(const char *l, const char *word)
{
	char pre[64];
	snprintf(pre, sizeof pre, "<!-- doctest: %s", word);
	if (strncmp(l, pre, strlen(pre)) != 0)
		return NULL;
	const char *b = l + strlen(pre);
	while (*b == ' ')
		b++;
	const char *e = strstr(b, "-->");
	if (!e)
		return NULL;
	while (e > b && e[-1] == ' ')
		e--;
	return dup_range(b, e);
}

static size_t parse(char *readme, struct block **out)
{
	struct block *bl = NULL;
	size_t nb = 0, lineno = 0;
	char *skip = NULL;
	int in = 0;
	for (char *l = readme; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		lineno++;
		char *m;
		if (in) {
			if (strncmp(l, "```", 3) == 0) {
				in = 0;
			} else {
				struct block *b = &bl[nb - 1];
				b->cmd = realloc(b->cmd, (b->n + 1) * sizeof *b->cmd);
				b->cmd_line = realloc(b->cmd_line, (b->n + 1) * sizeof *b->cmd_line);
				b->cmd[b->n] = strdup(l);
				b->cmd_line[b->n++] = lineno;
			}
		} else if (strcmp(l, "```sh") == 0) {
			bl = realloc(bl, (nb + 1) * sizeof *bl);
			memset(&bl[nb], 0, sizeof *bl);
			bl[nb].line = lineno;
			bl[nb].skip = skip;
			skip = NULL;
			nb++;
			in = 1;
		} else if ((m = marker(l, "skip"))) {
			free(skip);
			skip = m;
		} else if ((m = marker(l, "expect")) && nb) {
			struct block *b = &bl[nb - 1];
			b->expect = realloc(b->expect, (b->nexpect + 1) * sizeof *b->expect);
			b->expect[b->nexpect++] = m;
		}
		l = nl ? nl + 1 : NULL;
	}
	free(skip);
	*out = bl;
	return nb;
}

/* Does block b run an example program? */
static int needs_examples(const struct block *b)
{
	for (size_t k = 0; k < b->n; k++)
		if (strstr(b->cmd[k], "build/examples/"))
			return 1;
	return 0;
}

/* Run the blocks that need the example programs (examples = 1) or those
 * that do not (0); at least min_ran lines must run. */
static void run_readme(int examples, size_t min_ran)
{
	char root[4096], binp[4096], path[4300];
	tu_root("README.md", path, sizeof path);
	char *readme = tu_slurp(path, NULL);
	assert_non_null(readme);
	tu_root(".", root, sizeof root);
	tu_bin(".", binp, sizeof binp);
	char *rroot = realpath(root, NULL), *rbin = realpath(binp, NULL);
	assert_non_null(rroot);
	assert_non_null(rbin);
	/* The build directory of the commands under test. */
	char build[4200], plain[4200];
	snprintf(plain, sizeof plain, "%s/bin", rroot);
	if (strcmp(rbin, plain) == 0) {
		snprintf(build, sizeof build, "%s/build", rroot);
	} else {
		snprintf(build, sizeof build, "%s", rbin);
		*strrchr(build, '/') = 0;
	}

	struct stat st;
	snprintf(path, sizeof path, "%s/examples", build);
	if (examples && stat(path, &st) != 0) {
		print_message("test_readme_examples: no %s (make builds them): SKIPPED\n", path);
		free(readme);
		free(rroot);
		free(rbin);
		skip();
	}

	char dir[] = "/tmp/sbreadmeXXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[20000], *out, *err;
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && ln -s '%s' bin && ln -s '%s/examples' examples && mkdir build && "
	         "{ ! test -d '%s/examples' || ln -s '%s/examples' build/examples; } && "
	         "bin/progen --family transactions --threads 12 --seed 2 -o trace.log",
	         dir, rbin, rroot, build, build);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	free(out);
	free(err);

	struct block *bl;
	size_t nb = parse(readme, &bl);
	size_t ran = 0, skipped = 0;
	assert_true(nb >= 5);
	for (size_t i = 0; i < nb; i++) {
		struct block *b = &bl[i];
		if (needs_examples(b) != examples)
			continue;
		if (b->skip) {
			print_message("README.md:%zu: block skipped: %s\n", b->line, b->skip);
			skipped += b->n;
			continue;
		}
		size_t outcap = 1;
		char *all = calloc(1, 1);
		for (size_t k = 0; k < b->n; k++) {
			const char *c = b->cmd[k];
			if (strstr(c, "# illustrative")) {
				print_message("README.md:%zu: skipped (illustrative): %s\n",
				              b->cmd_line[k], c);
				skipped++;
				continue;
			}
			snprintf(cmd, sizeof cmd, "cd '%s' && %s", dir, c);
			int rc = tu_run(cmd, &out, &err);
			if (rc != 0)
				fail_msg("README.md:%zu: exit %d: %s\n%s", b->cmd_line[k], rc, c, err);
			const char *ms = strstr(c, "# makespan ");
			if (ms) {
				char want[64];
				snprintf(want, sizeof want, "makespan %ld\n", strtol(ms + 11, NULL, 10));
				if (strncmp(out, want, strlen(want)) != 0)
					fail_msg("README.md:%zu: promised '%s', printed '%.60s'",
					         b->cmd_line[k], want, out);
			}
			outcap += strlen(out);
			all = realloc(all, outcap);
			strcat(all, out);
			free(out);
			free(err);
			ran++;
		}
		for (size_t e = 0; e < b->nexpect; e++)
			if (!strstr(all, b->expect[e]))
				fail_msg("README.md:%zu: the block's output lacks '%s'", b->line,
				         b->expect[e]);
		free(all);
	}
	print_message("README.md: %zu %slines ran, %zu skipped\n", ran,
	              examples ? "example program " : "example ", skipped);
	assert_true(ran >= min_ran);
	for (size_t i = 0; i < nb; i++) {
		for (size_t k = 0; k < bl[i].n; k++)
			free(bl[i].cmd[k]);
		for (size_t e = 0; e < bl[i].nexpect; e++)
			free(bl[i].expect[e]);
		free(bl[i].cmd);
		free(bl[i].cmd_line);
		free(bl[i].expect);
		free(bl[i].skip);
	}
	free(bl);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	free(out);
	free(err);
	free(readme);
	free(rroot);
	free(rbin);
}

static void test_readme(void **state)
{
	(void)state;
	run_readme(0, 15);
}

/* recording and running build/examples/forkjoin and workqueue: 5 lines */
static void test_readme_examples(void **state)
{
	(void)state;
	run_readme(1, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readme),
		cmocka_unit_test(test_readme_examples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
