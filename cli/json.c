/* json.c - the streaming JSON writer (json.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli/json.h"

size_t cli_utf8_len(const unsigned char *s, size_t n); /* opt.c */

void cli_json_init(struct cli_json *j, FILE *f)
{
	memset(j, 0, sizeof *j);
	j->f = f;
}

/* Separator and indentation before a value (or a key); an object or
 * array inside an array goes on a line of its own. */
static void pre_(struct cli_json *j, int container)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	int d = j->depth;
	if (d == 0)
		return;
	int first = d <= CLI_JSON_DEPTH ? !j->count[d - 1] : 0;
	if (d <= CLI_JSON_DEPTH)
		j->count[d - 1] = 1;
	if (!first)
		fputc(',', j->f);
	if (container && d <= CLI_JSON_DEPTH && j->is_array[d - 1]) {
		j->is_array[d - 1] = 2; /* has lines */
		fprintf(j->f, "\n%*s", d, "");
	} else if (!first) {
		fputc(' ', j->f);
	}
}

static void pre(struct cli_json *j)
{
	pre_(j, 0);
}

static void open_(struct cli_json *j, char c, int arr)
{
	pre_(j, 1);
	fputc(c, j->f);
	if (j->depth < CLI_JSON_DEPTH) {
		j->count[j->depth] = 0;
		j->is_array[j->depth] = (unsigned char)arr;
	}
	j->depth++;
}

void cli_json_object(struct cli_json *j)
{
	open_(j, '{', 0);
}

void cli_json_array(struct cli_json *j)
{
	open_(j, '[', 1);
}

void cli_json_end(struct cli_json *j)
{
	if (j->depth == 0)
		return;
	j->depth--;
	int arr = j->depth < CLI_JSON_DEPTH ? j->is_array[j->depth] : 0;
	if (arr == 2)
		fputc('\n', j->f);
	fputc(arr ? ']' : '}', j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void cli_json_escape(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned c = u[i];
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc((int)c, f);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\t': fputs("\\t", f); break;
			case '\r': fputs("\\r", f); break;
			case '\b': fputs("\\b", f); break;
			case '\f': fputs("\\f", f); break;
			default: fprintf(f, "\\u%04x", c);
			}
			i++;
			continue;
		}
		size_t l = cli_utf8_len(u + i, n - i);
		if (l == 0) {
			fprintf(f, "\\u%04x", c); /* not UTF-8: the byte as Latin-1 */
			i++;
			continue;
		}
		fwrite(u + i, 1, l, f);
		i += l;
	}
}

void cli_json_key(struct cli_json *j, const char *key)
{
	pre(j);
	fputc('"', j->f);
	cli_json_escape(j->f, key, strlen(key));
	fputs("\": ", j->f);
	j->after_key = 1;
}

void cli_json_strn(struct cli_json *j, const char *s, size_t n)
{
	pre(j);
	fputc('"', j->f);
	cli_json_escape(j->f, s, n);
	fputc('"', j->f);
}

void cli_json_str(struct cli_json *j, const char *s)
{
	if (!s)
		cli_json_null(j);
	else
		cli_json_strn(j, s, strlen(s));
}

void cli_json_u64(struct cli_json *j, uint64_t v)
{
	pre(j);
	fprintf(j->f, "%" PRIu64, v);
}

void cli_json_i64(struct cli_json *j, int64_t v)
{
	pre(j);
	fprintf(j->f, "%" PRId64, v);
}

void cli_json_double(struct cli_json *j, double v)
{
	pre(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.17g", v);
}

void cli_json_bool(struct cli_json *j, int v)
{
	pre(j);
	fputs(v ? "true" : "false", j->f);
}

void cli_json_null(struct cli_json *j)
{
	pre(j);
	fputs("null", j->f);
}

/* RFC 8259 number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == 0;
}

void cli_json_number(struct cli_json *j, const char *decimal)
{
	if (!decimal) {
		cli_json_null(j);
	} else if (is_number(decimal)) {
		pre(j);
		fputs(decimal, j->f);
	} else {
		cli_json_str(j, decimal);
	}
}

int cli_json_error(const struct cli_json *j)
{
	if (fflush(j->f) != 0 || ferror(j->f))
		return errno ? errno : EIO;
	return 0;
}
