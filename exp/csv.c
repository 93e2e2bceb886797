/* csv.c - the experiment's CSV: resuming from an existing one, appending
 * a job's rows durably, rewriting it in job order atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp.h"

int exp_append(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, text, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		text += w;
		len -= (size_t)w;
	}
	return fsync(fd);
}

static int slurp(const char *path, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			break;
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			buf = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf)
		return -1;
	*out = buf;
	*len = n;
	return 0;
}

int exp_csv_resume(const char *path, const struct exp_spec *s,
                   const struct exp_jobs *j, char *done, char **store,
                   char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int r = slurp(path, &buf, &len);
	if (r == 1)
		return EXP_OK;
	if (r < 0) {
		snprintf(err, errlen, "%s: cannot read", path);
		return EXP_EIO;
	}
	const char *h = exp_csv_header();
	size_t hl = strlen(h);
	int rc = EXP_OK;
	size_t *count = NULL;
	if (len == 0)
		goto out;
	if (len < hl || memcmp(buf, h, hl) != 0) {
		/* A torn header (an interrupted first write) is no data. */
		if (len < hl && memcmp(buf, h, len) == 0)
			goto out;
		snprintf(err, errlen,
		         "%s:1: not this tool's CSV header; move the file away",
		         path);
		rc = EXP_EINVAL;
		goto out;
	}
	count = calloc(j->njobs ? j->njobs : 1, sizeof *count);
	size_t *start = calloc(j->njobs ? j->njobs : 1, sizeof *start);
	size_t *bytes = calloc(j->njobs ? j->njobs : 1, sizeof *bytes);
	if (!count || !start || !bytes) {
		free(start);
		free(bytes);
		snprintf(err, errlen, "out of memory");
		rc = EXP_ENOMEM;
		goto out;
	}
	/* Pass 1: count complete lines per job and check their keys. */
	size_t pos = hl;
	unsigned line = 1;
	while (pos < len && !rc) {
		char *nl = memchr(buf + pos, '\n', len - pos);
		if (!nl)
			break; /* torn last line */
		line++;
		char *a = buf + pos;
		size_t l = (size_t)(nl - a);
		uint64_t job = 0;
		size_t i = 0;
		while (i < l && a[i] >= '0' && a[i] <= '9' && job < (1ull << 60))
			job = job * 10 + (uint64_t)(a[i++] - '0');
		if (i == 0 || i >= l || a[i] != ',' || job >= j->njobs) {
			snprintf(err, errlen,
			         "%s:%u: not a row of this experiment (job out of "
			         "range); move the file away", path, line);
			rc = EXP_EINVAL;
			break;
		}
		char ka[640], kb[256];
		exp_row_key(s, j, (size_t)job, ka, sizeof ka, kb, sizeof kb);
		size_t la = strlen(ka), lb = strlen(kb);
		const char *c = la <= l ? memchr(a + la, ',', l - la) : NULL;
		if (la > l || memcmp(a, ka, la) != 0 || !c ||
		    (size_t)(a + l - (c + 1)) < lb || memcmp(c + 1, kb, lb) != 0) {
			snprintf(err, errlen,
			         "%s:%u: the row does not match the experiment "
			         "file (edited since?); move the CSV away", path,
			         line);
			rc = EXP_EINVAL;
			break;
		}
		if (count[job] == 0)
			start[job] = pos;
		/* A job's rows are contiguous (one write). */
		if (count[job] && start[job] + bytes[job] != pos)
			count[job] = j->rows_per_job + 1; /* spoilt: redo */
		else
			bytes[job] += l + 1;
		count[job]++;
		pos += l + 1;
	}
	for (size_t k = 0; !rc && k < j->njobs; k++) {
		if (count[k] != j->rows_per_job)
			continue;
		store[k] = malloc(bytes[k] + 1);
		if (!store[k]) {
			snprintf(err, errlen, "out of memory");
			rc = EXP_ENOMEM;
			break;
		}
		memcpy(store[k], buf + start[k], bytes[k]);
		store[k][bytes[k]] = 0;
		done[k] = 1;
	}
	free(start);
	free(bytes);
out:
	free(count);
	free(buf);
	return rc;
}

int exp_csv_write_all(const char *path, const struct exp_jobs *j,
                      char *const *store, char *err, size_t errlen)
{
	size_t pl = strlen(path);
	char *tmp = malloc(pl + 8);
	if (!tmp) {
		snprintf(err, errlen, "out of memory");
		return EXP_ENOMEM;
	}
	sprintf(tmp, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create", tmp);
		free(tmp);
		return EXP_EIO;
	}
	/* Whole file in one buffer of bounded size: write in chunks. */
	const char *h = exp_csv_header();
	int bad = write(fd, h, strlen(h)) != (ssize_t)strlen(h);
	for (size_t k = 0; !bad && k < j->njobs; k++) {
		if (!store[k])
			continue;
		size_t l = strlen(store[k]);
		const char *p = store[k];
		while (l > 0) {
			ssize_t w = write(fd, p, l);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				bad = 1;
				break;
			}
			p += w;
			l -= (size_t)w;
		}
	}
	if (!bad && fsync(fd) != 0)
		bad = 1;
	if (close(fd) != 0)
		bad = 1;
	if (bad || rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: cannot write", path);
		unlink(tmp);
		free(tmp);
		return EXP_EIO;
	}
	free(tmp);
	return EXP_OK;
}
