/*
 * test_docs.c - our copies of the contracts (docs/) equal ../shared/spec/
 * when it is present (the specs are contracts: a change is a new version).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/testutil.h"

static void test_spec_copies(void **state)
{
	(void)state;
	static const char *const specs[] = {"trace-format.md", "binding-format.md", "simulation.md"};
	int compared = 0;
	for (size_t i = 0; i < 3; i++) {
		char a[4096], b[4096], rel[256];
		snprintf(rel, sizeof rel, "spec/%s", specs[i]);
		tu_shared(rel, a, sizeof a);
		snprintf(rel, sizeof rel, "docs/%s", specs[i]);
		tu_root(rel, b, sizeof b);
		size_t la, lb;
		char *sa = tu_slurp(a, &la), *sb = tu_slurp(b, &lb);
		assert_non_null(sb);
		if (sa) {
			if (la != lb || memcmp(sa, sb, la) != 0)
				fail_msg("%s differs from %s: copy the contract again", b, a);
			compared++;
		}
		free(sa);
		free(sb);
	}
	print_message("compared %d spec copies with ../shared/spec\n", compared);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
