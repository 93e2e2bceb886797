/*
 * svg.c - the charts of Paper I through cairo's SVG surface: the execution
 * flow graph (threads as rows) above the parallelism graph (threads
 * running and ready over time), one time axis for both.
 *
 * Bounded output: time is sampled in `width` pixel columns; per row and
 * column the time each state takes is accumulated, quantized to a few
 * levels of the row's height, and equal neighbouring columns are merged
 * into one rectangle, all rectangles of one colour in one path.  So the
 * file holds at most 3 x rows x columns rectangles (plus one area path,
 * at most SYNC_MAX arrows and the labels) whatever the number of records.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>

#include "viz/vizint.h"

#define SYNC_MAX 1500   /* arrows drawn at most (more: only the critical path's) */
#define LEFT 170.0      /* px: row labels                                   */
#define RIGHT 30.0
#define FLOW_MAX_H 640.0
#define PAR_H 200.0

static const double colour[VIZ_NSTATES][3] = {
	[VIZ_S_RUN] = {0.18, 0.62, 0.29},     /* running: green (Paper I) */
	[VIZ_S_READY] = {0.94, 0.60, 0.15},   /* ready: orange            */
	[VIZ_S_BLOCKED] = {0.80, 0.80, 0.80}, /* blocked: light grey      */
};

struct grid {
	unsigned rows, cols;
	double t0, dt;        /* trace units per column                  */
	double *acc;          /* [rows][cols][NSTATES] trace units       */
};

static void span(struct grid *g, unsigned row, uint64_t from, uint64_t to, int st, double sign)
{
	if (to <= from)
		return;
	double a = (double)from / g->dt, b = (double)to / g->dt;
	long ca = (long)floor(a), cb = (long)floor(b);
	if (ca >= (long)g->cols)
		return;
	if (cb >= (long)g->cols) {
		cb = g->cols - 1;
		b = (double)g->cols;
	}
	double *r = g->acc + (size_t)row * g->cols * VIZ_NSTATES;
	if (ca == cb) {
		r[ca * VIZ_NSTATES + st] += sign * (b - a) * g->dt;
		return;
	}
	r[ca * VIZ_NSTATES + st] += sign * ((double)(ca + 1) - a) * g->dt;
	for (long c = ca + 1; c < cb; c++)
		r[c * VIZ_NSTATES + st] += sign * g->dt;
	r[cb * VIZ_NSTATES + st] += sign * (b - (double)cb) * g->dt;
}

/* A run interval: under ps the thread runs its share of each column and
 * is ready (sharing) the rest. */
static void span_run(struct grid *g, const struct viz_sched *s, unsigned row, const struct viz_iv *iv)
{
	if (!s->vg) {
		span(g, row, iv->from, iv->to, VIZ_S_RUN, 1);
		span(g, row, iv->from, iv->to, VIZ_S_READY, -1);
		return;
	}
	double a = (double)iv->from, b = (double)iv->to;
	long ca = (long)floor(a / g->dt), cb = (long)floor(b / g->dt);
	if (cb >= (long)g->cols)
		cb = g->cols - 1;
	double *r = g->acc + (size_t)row * g->cols * VIZ_NSTATES;
	for (long c = ca; c <= cb && c < (long)g->cols; c++) {
		double x0 = c * g->dt > a ? c * g->dt : a, x1 = (c + 1) * g->dt < b ? (c + 1) * g->dt : b;
		if (x1 <= x0)
			continue;
		double run = viz_progress(s, iv, x0, x1);
		if (run > x1 - x0)
			run = x1 - x0;
		r[c * VIZ_NSTATES + VIZ_S_RUN] += run;
		r[c * VIZ_NSTATES + VIZ_S_READY] -= run; /* alive was counted ready */
	}
}

static cairo_status_t write_fn(void *closure, const unsigned char *data, unsigned int len)
{
	FILE *f = closure;
	return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* 1, 2, 5 x 10^k >= x */
static double nice(double x)
{
	if (x <= 0)
		return 1;
	double e = pow(10, floor(log10(x)));
	double m = x / e;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
}

static void text(cairo_t *cr, double x, double y, double size, int align, const char *s)
{
	cairo_text_extents_t e;
	cairo_set_font_size(cr, size);
	cairo_text_extents(cr, s, &e);
	double dx = align == 0 ? 0 : align == 1 ? -e.x_advance / 2 : -e.x_advance;
	cairo_move_to(cr, x + dx, y);
	cairo_show_text(cr, s);
}

static void arrow(cairo_t *cr, double x0, double y0, double x1, double y1)
{
	cairo_move_to(cr, x0, y0);
	cairo_line_to(cr, x1, y1);
	cairo_stroke(cr);
	double ang = atan2(y1 - y0, x1 - x0), h = 5;
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x1 - h * cos(ang - 0.45), y1 - h * sin(ang - 0.45));
	cairo_line_to(cr, x1 - h * cos(ang + 0.45), y1 - h * sin(ang + 0.45));
	cairo_close_path(cr);
	cairo_fill(cr);
}

int viz_svg_write(const struct viz_sched *s, const struct viz_path *cp,
                  const struct viz_svg_opts *o, FILE *f)
{
	const struct trace *tr = s->tr;
	unsigned cols = o && o->width ? o->width : 1000;
	unsigned maxr = o && o->max_rows ? o->max_rows : 80;
	if (cols < 100)
		cols = 100;
	if (cols > 4000)
		cols = 4000;
	if (maxr > 400)
		maxr = 400;
	uint32_t n = tr->nthreads ? tr->nthreads : 1;
	unsigned per = (n + maxr - 1) / maxr;     /* threads per row */
	unsigned rows = (n + per - 1) / per;
	uint64_t span_t = s->makespan ? s->makespan : 1;
	struct grid g = {rows, cols, 0, (double)span_t / cols, NULL};
	g.acc = calloc((size_t)rows * cols * VIZ_NSTATES, sizeof *g.acc);
	if (!g.acc)
		return VIZ_ENOMEM;
	/* alive = ready, minus running, minus blocked */
	for (uint32_t u = 0; u < tr->nthreads; u++) {
		unsigned row = u / per;
		span(&g, row, s->tstart[u], s->tend[u], VIZ_S_READY, 1);
		for (size_t i = s->iv_first[u]; i < s->iv_first[u + 1]; i++)
			span_run(&g, s, row, &s->iv[i]);
		const struct trace_thread *th = &tr->threads[u];
		for (uint32_t k = 0; k + 1 < th->nrec; k++) {
			const struct viz_rec_times *t = &s->rt[th->first + k];
			if (t->ready > t->op) {
				span(&g, row, t->op, t->ready, VIZ_S_BLOCKED, 1);
				span(&g, row, t->op, t->ready, VIZ_S_READY, -1);
			}
		}
	}
	double rh = FLOW_MAX_H / rows;
	if (rh > 18)
		rh = 18;
	if (rh < 3)
		rh = 3;
	double pw = cols, flow_h = rh * rows;
	double top = 80, flow_y = top, par_y = flow_y + flow_h + 40;
	double W = LEFT + pw + RIGHT, H = par_y + PAR_H + 60;
	cairo_surface_t *sf = cairo_svg_surface_create_for_stream(write_fn, f, W, H);
	cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PX);
	cairo_t *cr = cairo_create(sf);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);

	/* title and legend */
	char buf[256], pol[32];
	const char *unit = trace_unit_name(tr->unit);
	sim_policy_format(&s->par, pol, sizeof pol);
	if (o && o->title)
		snprintf(buf, sizeof buf, "%s", o->title);
	else if (s->par.mode == SIM_UNBOUND)
		snprintf(buf, sizeof buf, "predicted run: makespan %llu %s, unbound on %u processors, %s, latency %llu",
		         (unsigned long long)s->makespan, unit, s->par.cpus, pol, (unsigned long long)s->par.latency);
	else if (s->nprocs)
		snprintf(buf, sizeof buf, "predicted run: makespan %llu %s, bound on %u processors, %s, latency %llu",
		         (unsigned long long)s->makespan, unit, s->par.cpus, pol, (unsigned long long)s->par.latency);
	else
		snprintf(buf, sizeof buf, "predicted run: makespan %llu %s, one processor per thread (critical path)",
		         (unsigned long long)s->makespan, unit);
	cairo_set_source_rgb(cr, 0, 0, 0);
	text(cr, 10, 20, 14, 0, buf);
	{
		static const char *const lab[VIZ_NSTATES] = {"running", "ready (waiting for or sharing a processor)",
		                                              "blocked (synchronization, latency, sleep)"};
		double x = 10;
		for (int st = 0; st < VIZ_NSTATES; st++) {
			cairo_set_source_rgb(cr, colour[st][0], colour[st][1], colour[st][2]);
			cairo_rectangle(cr, x, 32, 12, 10);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, 0, 0, 0);
			cairo_text_extents_t e;
			cairo_set_font_size(cr, 11);
			cairo_text_extents(cr, lab[st], &e);
			text(cr, x + 16, 41, 11, 0, lab[st]);
			x += 16 + e.x_advance + 18;
		}
		cairo_set_source_rgb(cr, 0.1, 0.2, 0.7);
		arrow(cr, x, 37, x + 20, 37);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, x + 24, 41, 11, 0, "release -> released");
		x += 150;
		if (cp) {
			cairo_set_line_width(cr, 3);
			cairo_move_to(cr, x, 37);
			cairo_line_to(cr, x + 20, 37);
			cairo_stroke(cr);
			text(cr, x + 24, 41, 11, 0, "critical path");
		}
		cairo_set_line_width(cr, 1);
		if (per > 1) {
			snprintf(buf, sizeof buf, "%u threads, %u per row (colour heights: share of the row's threads)", tr->nthreads, per);
			text(cr, 10, 58, 11, 0, buf);
		}
	}

	/* execution flow graph: one path per colour */
	unsigned levels = rh >= 16 ? 8 : rh >= 8 ? 4 : 2;
	if (per == 1)
		levels = rh >= 8 ? 4 : 2;
	for (int st = 0; st < VIZ_NSTATES; st++) {
		cairo_set_source_rgb(cr, colour[st][0], colour[st][1], colour[st][2]);
		for (unsigned row = 0; row < rows; row++) {
			const double *r = g.acc + (size_t)row * cols * VIZ_NSTATES;
			unsigned nth = (row + 1) * per <= n ? per : n - row * per;
			double full = g.dt * nth;
			int prev_lo = -1, prev_hi = -1;
			unsigned start = 0;
			for (unsigned c = 0; c <= cols; c++) {
				int lo = 0, hi = 0;
				if (c < cols) {
					/* stacked: running at the bottom, then ready, blocked */
					double below = 0;
					for (int q = 0; q < st; q++)
						below += r[c * VIZ_NSTATES + q] > 0 ? r[c * VIZ_NSTATES + q] : 0;
					double me = r[c * VIZ_NSTATES + st] > 0 ? r[c * VIZ_NSTATES + st] : 0;
					lo = (int)lround(below / full * levels);
					hi = (int)lround((below + me) / full * levels);
					if (hi > (int)levels)
						hi = levels;
					if (me > 0 && hi == lo && lo < (int)levels)
						hi = lo + 1; /* visible if present */
					else if (me > 0 && hi == lo)
						lo = hi - 1;
				}
				if (c == cols || lo != prev_lo || hi != prev_hi) {
					if (c > 0 && prev_hi > prev_lo) {
						double y1 = flow_y + (row + 1) * rh - 0.5;
						double hh = (rh - 1) / levels;
						cairo_rectangle(cr, LEFT + start, y1 - prev_hi * hh, c - start,
						                (prev_hi - prev_lo) * hh);
					}
					start = c;
					prev_lo = lo;
					prev_hi = hi;
				}
			}
		}
		cairo_fill(cr);
	}
	/* row labels */
	cairo_set_source_rgb(cr, 0, 0, 0);
	double fs = rh >= 12 ? 10 : rh >= 8 ? 8 : 7;
	unsigned step = (unsigned)ceil(9.0 / rh);
	for (unsigned row = 0; row < rows; row += step) {
		uint32_t a = row * per, b = (row + 1) * per <= n ? (row + 1) * per - 1 : n - 1;
		if (per == 1) {
			const char *nm = trace_thread_name(tr, a);
			snprintf(buf, sizeof buf, "T%u %.16s", tr->threads[a].id, nm ? nm : "");
		} else {
			snprintf(buf, sizeof buf, "T%u-T%u (%u)", tr->threads[a].id, tr->threads[b].id, b - a + 1);
		}
		text(cr, LEFT - 6, flow_y + row * rh + rh / 2 + fs / 3, fs, 2, buf);
	}
	/* frame */
	cairo_set_line_width(cr, 1);
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	cairo_rectangle(cr, LEFT, flow_y, pw, flow_h);
	cairo_stroke(cr);
	cairo_save(cr);
	cairo_rotate(cr, -M_PI / 2);
	text(cr, -(flow_y + flow_h / 2), 12, 11, 1, per == 1 ? "threads" : "threads (grouped)");
	cairo_restore(cr);

	/* synchronization arrows, and the critical path */
	double sx = pw / (double)span_t;
#define X(t) (LEFT + (double)(t) * sx)
#define ROWY(u) (flow_y + ((u) / per) * rh + rh / 2)
	size_t nsync = 0;
	for (uint32_t r = 0; r < tr->nrec; r++)
		if (s->rt[r].releaser >= 0 && s->rt[r].grant > s->rt[r].op)
			nsync++;
	if (per == 1 && nsync <= SYNC_MAX) {
		cairo_set_source_rgba(cr, 0.1, 0.2, 0.7, 0.7);
		cairo_set_line_width(cr, 0.7);
		for (uint32_t r = 0; r < tr->nrec; r++) {
			const struct viz_rec_times *t = &s->rt[r];
			if (t->releaser < 0 || t->grant <= t->op)
				continue;
			uint32_t u = s->rec_thread[r], v = (uint32_t)t->releaser;
			arrow(cr, X(t->grant), ROWY(v), X(t->ready), ROWY(u));
		}
	}
	if (cp) {
		/* the path's segments, merged per pixel column and row */
		unsigned char *on = calloc((size_t)rows * cols, 1);
		size_t jumps = 0;
		if (!on) {
			cairo_destroy(cr);
			cairo_surface_destroy(sf);
			free(g.acc);
			return VIZ_ENOMEM;
		}
		for (size_t i = 0; i < cp->n; i++) {
			const struct viz_item *it = &cp->items[i];
			if (it->kind == VIZ_RELEASE) {
				if (it->other >= 0 && (uint32_t)it->other / per != it->thread / per)
					jumps++;
				continue;
			}
			if (it->to <= it->from)
				continue;
			long c0 = (long)floor((double)it->from * sx), c1 = (long)ceil((double)it->to * sx);
			if (c1 > (long)cols)
				c1 = cols;
			for (long c = c0; c < c1; c++)
				on[(size_t)(it->thread / per) * cols + c] = 1;
		}
		cairo_set_source_rgba(cr, 0, 0, 0, 0.85);
		cairo_set_line_width(cr, rh >= 6 ? 2.5 : 1.5);
		for (unsigned row = 0; row < rows; row++) {
			for (unsigned c = 0; c < cols;) {
				if (!on[(size_t)row * cols + c]) {
					c++;
					continue;
				}
				unsigned e = c;
				while (e < cols && on[(size_t)row * cols + e])
					e++;
				double y = flow_y + row * rh + rh / 2;
				cairo_move_to(cr, LEFT + c, y);
				cairo_line_to(cr, LEFT + e, y);
				c = e;
			}
		}
		cairo_stroke(cr);
		free(on);
		if (jumps <= SYNC_MAX) {
			cairo_set_line_width(cr, 1.2);
			for (size_t i = 0; i < cp->n; i++) {
				const struct viz_item *it = &cp->items[i];
				if (it->kind == VIZ_RELEASE && it->other >= 0 &&
				    (uint32_t)it->other / per != it->thread / per)
					arrow(cr, X(it->from), ROWY((uint32_t)it->other), X(it->from), ROWY(it->thread));
			}
		} else {
			snprintf(buf, sizeof buf, "the critical path changes threads %zu times: not drawn", jumps);
			cairo_set_source_rgb(cr, 0, 0, 0);
			text(cr, LEFT + pw, 72, 11, 2, buf);
		}
		cairo_set_line_width(cr, 1);
	}
	if (per == 1 && nsync > SYNC_MAX) {
		snprintf(buf, sizeof buf, "%zu synchronizations: only the critical path's drawn", nsync);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, LEFT + pw, 58, 11, 2, buf);
	}

	/* parallelism graph */
	double *run = calloc(cols, sizeof *run), *rdy = calloc(cols, sizeof *rdy);
	if (!run || !rdy) {
		free(run);
		free(rdy);
		cairo_destroy(cr);
		cairo_surface_destroy(sf);
		free(g.acc);
		return VIZ_ENOMEM;
	}
	double ymax = 1;
	for (unsigned c = 0; c < cols; c++) {
		for (unsigned row = 0; row < rows; row++) {
			const double *r = g.acc + ((size_t)row * cols + c) * VIZ_NSTATES;
			run[c] += r[VIZ_S_RUN] > 0 ? r[VIZ_S_RUN] : 0;
			rdy[c] += r[VIZ_S_READY] > 0 ? r[VIZ_S_READY] : 0;
		}
		run[c] /= g.dt;
		rdy[c] /= g.dt;
		if (run[c] + rdy[c] > ymax)
			ymax = run[c] + rdy[c];
	}
	if (s->nprocs && s->par.cpus > ymax && s->par.cpus < 2 * ymax)
		ymax = s->par.cpus;
	double ystep = nice(ymax / 5);
	if (ystep < 1)
		ystep = 1;
	ymax = ceil(ymax / ystep) * ystep;
	double sy = PAR_H / ymax, base = par_y + PAR_H;
	for (int layer = 1; layer >= 0; layer--) {
		int st = layer ? VIZ_S_READY : VIZ_S_RUN;
		cairo_set_source_rgb(cr, colour[st][0], colour[st][1], colour[st][2]);
		cairo_move_to(cr, LEFT, base);
		for (unsigned c = 0; c < cols; c++) {
			double v = layer ? run[c] + rdy[c] : run[c];
			cairo_line_to(cr, LEFT + c, base - v * sy);
			cairo_line_to(cr, LEFT + c + 1, base - v * sy);
		}
		cairo_line_to(cr, LEFT + pw, base);
		cairo_close_path(cr);
		cairo_fill(cr);
	}
	free(run);
	free(rdy);
	cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, LEFT, par_y, pw, PAR_H);
	cairo_stroke(cr);
	for (double v = 0; v <= ymax + 1e-9; v += ystep) {
		double y = base - v * sy;
		cairo_move_to(cr, LEFT - 4, y);
		cairo_line_to(cr, LEFT, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof buf, "%g", v);
		text(cr, LEFT - 6, y + 4, 10, 2, buf);
	}
	if (s->nprocs || s->par.mode == SIM_UNBOUND) {
		double y = base - s->par.cpus * sy;
		if (y >= par_y) {
			static const double dash[] = {4, 3};
			cairo_set_dash(cr, dash, 2, 0);
			cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
			cairo_move_to(cr, LEFT, y);
			cairo_line_to(cr, LEFT + pw, y);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			snprintf(buf, sizeof buf, "%u processors", s->par.cpus);
			text(cr, LEFT + pw - 4, y - 3, 10, 2, buf);
		}
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_save(cr);
	cairo_rotate(cr, -M_PI / 2);
	text(cr, -(par_y + PAR_H / 2), 12, 11, 1, "threads running (green), ready (orange)");
	cairo_restore(cr);

	/* time axis: ticks through both graphs */
	double tstep = nice((double)span_t / 8);
	for (double t = 0; t <= (double)span_t + 1e-9; t += tstep) {
		double x = LEFT + t * sx;
		cairo_set_source_rgba(cr, 0.5, 0.5, 0.5, 0.35);
		cairo_move_to(cr, x, flow_y);
		cairo_line_to(cr, x, flow_y + flow_h);
		cairo_move_to(cr, x, par_y);
		cairo_line_to(cr, x, base + 4);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		snprintf(buf, sizeof buf, "%.10g", t);
		text(cr, x, base + 16, 10, 1, buf);
	}
	snprintf(buf, sizeof buf, "time (%s%s)", unit, tr->unit == TRACE_TICK ? ": trace units" : "");
	text(cr, LEFT + pw / 2, base + 36, 12, 1, buf);
#undef X
#undef ROWY
	cairo_destroy(cr);
	cairo_surface_finish(sf);
	cairo_status_t cs = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	free(g.acc);
	if (cs != CAIRO_STATUS_SUCCESS)
		return cs == CAIRO_STATUS_NO_MEMORY ? VIZ_ENOMEM : VIZ_EIO;
	if (fflush(f) != 0 || ferror(f))
		return VIZ_EIO;
	return VIZ_OK;
}

void viz_fonts_release(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}
