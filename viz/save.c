/*
 * save.c - the files of `simulate --timeline/--svg` (through cli/out.h:
 * a temporary renamed into place, never a partial file), and `allocate
 * --explain`.
 */
#include <errno.h>
#include <string.h>

#include "cli/out.h"
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
	struct cli_out out;
	if (cli_out_open(&out, path, why, len) != 0)
		return VIZ_EIO;
	int rc = fn(s, cp, out.f);
	if (rc != VIZ_OK) {
		int e = errno;
		cli_out_abort(&out);
		if (rc == VIZ_ENOMEM)
			snprintf(why, len, "%s: out of memory", path);
		else
			snprintf(why, len, "%s: cannot write: %s", path, strerror(e ? e : EIO));
		return rc;
	}
	if (cli_out_commit(&out, why, len) != 0)
		return VIZ_EIO;
	return VIZ_OK;
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
	if (rc == VIZ_OK && svg) {
		rc = save(svg, w_svg, s, cp, why, len);
		viz_fonts_release();
	}
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
