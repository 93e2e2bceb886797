/*
 * json.c - a small streaming JSON writer for viz's outputs (to be
 * replaced by cli/'s shared writer once it lands).  Strings: printable
 * ASCII and valid UTF-8 pass; '"', '\\' escaped; control bytes and bytes
 * of invalid UTF-8 sequences written as \u00XX of the byte.
 */
#include <inttypes.h>
#include <math.h>

#include "viz/vizint.h"

void vj_init(struct viz_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = 1;
	j->key = 0;
}

static void sep(struct viz_json *j)
{
	if (j->key) {
		j->key = 0;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = 0;
}

static void open_(struct viz_json *j, int c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth < 63)
		j->depth++;
	j->first[j->depth] = 1;
}

void vj_obj(struct viz_json *j) { open_(j, '{'); }
void vj_arr(struct viz_json *j) { open_(j, '['); }

void vj_end_obj(struct viz_json *j)
{
	if (j->depth > 0)
		j->depth--;
	fputc('}', j->f);
}

void vj_end_arr(struct viz_json *j)
{
	if (j->depth > 0)
		j->depth--;
	fputc(']', j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

/* Length of a valid UTF-8 sequence at s (>= 2), or 0. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned cp;
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
		cp = s[0] & 0x1F;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		cp = s[0] & 0x0F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

static void str_(FILE *f, const char *s)
{
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20 || *p == 0x7F) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else {
			int n = utf8_len(p);
			if (n) {
				fwrite(p, 1, (size_t)n, f);
				p += n;
			} else {
				fprintf(f, "\\u%04x", *p++);
			}
		}
	}
	fputc('"', f);
}

void vj_key(struct viz_json *j, const char *k)
{
	sep(j);
	str_(j->f, k);
	fputc(':', j->f);
	j->key = 1;
}

void vj_str(struct viz_json *j, const char *s)
{
	sep(j);
	str_(j->f, s);
}

void vj_u64(struct viz_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void vj_i64(struct viz_json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void vj_dbl(struct viz_json *j, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.17g", v);
	else
		fputs("null", j->f);
}

void vj_raw(struct viz_json *j, const char *text)
{
	sep(j);
	fputs(text, j->f);
}

void vj_null(struct viz_json *j)
{
	sep(j);
	fputs("null", j->f);
}
