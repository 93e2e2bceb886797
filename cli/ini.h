/*
 * ini.h - a small strict INI reader (allocate --config, and any command's
 * settings file).  Ours rather than iniparser's, so that every error
 * names the true line, nothing hostile reaches the terminal, and typos do
 * not pass silently.
 *
 * The language, line by line (LF or CRLF ends a line; any length):
 *
 *   blank, or first non-blank ';' or '#'   a comment
 *   [section]                              starts a section; blanks
 *                                          around the name are ignored;
 *                                          a comment may follow the ']'
 *   key = value                            in the current section; blanks
 *                                          around key and value are
 *                                          ignored; the value ends at a
 *                                          ';' or '#' that follows a
 *                                          blank (an inline comment); a
 *                                          value in double quotes is
 *                                          taken as is ("a ; b"), without
 *                                          escapes; the value may be empty
 *
 * Names (sections and keys): letters, digits, '_', '-', '.', case
 * sensitive.  Errors (one line, "FILE:LINE: reason", every byte of the
 * file's text shown through cli_quote, so control and non-UTF-8 bytes
 * appear as \xHH):
 *   - a line that is none of the above (syntax error, with its text);
 *   - a key before any section;
 *   - a section that appears twice, a key that appears twice in its
 *     section (naming the first line), unless CLI_INI_REPEATS;
 *   - a NUL byte.
 *
 * No global state; the parsed structure owns its memory.
 */
#ifndef SHADOWBIND_CLI_INI_H
#define SHADOWBIND_CLI_INI_H

#include <stddef.h>
#include <stdint.h>

struct cli_ini_entry {
	const char *section; /* the section's name                     */
	const char *key;     /* NULL for the entry of a [section] line  */
	const char *value;   /* NULL for a [section] line               */
	size_t line;         /* 1-based line number in the file         */
};

struct cli_ini {
	char *name;                  /* file name for messages (owned)  */
	struct cli_ini_entry *e;     /* [n] in file order               */
	size_t n;
	char *pool;                  /* the strings (owned)             */
};

/*
 * cli_ini_parse - parse len bytes at buf (need not be NUL-terminated);
 * `name` is used in messages.  Returns 0 and fills *out (release with
 * cli_ini_release); or -1 with *out zeroed and one line in why.  Any
 * bytes: never crashes; memory linear in len, time O(len + k log k) for
 * k entries.
 */
int cli_ini_parse(const char *name, const char *buf, size_t len,
                  struct cli_ini *out, char *why, size_t whylen);

/*
 * cli_ini_parse_flags - cli_ini_parse with flags (0: the same):
 *   CLI_INI_REPEATS  a section or a key may appear more than once (no
 *                    "repeated" error); every occurrence is an entry, in
 *                    file order, so that the caller can read repeatable
 *                    keys (exp's `line` of [plot.NAME]); cli_ini_get
 *                    returns the first.
 */
enum { CLI_INI_REPEATS = 1 };
int cli_ini_parse_flags(const char *name, const char *buf, size_t len,
                        unsigned flags, struct cli_ini *out, char *why,
                        size_t whylen);

/* cli_ini_read - the same for the file at path (cli_slurp's messages). */
int cli_ini_read(const char *path, struct cli_ini *out, char *why, size_t whylen);

/* cli_ini_release - free what *ini owns and zero it; accepts zeroed. */
void cli_ini_release(struct cli_ini *ini);

/* cli_ini_get - the entry of key `key` in section `section`, or NULL. */
const struct cli_ini_entry *cli_ini_get(const struct cli_ini *ini,
                                        const char *section, const char *key);

#endif
