/* ini.c - the INI syntax of experiment files, read from memory so that
 * it can be fuzzed (tests/fuzz/fuzz_exp.c).  To be replaced by cli/'s
 * reader once it lands (same syntax). */
#include <stdio.h>
#include <string.h>

#include "exp/exp.h"

#define LINE_MAX_BYTES 4095

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Trim [*a, *b) of blanks. */
static void trim(const char **a, const char **b)
{
	while (*a < *b && blank(**a))
		(*a)++;
	while (*b > *a && blank((*b)[-1]))
		(*b)--;
}

static int printable(const char *a, const char *b)
{
	for (; a < b; a++)
		if ((unsigned char)*a < 0x20 && *a != '\t')
			return 0;
	return 1;
}

int exp_ini_parse(const char *buf, size_t len, const char *fname,
                  exp_ini_fn cb, void *arg, char *err, size_t errlen)
{
	char section[LINE_MAX_BYTES + 1] = "";
	char key[LINE_MAX_BYTES + 1], val[LINE_MAX_BYTES + 1];
	size_t pos = 0;
	unsigned line = 0;
	if (errlen)
		err[0] = 0;
	while (pos < len) {
		line++;
		const char *a = buf + pos;
		const char *nl = memchr(a, '\n', len - pos);
		const char *b = nl ? nl : buf + len;
		pos = (size_t)(b - buf) + (nl != NULL);
		if ((size_t)(b - a) > LINE_MAX_BYTES) {
			snprintf(err, errlen, "%s:%u: line longer than %d bytes",
			         fname, line, LINE_MAX_BYTES);
			return -1;
		}
		if (memchr(a, 0, (size_t)(b - a))) {
			snprintf(err, errlen, "%s:%u: NUL byte", fname, line);
			return -1;
		}
		trim(&a, &b);
		if (a == b || *a == ';' || *a == '#')
			continue;
		if (!printable(a, b)) {
			snprintf(err, errlen, "%s:%u: control character", fname,
			         line);
			return -1;
		}
		if (*a == '[') {
			const char *s = a + 1, *e = b;
			if (e[-1] != ']' || e - 1 <= s) {
				snprintf(err, errlen,
				         "%s:%u: syntax error: a section header is "
				         "'[name]'", fname, line);
				return -1;
			}
			e--;
			trim(&s, &e);
			memcpy(section, s, (size_t)(e - s));
			section[e - s] = 0;
			continue;
		}
		const char *eq = memchr(a, '=', (size_t)(b - a));
		if (!eq) {
			snprintf(err, errlen,
			         "%s:%u: syntax error: not a section, key = value, "
			         "or comment", fname, line);
			return -1;
		}
		const char *ka = a, *kb = eq, *va = eq + 1, *vb = b;
		trim(&ka, &kb);
		trim(&va, &vb);
		if (ka == kb) {
			snprintf(err, errlen, "%s:%u: syntax error: empty key",
			         fname, line);
			return -1;
		}
		memcpy(key, ka, (size_t)(kb - ka));
		key[kb - ka] = 0;
		memcpy(val, va, (size_t)(vb - va));
		val[vb - va] = 0;
		int r = cb(arg, section, key, val, line, err, errlen);
		if (r)
			return r;
	}
	return 0;
}
