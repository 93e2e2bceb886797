/*
 * test_cli_ini.c - the INI reader (cli/ini.h): what it accepts, the exact
 * message for what it refuses (issue 14 item 8's reproductions among
 * them), and any bytes without a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli/ini.h"
#include "tests/testutil.h"

/* Good files: the entries as "section|key|value|line;" (key and value
 * empty for a section line), written by hand from the text. */
static void test_accepts(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} t[] = {
		{"", ""},
		{"; only a comment\n# another\n\n", ""},
		{"[a]\nk = v\n", "a|||1;a|k|v|2;"},
		{"  [ a ]  ; note\n\tk\t=\tv  \n", "a|||1;a|k|v|2;"},
		{"[a]\r\nk = v\r\n", "a|||1;a|k|v|2;"},                   /* CRLF */
		{"[a]\nk = v ; inline\nj = x#y\n", "a|||1;a|k|v|2;a|j|x#y|3;"},
		/* `#` after a blank ends the value too (docs/exp.md); `;` or
		 * `#` with no blank before it is part of the value */
		{"[a]\nk = v # inline\nj = x;y\ni = w\t#\n", "a|||1;a|k|v|2;a|j|x;y|3;a|i|w|4;"},
		{"[a]\nk = \"a ; b\" ; c\n", "a|||1;a|k|a ; b|2;"},      /* quoted */
		{"[a]\nk =\n", "a|||1;a|k||2;"},                          /* empty */
		{"[a]\nk = v\n[b]\nk = w\n", "a|||1;a|k|v|2;b|||3;b|k|w|4;"},
		{"[a.b-c_1]\nK = v", "a.b-c_1|||1;a.b-c_1|K|v|2;"},      /* no final LF */
		{"[a]\nk = v\nK = w\n", "a|||1;a|k|v|2;a|K|w|3;"},        /* case matters */
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		struct cli_ini ini;
		char why[256] = "";
		if (cli_ini_parse("f.ini", t[i].text, strlen(t[i].text), &ini, why, sizeof why))
			fail_msg("row %zu: %s", i, why);
		char got[512] = "";
		size_t o = 0;
		for (size_t k = 0; k < ini.n; k++)
			o += (size_t)snprintf(got + o, sizeof got - o, "%s|%s|%s|%zu;",
			                      ini.e[k].section, ini.e[k].key ? ini.e[k].key : "",
			                      ini.e[k].value ? ini.e[k].value : "", ini.e[k].line);
		if (strcmp(got, t[i].want))
			fail_msg("row %zu: got %s want %s", i, got, t[i].want);
		cli_ini_release(&ini);
	}
}

/* A comment line of 100 000 bytes is a comment (iniparser refused lines
 * over about 1024 bytes as empty syntax errors). */
static void test_long_lines(void **state)
{
	(void)state;
	size_t n = 100000;
	char *text = malloc(n + 64);
	memcpy(text, "[a]\n;", 5);
	memset(text + 5, 'x', n);
	strcpy(text + 5 + n, "\nk = v\n");
	struct cli_ini ini;
	char why[256];
	assert_int_equal(cli_ini_parse("f.ini", text, strlen(text), &ini, why, sizeof why), 0);
	assert_int_equal(ini.n, 2);
	assert_int_equal(ini.e[1].line, 3);
	assert_string_equal(cli_ini_get(&ini, "a", "k")->value, "v");
	assert_null(cli_ini_get(&ini, "a", "x"));
	cli_ini_release(&ini);
	free(text);
}

static void test_refuses(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		const char *msg;
	} t[] = {
		{"[a]\nk = 1\nfoo(99)\n", 0,
		 "f.ini:3: syntax error: not a [section], key = value, or comment: 'foo(99)'"},
		{"[a]\n\033]0;pwned\007\n", 0,
		 "f.ini:2: syntax error: not a [section], key = value, or comment: '\\x1b]0;pwned\\x07'"},
		{"[a]\n\xe9t\xe9\n", 0,
		 "f.ini:2: syntax error: not a [section], key = value, or comment: '\\xe9t\\xe9'"},
		{"k = v\n", 0, "f.ini:1: key outside any [section]: 'k'"},
		{"[a]\nk = 1\nk = 2\n", 0, "f.ini:3: [a] k: repeated (first at line 2)"},
		{"[a]\n[b]\nk = 1\n[a]\nj = 2\n[b]\n", 0,
		 "f.ini:4: section [a] repeated (first at line 1)"},
		{"[a]\nk = 1\n[b]\nj = 1\nj = 2\n[a]\n", 0,
		 "f.ini:5: [b] j: repeated (first at line 4)"},
		{"[a\n", 0,
		 "f.ini:1: syntax error: not a [section] (names: letters, digits, _ - .): '[a'"},
		{"[a] x\n", 0,
		 "f.ini:1: syntax error: not a [section] (names: letters, digits, _ - .): '[a] x'"},
		{"[]\n", 0,
		 "f.ini:1: syntax error: not a [section] (names: letters, digits, _ - .): '[]'"},
		{"[a]\nk y = 1\n", 0,
		 "f.ini:2: syntax error: not a [section], key = value, or comment: 'k y = 1'"},
		{"[a]\nk = \"open\n", 0,
		 "f.ini:2: syntax error: a quoted value must end with '\"': 'k = \"open'"},
		{"[a]\nk = v\0w\n", 12, "f.ini:2: a NUL byte"},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		struct cli_ini ini;
		char why[512] = "";
		size_t len = t[i].len ? t[i].len : strlen(t[i].text);
		assert_int_equal(cli_ini_parse("f.ini", t[i].text, len, &ini, why, sizeof why), -1);
		if (strcmp(why, t[i].msg))
			fail_msg("row %zu: got\n%s\nwant\n%s", i, why, t[i].msg);
		assert_null(ini.e);
	}
}

/* CLI_INI_REPEATS: the repeats that test_refuses refuses are entries, in
 * file order (written by hand from the text); other errors stay. */
static void test_repeats(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want; /* want: entries, or the error */
		int ok;
		const char *sec; /* cli_ini_get(sec, "k") is the first k: 1 */
	} t[] = {
		{"[a]\nk = 1\nk = 2\n", "a|||1;a|k|1|2;a|k|2|3;", 1, "a"},
		{"[a]\n[b]\nk = 1\n[a]\nk = 2\n", "a|||1;b|||2;b|k|1|3;a|||4;a|k|2|5;", 1, "b"},
		{"k = v\n", "f.ini:1: key outside any [section]: 'k'", 0, NULL},
		{"[a\n", "f.ini:1: syntax error: not a [section] (names: letters, "
		 "digits, _ - .): '[a'", 0, NULL},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		struct cli_ini ini;
		char why[256] = "", got[512] = "";
		int rc = cli_ini_parse_flags("f.ini", t[i].text, strlen(t[i].text),
		                             CLI_INI_REPEATS, &ini, why, sizeof why);
		assert_int_equal(rc, t[i].ok ? 0 : -1);
		size_t o = 0;
		for (size_t k = 0; k < ini.n; k++)
			o += (size_t)snprintf(got + o, sizeof got - o, "%s|%s|%s|%zu;",
			                      ini.e[k].section, ini.e[k].key ? ini.e[k].key : "",
			                      ini.e[k].value ? ini.e[k].value : "", ini.e[k].line);
		if (strcmp(t[i].ok ? got : why, t[i].want))
			fail_msg("row %zu: got %s want %s", i, t[i].ok ? got : why, t[i].want);
		if (t[i].ok) {
			const struct cli_ini_entry *e = cli_ini_get(&ini, t[i].sec, "k");
			assert_non_null(e);
			assert_string_equal(e->value, "1"); /* the first */
		}
		cli_ini_release(&ini);
	}
}

/* Random bytes over an INI-ish alphabet: never a crash or a leak; an
 * error is one line naming the file and a line number. */
static void test_any_bytes(void **state)
{
	(void)state;
	static const char alpha[] = "[]=;#\" \t\r\nab.\x00\xff\033k";
	uint64_t seed = 11;
	char buf[256];
	for (int r = 0; r < 20000; r++) {
		size_t n = tu_rand(&seed) % sizeof buf;
		for (size_t i = 0; i < n; i++)
			buf[i] = alpha[tu_rand(&seed) % (sizeof alpha - 1)];
		struct cli_ini ini;
		char why[512] = "";
		if (cli_ini_parse("r.ini", buf, n, &ini, why, sizeof why) == 0) {
			for (size_t k = 0; k < ini.n; k++)
				assert_true(ini.e[k].line >= 1 && ini.e[k].line <= n + 1);
			cli_ini_release(&ini);
		} else {
			assert_true(strncmp(why, "r.ini:", 6) == 0);
			assert_null(strchr(why, '\n'));
			for (const char *c = why; *c; c++)
				assert_true((unsigned char)*c >= 0x20 && *c != 0x7f);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_any_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
