/*
 * json.h - one streaming JSON writer for every command's --json (and
 * viz's timeline).  It writes as it goes (no tree in memory), tracks
 * commas and nesting itself, and always emits valid JSON (RFC 8259):
 *
 *   - strings: '"' and '\' escaped, control bytes (< 0x20) and 0x7f as
 *     \n, \t, \r, \b, \f or \u00XX; valid UTF-8 passes through unchanged;
 *     every byte that is not part of a valid UTF-8 sequence (a stray
 *     continuation byte, a truncated or overlong sequence, a surrogate,
 *     a code point above U+10FFFF) is written as \u00XX, XX its value:
 *     the byte read as Latin-1.  So a thread named "caf\xe9" (Latin-1)
 *     comes out as "caf\u00e9" = "café"; nothing is dropped and the output
 *     always parses.  (A consumer cannot tell such a byte from a genuine
 *     U+0080..U+00FF character; traces are specified as UTF-8.)
 *   - numbers: integers exactly; doubles with 17 significant digits, and
 *     NaN or infinities as null (JSON has none); cli_json_number writes a
 *     decimal text as a number if it is a valid JSON number, else as a
 *     string.
 *
 *   struct cli_json j;
 *   cli_json_init(&j, stdout);
 *   cli_json_object(&j);
 *   cli_json_key(&j, "makespan"); cli_json_u64(&j, 2050);
 *   cli_json_key(&j, "threads"); cli_json_array(&j);
 *   ...  cli_json_end(&j);
 *   cli_json_end(&j);           (closes the object, writes a newline)
 *   if (cli_json_error(&j)) ... (an output error: errno-style code)
 *
 * Layout: `{"a": 1, "b": [1, 2], "c": [` with each object or array that
 * is an element of an array on a line of its own, indented by depth; one
 * newline after the top-level value.
 * Misuse (a value where a key is due, nesting deeper than CLI_JSON_DEPTH,
 * end without begin) is not checked beyond keeping memory safe.
 */
#ifndef SHADOWBIND_CLI_JSON_H
#define SHADOWBIND_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_JSON_DEPTH 32

struct cli_json {
	FILE *f;
	int depth;
	unsigned char count[CLI_JSON_DEPTH]; /* values so far at each level (capped) */
	unsigned char is_array[CLI_JSON_DEPTH]; /* 0 object, 1 array, 2 array
	                                           with elements on lines  */
	int after_key;
};

void cli_json_init(struct cli_json *j, FILE *f);
void cli_json_object(struct cli_json *j);
void cli_json_array(struct cli_json *j);
/* Close the innermost object or array; at depth 0 also writes "\n". */
void cli_json_end(struct cli_json *j);
void cli_json_key(struct cli_json *j, const char *key);
void cli_json_str(struct cli_json *j, const char *s); /* NULL: null */
void cli_json_strn(struct cli_json *j, const char *s, size_t n);
void cli_json_u64(struct cli_json *j, uint64_t v);
void cli_json_i64(struct cli_json *j, int64_t v);
void cli_json_double(struct cli_json *j, double v);
void cli_json_bool(struct cli_json *j, int v);
void cli_json_null(struct cli_json *j);
void cli_json_number(struct cli_json *j, const char *decimal);
/* 0, or the errno of the first output error (EIO if unknown). */
int cli_json_error(const struct cli_json *j);

/* cli_json_escape - the string s[0..n) escaped as above (without the
 * quotes) to f.  For writers that lay out JSON themselves. */
void cli_json_escape(FILE *f, const char *s, size_t n);

#endif
