/* input.c - reading a command's inputs with the same messages everywhere
 * (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

int cli_trace_load(const char *path, struct trace **out, char *why, size_t len)
{
	struct trace_error err;
	*out = NULL;
	if (trace_read_file(path, out, &err) != 0) {
		snprintf(why, len, "%s", err.msg);
		return CLI_EINPUT;
	}
	return CLI_OK;
}

int cli_slurp(const char *path, char **buf, size_t *n, char *why, size_t len)
{
	const char *name = cli_input_name(path);
	int std = strcmp(path, "-") == 0;
	*buf = NULL;
	*n = 0;
	int fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: cannot open: %s", name, strerror(errno));
		return CLI_EINPUT;
	}
	size_t cap = 1 << 16, got = 0;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 1;
	char *b = malloc(cap + 1);
	int rc = CLI_OK;
	for (;;) {
		if (!b) {
			snprintf(why, len, "%s: out of memory", name);
			rc = CLI_ESYSTEM;
			break;
		}
		if (got == cap) {
			if (cap > SIZE_MAX / 2 - 1) {
				free(b);
				b = NULL;
				continue;
			}
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				continue;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t k = read(fd, b + got, cap - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			snprintf(why, len, "%s: cannot read: %s", name, strerror(errno));
			rc = CLI_EINPUT;
			break;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	if (!std)
		close(fd);
	if (rc != CLI_OK) {
		free(b);
		return rc;
	}
	b[got] = 0;
	*buf = b;
	*n = got;
	return CLI_OK;
}
