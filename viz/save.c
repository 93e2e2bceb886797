/*
 * save.c - the files of `simulate --timeline/--svg`: written to a
 * temporary in the same directory and renamed, never left partial.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "viz/vizint.h"

typedef int (*writer)(const struct viz_sched *s, const struct viz_path *cp, FILE *f);

static int w_timeline(const struct viz_sched *s, const struct viz_path *cp, FILE *f)
{
	(void)cp;
	return viz_timeline_write(s, f);
}

static int w_svg(const struct viz_sched *s, const struct viz_path *cp, FILE *f)
{
	return viz_svg_write(s, cp, NULL, f);
}

static int save(const char *path, writer fn, const struct viz_sched *s, const struct viz_path *cp,
                char *why, size_t len)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp) {
		snprintf(why, len, "%s: out of memory", path);
		return VIZ_ENOMEM;
	}
	memcpy(tmp, path, n);
	memcpy(tmp + n, ".tmp.XXXXXX", 12);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, len, "%s: cannot write: %s", path, strerror(errno));
		free(tmp);
		return VIZ_EIO;
	}
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		/* keep the private mode */
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		snprintf(why, len, "%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return VIZ_EIO;
	}
	int rc = fn(s, cp, f);
	int e = errno;
	if (fclose(f) != 0 && rc == VIZ_OK) {
		rc = VIZ_EIO;
		e = errno;
	}
	if (rc == VIZ_OK && rename(tmp, path) != 0) {
		rc = VIZ_EIO;
		e = errno;
	}
	if (rc != VIZ_OK) {
		unlink(tmp);
		if (rc == VIZ_ENOMEM)
			snprintf(why, len, "%s: out of memory", path);
		else
			snprintf(why, len, "%s: cannot write: %s", path, strerror(e));
	}
	free(tmp);
	return rc;
}

int viz_save_run(const struct sim_program *p, const struct sim_params *par,
                 const int32_t *binding, const struct sim_result *res,
                 const char *timeline, const char *svg, char *why, size_t len)
{
	struct viz_sched *s = NULL;
	struct viz_path *cp = NULL;
	int rc = viz_sched_new(p, par, binding, res, &s);
	if (rc == VIZ_OK && svg)
		rc = viz_critical(s, &cp);
	if (rc != VIZ_OK) {
		snprintf(why, len, "%s: %s", timeline ? timeline : svg,
		         rc == VIZ_ENOMEM ? "out of memory" : "no schedule to draw");
	}
	if (rc == VIZ_OK && timeline)
		rc = save(timeline, w_timeline, s, cp, why, len);
	if (rc == VIZ_OK && svg)
		rc = save(svg, w_svg, s, cp, why, len);
	viz_path_free(cp);
	viz_sched_free(s);
	return rc;
}

int viz_explain_binding(const struct sim_program *p, const struct sim_params *par,
                        const int32_t *binding, enum sim_model model, unsigned top, FILE *f)
{
	struct sim_params pp = *par;
	pp.model = model;
	struct sim_work *w = sim_work_new(p);
	if (!w)
		return VIZ_ENOMEM;
	struct sim_result res;
	int st = sim_run(p, w, &pp, binding, SIM_STATS | SIM_SCHEDULE, &res);
	int rc = st == SIM_OK ? VIZ_OK : st == SIM_ENOMEM ? VIZ_ENOMEM : VIZ_ESIM;
	struct viz_sched *s = NULL;
	struct viz_path *cp = NULL;
	if (rc == VIZ_OK)
		rc = viz_sched_new(p, &pp, binding, &res, &s);
	if (rc == VIZ_OK)
		rc = viz_critical(s, &cp);
	if (rc == VIZ_OK)
		rc = viz_explain_print(s, cp, top, f);
	viz_path_free(cp);
	viz_sched_free(s);
	sim_work_free(w);
	return rc;
}
