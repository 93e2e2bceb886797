/*
 * rp_env.c - what both preload libraries (libshadowbind-record.so and
 * libshadowbind-run.so) need of their process: a message on stderr
 * without stdio, and the environment cleaned of their own variables.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/preload/rp.h"

void rp_say(const char *a, const char *b, const char *c)
{
	const char *s[3] = { a, b, c };
	for (int i = 0; i < 3; i++)
		if (s[i] && write(2, s[i], strlen(s[i])) < 0)
			return;
}

void rp_env_clean(void)
{
	const char *lp = getenv("LD_PRELOAD");
	if (lp && strstr(lp, "libshadowbind-")) {
		char buf[8192];
		size_t k = 0;
		const char *p = lp;
		while (*p) {
			const char *e = p + strcspn(p, ": ");
			size_t len = (size_t)(e - p);
			int ours = memmem(p, len, "libshadowbind-", 14) != NULL;
			if (len && !ours && k + len + 2 < sizeof buf) {
				if (k)
					buf[k++] = ':';
				memcpy(buf + k, p, len);
				k += len;
			}
			p = *e ? e + 1 : e;
		}
		buf[k] = 0;
		if (k)
			setenv("LD_PRELOAD", buf, 1);
		else
			unsetenv("LD_PRELOAD");
	}
	unsetenv("SHADOWBIND_TRACE");
	unsetenv("SHADOWBIND_PIN");
	unsetenv("SHADOWBIND_MODE");
	unsetenv("SHADOWBIND_BUFFER");
	unsetenv("SHADOWBIND_SPOOL_AHEAD");
}
