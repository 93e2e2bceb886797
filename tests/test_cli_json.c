/*
 * test_cli_json.c - the JSON writer (cli/json.h) and every command's
 * --json, checked with an independent parser (jansson): the output always
 * parses, also for names and locations that are not UTF-8 (issue 14 item
 * 9), and holds what it should (issue 11 item 4).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "cli/json.h"
#include "tests/testutil.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);
	if (!v)
		fail_msg("invalid JSON (line %d col %d: %s):\n%s", e.line, e.column, e.text, text);
	return v;
}

/* Each byte string, written by cli_json_str, parses back (jansson) to the
 * UTF-8 text the json.h rule gives, derived by hand: valid UTF-8 stays,
 * every other byte B becomes U+00BB (UTF-8: C2/C3 xx). */
static void test_strings(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		size_t n;
		const char *want;
	} t[] = {
		{"plain", 5, "plain"},
		{"q\"b\\s/", 6, "q\"b\\s/"},
		{"\n\t\r\x01\x1f\x7f", 6, "\n\t\r\x01\x1f\x7f"},
		{"caf\xe9", 4, "caf\xc3\xa9"},                 /* Latin-1 e-acute */
		{"\xe2\x82\xac", 3, "\xe2\x82\xac"},           /* euro sign, valid */
		{"\xf0\x9d\x84\x9e", 4, "\xf0\x9d\x84\x9e"},   /* U+1D11E, valid */
		{"\xe2\x82", 2, "\xc3\xa2\xc2\x82"},           /* truncated */
		{"\xc0\xaf", 2, "\xc3\x80\xc2\xaf"},           /* overlong '/' */
		{"\xed\xa0\x80", 3, "\xc3\xad\xc2\xa0\xc2\x80"}, /* surrogate */
		{"\xf4\x90\x80\x80", 4, "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80"}, /* > U+10FFFF */
		{"\x80x", 2, "\xc2\x80x"},                     /* stray continuation */
		{"\xff\xfe", 2, "\xc3\xbf\xc3\xbe"},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct cli_json j;
		cli_json_init(&j, f);
		cli_json_array(&j);
		cli_json_strn(&j, t[i].in, t[i].n);
		cli_json_end(&j);
		assert_int_equal(cli_json_error(&j), 0);
		fclose(f);
		json_t *v = parse(buf);
		const char *got = json_string_value(json_array_get(v, 0));
		assert_non_null(got);
		if (strcmp(got, t[i].want) != 0)
			fail_msg("row %zu: got '%s' from %s", i, got, buf);
		json_decref(v);
		free(buf);
	}
}

/* Nesting, numbers, null for non-finite doubles, number-or-string. */
static void test_structure(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct cli_json j;
	cli_json_init(&j, f);
	cli_json_object(&j);
	cli_json_key(&j, "u");
	cli_json_u64(&j, (uint64_t)1 << 62); /* jansson holds int64 */
	cli_json_key(&j, "i");
	cli_json_i64(&j, -5);
	cli_json_key(&j, "d");
	cli_json_double(&j, 0.5);
	cli_json_key(&j, "nan");
	cli_json_double(&j, 0.0 / 0.0);
	cli_json_key(&j, "n1");
	cli_json_number(&j, "12.5");
	cli_json_key(&j, "n2");
	cli_json_number(&j, "7/3");
	cli_json_key(&j, "e");
	cli_json_array(&j);
	cli_json_end(&j);
	cli_json_key(&j, "a");
	cli_json_array(&j);
	cli_json_object(&j);
	cli_json_key(&j, "x");
	cli_json_bool(&j, 1);
	cli_json_end(&j);
	cli_json_null(&j);
	cli_json_end(&j);
	cli_json_end(&j);
	fclose(f);
	assert_string_equal(buf + strlen(buf) - 1, "\n");
	json_t *v = parse(buf);
	assert_true(json_integer_value(json_object_get(v, "i")) == -5);
	assert_true(json_real_value(json_object_get(v, "d")) == 0.5);
	assert_true(json_is_null(json_object_get(v, "nan")));
	assert_true(json_real_value(json_object_get(v, "n1")) == 12.5);
	assert_string_equal(json_string_value(json_object_get(v, "n2")), "7/3");
	assert_int_equal(json_array_size(json_object_get(v, "e")), 0);
	json_t *a = json_object_get(v, "a");
	assert_int_equal(json_array_size(a), 2);
	assert_true(json_is_true(json_object_get(json_array_get(a, 0), "x")));
	assert_true(json_is_null(json_array_get(a, 1)));
	json_decref(v);
	free(buf);
}

/* A trace whose thread names and locations are not UTF-8. */
static const char hostile[] =
	"shadowbind-trace 1\n"
	"thread 1 m\xe9in\n"
	"thread 2 w\xff\xfe\x80\n"
	"1 0 create 2 @f\xc0\xaf.c:1\n"
	"2 100 exit @\xed\xa0\x80.c:2\n"
	"1 10 join 2\n"
	"1 0 exit\n";

static void test_commands(void **state)
{
	(void)state;
	char *tr = tu_tmpfile(hostile);
	char worst[4096];
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	static const struct {
		const char *cmd, *args;
		int hostile;
		const char *key; /* a key the object has */
	} t[] = {
		{"simulate", "--json", 1, "threads"},
		{"simulate", "--json --unbound --cpus 2", 1, "processors"},
		{"bound", "--json --cpus 2", 1, "p"},
		{"bound", "--json --cpus 2 --exact", 0, "V_exact"},
		{"bound", "--json --sweep 3 --latency 0,4", 0, "sweep"},
		{"allocate", "--json -q --cpus 2", 1, "binding"},
		{"allocate", "--json -q --cpus 2 -a sga", 0, "stopped"},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char *out, *err;
		int rc = tu_cmdf(t[i].cmd, &out, &err, "%s '%s'", t[i].args,
		                 t[i].hostile ? tr : worst);
		if (rc != 0)
			fail_msg("%s %s: %d %s", t[i].cmd, t[i].args, rc, err);
		json_t *v = parse(out);
		assert_non_null(json_object_get(v, t[i].key));
		if (strcmp(t[i].cmd, "simulate") == 0 && t[i].hostile) {
			/* "m\xe9in" -> "m\u00e9in" = UTF-8 "m\xc3\xa9in" */
			json_t *th = json_object_get(v, "threads");
			assert_string_equal(json_string_value(json_object_get(json_array_get(th, 0), "name")),
			                    "m\xc3\xa9in");
		}
		json_decref(v);
		free(out);
		free(err);
	}
	unlink(tr);
	free(tr);
}

/* allocate --json: what a script needs, equal to the binding file's
 * values (Paper IV's example: 2050, binpacking 4060, lower 2030). */
static void test_allocate_json(void **state)
{
	(void)state;
	char worst[4096];
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	char *out, *err;
	assert_int_equal(tu_cmdf("allocate", &out, &err, "--json -q --cpus 2 -a sga '%s'", worst), 0);
	json_t *v = parse(out);
	assert_int_equal(json_integer_value(json_object_get(v, "makespan")), 2050);
	assert_int_equal(json_integer_value(json_object_get(v, "binpack")), 4060);
	assert_int_equal(json_integer_value(json_object_get(v, "lower")), 2030);
	assert_true(json_is_number(json_object_get(v, "bound")));
	assert_true(json_is_integer(json_object_get(v, "tests")));
	assert_true(json_is_number(json_object_get(v, "seconds")));
	assert_string_equal(json_string_value(json_object_get(v, "model")), "direct");
	assert_string_equal(json_string_value(json_object_get(v, "algorithm")), "sga");
	assert_string_equal(json_string_value(json_object_get(v, "stopped")), "done");
	/* T1 (2), T4 (5), main (1) on one processor, T2, T3 on the other */
	json_t *b = json_object_get(v, "binding");
	assert_int_equal(json_array_size(b), 5);
	int cpu[6];
	for (size_t i = 0; i < 5; i++) {
		json_t *e = json_array_get(b, i);
		cpu[json_integer_value(json_object_get(e, "thread"))] =
			(int)json_integer_value(json_object_get(e, "cpu"));
	}
	assert_int_equal(cpu[1], cpu[2]);
	assert_int_equal(cpu[1], cpu[5]);
	assert_int_equal(cpu[3], cpu[4]);
	assert_true(cpu[1] != cpu[3]);
	json_decref(v);
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_allocate_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
