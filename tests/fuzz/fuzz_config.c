/*
 * fuzz_config.c - libFuzzer harness for the INI reader (cli_ini_parse)
 * and allocate's configuration (alloc_config_apply); see
 * tests/fuzz/Makefile.  Every input
 *   - parses, and then every entry has a name of the documented
 *     characters, a line number within the input, its value (if any) in
 *     one line, lookups find each key and section; and the configuration
 *     is applied, or refused with one line "f.ini:..." safe to print;
 *   - or is refused with one such line naming the file, *out zeroed.
 * Safe to print: cli_quote's promise (cli/cli.h), UTF-8 without control
 * bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc/alloc.h"
#include "cli/ini.h"

/* cli_quote's promise (cli/cli.h): no byte below 0x20, no 0x7f, no C1
 * control (U+0080..U+009F), only UTF-8. */
static int safe_text(const unsigned char *c)
{
	while (*c) {
		unsigned n, cp;
		if (*c < 0x20 || *c == 0x7f)
			return 0;
		if (*c < 0x80) {
			c++;
			continue;
		}
		if (*c >= 0xc2 && *c <= 0xdf)
			n = 1, cp = *c & 0x1f;
		else if (*c >= 0xe0 && *c <= 0xef)
			n = 2, cp = *c & 0x0f;
		else if (*c >= 0xf0 && *c <= 0xf4)
			n = 3, cp = *c & 0x07;
		else
			return 0;
		for (unsigned i = 1; i <= n; i++) {
			if ((c[i] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (c[i] & 0x3f);
		}
		if (n == 1 && cp < 0xa0)
			return 0;
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		c += n + 1;
	}
	return 1;
}

static void check_msg(const char *msg)
{
	if (strncmp(msg, "f.ini", 5) != 0 || (msg[5] != ':' && msg[5] != ' ') ||
	    !safe_text((const unsigned char *)msg)) {
		fprintf(stderr, "bad message: ");
		for (const char *c = msg; *c; c++)
			fprintf(stderr, (unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f ? "<%02x>" : "%c", (unsigned char)*c);
		fprintf(stderr, "\n");
		abort();
	}
}

static void check_name(const char *s)
{
	if (!s || !*s)
		abort();
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		      *s == '.'))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cli_ini ini;
	char why[1024];
	const char *text = (const char *)data;
	if (cli_ini_parse("f.ini", text, size, &ini, why, sizeof why)) {
		check_msg(why);
		if (ini.e || ini.n || ini.pool || ini.name)
			abort();
		return 0;
	}
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += text[i] == '\n';
	for (size_t i = 0; i < ini.n; i++) {
		const struct cli_ini_entry *x = &ini.e[i];
		check_name(x->section);
		if (x->line < 1 || x->line > lines || (i && x->line <= ini.e[i - 1].line))
			abort();
		if (x->key) {
			check_name(x->key);
			if (!x->value || strchr(x->value, '\n'))
				abort();
			if (cli_ini_get(&ini, x->section, x->key) != x)
				abort();
		} else if (x->value) {
			abort();
		}
	}
	struct alloc_params par;
	alloc_params_init(&par);
	if (alloc_config_apply(&ini, &par, why, sizeof why))
		check_msg(why);
	cli_ini_release(&ini);
	return 0;
}
