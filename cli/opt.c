/* opt.c - the option table: parsing, limits, messages, --help (cli.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see '%s --help'\n", cmd->name);
	return CLI_EUSAGE;
}

int cli_error(const struct cli_cmd *cmd, int status, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

int cli_errorf(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000;
	else
		return 0;
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Shared with json.c through the declaration there. */
size_t cli_utf8_len(const unsigned char *s, size_t n);
size_t cli_utf8_len(const unsigned char *s, size_t n)
{
	return utf8_len(s, n);
}

const char *cli_quote(const char *s, size_t n, char *buf, size_t len)
{
	size_t o = 0;
	if (len == 0)
		return buf;
	for (size_t i = 0; i < n;) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t l = utf8_len(u, n - i);
		char tmp[12];
		size_t tl;
		if (l == 1 && (u[0] < 0x20 || u[0] == 0x7f)) {
			tl = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", u[0]);
			l = 1;
		} else if (l == 1 && u[0] == '\\') {
			memcpy(tmp, "\\\\", 2);
			tl = 2;
		} else if (l == 0) {
			tl = (size_t)snprintf(tmp, sizeof tmp, "\\x%02x", u[0]);
			l = 1;
		} else if (l == 2 && u[0] == 0xc2 && u[1] < 0xa0) {
			/* C1 controls U+0080..U+009F: U+009B is CSI to some
			 * terminals */
			tl = (size_t)snprintf(tmp, sizeof tmp, "\\xc2\\x%02x", u[1]);
		} else {
			memcpy(tmp, u, l);
			tl = l;
		}
		if (o + tl + 4 > len) {
			if (o + 4 <= len) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		memcpy(buf + o, tmp, tl);
		o += tl;
		i += l;
	}
	buf[o < len ? o : len - 1] = 0;
	return buf;
}

/* ---------------------------------------------------------------------
 * Times with units
 */

int cli_time_parse(const char *s, struct cli_time *t)
{
	struct cli_time r = {.text = s, .name = t->name, .unit = -1};
	size_t n = strlen(s), i = 0;
	enum trace_unit su;
	size_t sl = trace_unit_suffix(s, n, &su);
	if (sl) {
		r.unit = (int)su;
		n -= sl;
	}
	int digits = 0, dot = 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.' && !dot && r.unit >= 0) {
			dot = 1;
		} else if (c >= '0' && c <= '9') {
			if (r.num > (UINT64_MAX - 9) / 10 || r.frac > 18)
				return -1;
			r.num = r.num * 10 + (uint64_t)(c - '0');
			r.frac += (uint32_t)dot;
			digits++;
		} else {
			return -1;
		}
	}
	if (!digits)
		return -1;
	if (r.unit < 0 && r.num >= TRACE_WORK_LIMIT)
		return -1;
	*t = r;
	return 0;
}

int cli_time_get(const struct cli_time *t, const struct trace *tr,
                 uint64_t def, uint64_t *out, char *why, size_t len)
{
	if (!t || !t->text) {
		*out = def;
		return 0;
	}
	if (t->unit < 0) {
		*out = t->num;
		return 0;
	}
	uint64_t tu = tr && tr->unit_declared ? trace_unit_ns(tr->unit) : 0;
	if (tu == 0) {
		snprintf(why, len, "--%s: '%s': a unit suffix needs a trace that "
		         "declares its unit (ns, us, ms or s)", t->name, t->text);
		return -1;
	}
	/* value = num / 10^frac * ns(suffix) / ns(trace unit), exact. */
	unsigned __int128 a = (unsigned __int128)t->num * trace_unit_ns((enum trace_unit)t->unit);
	unsigned __int128 d = tu;
	for (uint32_t i = 0; i < t->frac; i++)
		d *= 10;
	if (a % d != 0) {
		snprintf(why, len, "--%s: '%s' is not a whole number of trace "
		         "units (%s)", t->name, t->text, trace_unit_name(tr->unit));
		return -1;
	}
	a /= d;
	if (a >= TRACE_WORK_LIMIT) {
		snprintf(why, len, "--%s: '%s' is 2^62 trace units or more",
		         t->name, t->text);
		return -1;
	}
	*out = (uint64_t)a;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (*end || errno || !isfinite(d) || d < 0)
		return -1;
	*out = d;
	return 0;
}

/* ---------------------------------------------------------------------
 * Parsing
 */

static int takes_value(const struct cli_opt *o)
{
	return o->kind != CLI_FLAG;
}

static const char *metavar(const struct cli_opt *o)
{
	if (o->metavar)
		return o->metavar;
	switch (o->kind) {
	case CLI_CPUS: return "K";
	case CLI_TIME: return "T";
	case CLI_SECONDS: return "SEC";
	case CLI_STR: return "FILE";
	default: return "N";
	}
}

struct cli_opt *cli_find(const struct cli_cmd *cmd, const char *name)
{
	for (struct cli_opt *o = cmd->opts; o && o->kind != CLI_END; o++)
		if (o->kind != CLI_SKIP && o->name && strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

static struct cli_opt *find_short(const struct cli_cmd *cmd, char c)
{
	for (struct cli_opt *o = cmd->opts; o && o->kind != CLI_END; o++)
		if (o->short_name == c && o->kind > CLI_TEXT)
			return o;
	return NULL;
}

/* Store value v into o; 0, or CLI_EUSAGE after the message. */
static int store(const struct cli_cmd *cmd, struct cli_opt *o, const char *v,
                 const char *shown)
{
	char why[256] = "";
	uint64_t x, max;
	switch (o->kind) {
	case CLI_FLAG:
		*(int *)o->dst = 1;
		break;
	case CLI_STR:
		*(const char **)o->dst = v;
		break;
	case CLI_U64:
	case CLI_U32:
	case CLI_CPUS:
		if (o->kind == CLI_CPUS) {
			max = CLI_CPUS_MAX;
			x = 1;
		} else {
			max = o->max ? o->max : o->kind == CLI_U32 ? UINT32_MAX : UINT64_MAX;
			x = o->min;
		}
		{
			uint64_t val;
			if (trace_parse_u64(v, max, &val) || val < x)
				return cli_usage(cmd, "%s: '%s' is not an integer in "
				                 "%" PRIu64 "..%" PRIu64, shown, v, x, max);
			if (o->kind == CLI_U64)
				*(uint64_t *)o->dst = val;
			else
				*(uint32_t *)o->dst = (uint32_t)val;
		}
		break;
	case CLI_TIME:
		if (cli_time_parse(v, (struct cli_time *)o->dst))
			return cli_usage(cmd, "%s: '%s' is not a time (an integer "
			                 "in trace units below 2^62, or a number with a "
			                 "unit: 4us, 0.5ms, 10ns, 1s)", shown, v);
		((struct cli_time *)o->dst)->name = o->name;
		break;
	case CLI_SECONDS:
		if (cli_parse_seconds(v, o->dst))
			return cli_usage(cmd, "%s: '%s' is not a non-negative number "
			                 "of seconds", shown, v);
		break;
	case CLI_CHOICE: {
		int i;
		for (i = 0; o->choices[i]; i++)
			if (strcmp(o->choices[i], v) == 0)
				break;
		if (!o->choices[i]) {
			char list[256] = "";
			size_t p = 0;
			for (int j = 0; o->choices[j] && p < sizeof list; j++)
				p += (size_t)snprintf(list + p, sizeof list - p, "%s%s",
				                      j ? ", " : "", o->choices[j]);
			return cli_usage(cmd, "%s: '%s' is not one of %s", shown, v, list);
		}
		*(int *)o->dst = i;
		break;
	}
	case CLI_FUNC:
		if (o->fn(o->dst, v, why, sizeof why))
			return cli_usage(cmd, "%s: '%s' %s", shown, v, why);
		break;
	default:
		break;
	}
	o->given++;
	return 0;
}

static int version(const struct cli_cmd *cmd)
{
	printf("%s (shadowbind) %s\n", cmd->name, CLI_VERSION);
	return CLI_OK;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, int *noperands)
{
	int nops = 0, only_ops = 0;
	*noperands = 0;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (only_ops || a[0] != '-' || a[1] == 0) {
			argv[1 + nops++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_ops = 1;
			continue;
		}
		if (a[1] == '-') {
			char name[128];
			const char *eq = strchr(a + 2, '=');
			size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (nl >= sizeof name) {
				char q[64];
				return cli_usage(cmd, "unknown option '%s'",
				                 cli_quote(a, strlen(a), q, sizeof q));
			}
			memcpy(name, a + 2, nl);
			name[nl] = 0;
			if (!eq && strcmp(name, "help") == 0) {
				cli_help(cmd, stdout);
				return CLI_OK;
			}
			if (!eq && strcmp(name, "version") == 0)
				return version(cmd);
			struct cli_opt *o = cli_find(cmd, name);
			if (o && o->kind <= CLI_TEXT)
				o = NULL;
			char shown[140];
			snprintf(shown, sizeof shown, "--%s", name);
			if (!o && cmd->other) {
				const char *v = eq ? eq + 1 : NULL;
				if (!v) {
					if (i + 1 >= argc)
						return cli_usage(cmd, "option '%s' needs a value", shown);
					v = argv[++i];
				}
				char why[256] = "";
				if (cmd->other(cmd->other_arg, name, v, why, sizeof why))
					return cli_usage(cmd, "%s: %s", shown, why);
				continue;
			}
			if (!o) {
				char q[160];
				return cli_usage(cmd, "unknown option '%s'",
				                 cli_quote(shown, strlen(shown), q, sizeof q));
			}
			const char *v = NULL;
			if (takes_value(o)) {
				if (eq)
					v = eq + 1;
				else if (i + 1 < argc)
					v = argv[++i];
				else
					return cli_usage(cmd, "option '%s' needs a value", shown);
			} else if (eq) {
				return cli_usage(cmd, "option '%s' takes no value", shown);
			}
			int rc = store(cmd, o, v, shown);
			if (rc)
				return rc;
			continue;
		}
		/* -x, -xVALUE, -abc (flags) */
		for (char *p = a + 1; *p; p++) {
			if (*p == 'h') {
				cli_help(cmd, stdout);
				return CLI_OK;
			}
			struct cli_opt *o = find_short(cmd, *p);
			char shown[8];
			snprintf(shown, sizeof shown, "-%c", *p);
			if (!o) {
				char q[32];
				return cli_usage(cmd, "unknown option '%s'",
				                 cli_quote(shown, strlen(shown), q, sizeof q));
			}
			if (!takes_value(o)) {
				int rc = store(cmd, o, NULL, shown);
				if (rc)
					return rc;
				continue;
			}
			const char *v = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				return cli_usage(cmd, "option '%s' needs a value", shown);
			int rc = store(cmd, o, v, shown);
			if (rc)
				return rc;
			break;
		}
	}
	*noperands = nops;
	return CLI_CONTINUE;
}

/* ---------------------------------------------------------------------
 * --help
 */

#define HELP_COL 24

static void help_lines(FILE *f, const char *text, int col)
{
	int first = 1;
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		int n = nl ? (int)(nl - text) : (int)strlen(text);
		if (!first)
			fprintf(f, "%*s", col, "");
		fprintf(f, "%.*s\n", n, text);
		first = 0;
		text = nl ? nl + 1 : NULL;
	}
	if (first)
		fputc('\n', f);
}

void cli_help(const struct cli_cmd *cmd, FILE *f)
{
	const char *u = cmd->usage;
	int first = 1;
	while (u && *u) {
		const char *nl = strchr(u, '\n');
		int n = nl ? (int)(nl - u) : (int)strlen(u);
		fprintf(f, "%s %s %.*s\n", first ? "usage:" : "      ", cmd->name, n, u);
		first = 0;
		u = nl ? nl + 1 : NULL;
	}
	if (cmd->about)
		fprintf(f, "\n%s\n", cmd->about);
	int grouped = 0;
	for (const struct cli_opt *o = cmd->opts; o && o->kind != CLI_END; o++) {
		if (o->kind == CLI_SKIP)
			continue;
		if (o->kind == CLI_GROUP) {
			fprintf(f, "\n%s:\n", o->help);
			grouped = 1;
			continue;
		}
		if (o->kind == CLI_TEXT) {
			fprintf(f, "%*s", HELP_COL, "");
			help_lines(f, o->help, HELP_COL);
			continue;
		}
		if (!grouped) {
			fputs("\nOptions:\n", f);
			grouped = 1;
		}
		char head[96];
		int n;
		if (o->short_name)
			n = snprintf(head, sizeof head, "  -%c, --%s", o->short_name, o->name);
		else
			n = snprintf(head, sizeof head, "      --%s", o->name);
		if (takes_value(o) && n >= 0 && (size_t)n < sizeof head)
			snprintf(head + n, sizeof head - (size_t)n, " %s", metavar(o));
		if (strlen(head) + 2 > HELP_COL)
			fprintf(f, "%s\n%*s", head, HELP_COL, "");
		else
			fprintf(f, "%-*s", HELP_COL, head);
		help_lines(f, o->help, HELP_COL);
	}
	fprintf(f, "  -h, --help            this text\n"
	           "      --version         the version\n");
	if (cmd->epilog)
		fprintf(f, "\n%s\n", cmd->epilog);
	if (cmd->exits) {
		fprintf(f, "\nExit status:\n%s\n", cmd->exits);
		return;
	}
	fprintf(f, "\nExit status:\n"
	           "  0    ok\n"
	           "  1    usage error\n"
	           "  2    bad input, or an output that cannot be written\n");
	if (cmd->exit3) {
		fputs("  3    ", f);
		help_lines(f, cmd->exit3, 7);
	}
	fprintf(f, "  4    out of memory or system error\n"
	           "  130  interrupted (SIGINT); 143 terminated (SIGTERM)\n");
}

/* ---------------------------------------------------------------------
 * Inputs
 */

const char *cli_input_name(const char *path)
{
	return path && strcmp(path, "-") == 0 ? "<stdin>" : path ? path : "(null)";
}
