/*
 * viz.h - see a simulated run: the Chrome/Perfetto timeline, the SVG
 * charts of Paper I (execution flow graph above the parallelism graph) and
 * the extended critical path of Paper VI (docs/viz.md).
 *
 * Everything starts from one simulated run made with SIM_STATS |
 * SIM_SCHEDULE: viz_sched_new derives from the trace and that schedule
 * when each record's operation was performed, when each thread was
 * running, ready and blocked, and which record released each blocked
 * acquisition (sim.h gives the releasing thread and the grant time; the
 * record is the releaser's release of the same object at that time).
 *
 * No global state; a viz_sched is immutable once made and may be shared.
 * Library functions return 0 or a negative VIZ_E* code and never print,
 * except the explicit *_write and *_print functions, which write to the
 * FILE* they are given.
 */
#ifndef SHADOWBIND_VIZ_H
#define SHADOWBIND_VIZ_H

#include <stdint.h>
#include <stdio.h>

#include "sim/sim.h"
#include "trace/trace.h"

enum {
	VIZ_OK = 0,
	VIZ_EINVAL = -1,  /* a result without SIM_STATS|SIM_SCHEDULE, bad spec */
	VIZ_ENOMEM = -2,
	VIZ_EIO = -3,     /* a write failed (errno set)                         */
	VIZ_ESIM = -4     /* a re-simulation failed (deadlock, overflow)        */
};

/* The states of a thread in the charts and the critical path. */
enum viz_state { VIZ_S_RUN = 0, VIZ_S_READY, VIZ_S_BLOCKED, VIZ_NSTATES };

struct viz_sched;

/*
 * viz_sched_new - derive the per-record view of run `res` of program `p`
 * under `par` and `binding` (as given to sim_run; NULL: every thread
 * shadow).  `res` must come from sim_run with SIM_STATS | SIM_SCHEDULE
 * and status SIM_OK; it is copied, so `res`'s workspace may run again
 * afterwards.  The trace of `p` must outlive the result.  Returns VIZ_OK
 * and *out (free with viz_sched_free), or VIZ_EINVAL / VIZ_ENOMEM with
 * *out = NULL.
 */
int viz_sched_new(const struct sim_program *p, const struct sim_params *par,
                  const int32_t *binding, const struct sim_result *res,
                  struct viz_sched **out);
void viz_sched_free(struct viz_sched *s); /* accepts NULL */

/* Per-record times (r: index in trace.rec); units: trace unit.
 *   begin  the thread started running the record's work
 *   op     the record's operation was performed (an acquisition that
 *          blocked: when it asked)
 *   ready  the thread could go on after the operation (grant plus any
 *          latency; end of a sleep); == op when it did not stop
 *   resume the thread ran again (begin of the next record)            */
struct viz_rec_times {
	uint64_t begin, op, grant, ready, resume;
	int32_t releaser;   /* thread whose release granted the acquisition,
	                       or -1 (none, or not an acquisition)         */
	uint32_t rel_rec;   /* the releasing record, or TRACE_NONE        */
};
const struct viz_rec_times *viz_sched_rec(const struct viz_sched *s, uint32_t r);
uint64_t viz_sched_makespan(const struct viz_sched *s);   /* trace units */
const struct trace *viz_sched_trace(const struct viz_sched *s);

/* "T3 worker @queue.c:88" or "T3 worker line 12" for record r into buf. */
char *viz_rec_label(const struct trace *tr, uint32_t r, char *buf, size_t len);

/*
 * viz_timeline_write - the whole schedule as a Chrome/Perfetto
 * trace-event JSON file (docs/viz.md): one process per processor (and per
 * shadow processor, and the unbound ps pool) holding one track per thread
 * that ran there; one "X" slice per record's work on a processor, named
 * by viz_rec_label; for every synchronization an instant event on the
 * acquirer's track and a flow ("s"/"f") from the releasing record to the
 * acquirer's next slice, with the wait and the latency in args; "C"
 * counters of running and ready threads; "M" names.  Timestamps are
 * microseconds: trace units converted by the trace's unit (tick: 1 tick =
 * 1 us).  Returns VIZ_OK or VIZ_EIO.
 */
int viz_timeline_write(const struct viz_sched *s, FILE *f);

struct viz_path;

/*
 * viz_svg_write - the charts of Paper I as SVG (cairo): the execution flow
 * graph (one row per thread, or per group of threads when there are more
 * than `max_rows`; running, ready, blocked as colours; synchronization
 * arrows when they stay legible; the critical path `cp`, if not NULL,
 * drawn thick) above the parallelism graph (running and ready threads
 * over time), both on one time axis.  Time is sampled in `width` pixel
 * columns: intervals shorter than a column are merged into it, so the
 * file size is bounded by rows x columns whatever the number of records
 * (docs/viz.md).  `title` may be NULL.  Returns VIZ_OK, VIZ_ENOMEM or
 * VIZ_EIO.
 */
struct viz_svg_opts {
	unsigned width;     /* plot width, pixel columns (default 1000)      */
	unsigned max_rows;  /* rows before threads are grouped (default 80)  */
	const char *title;
};
int viz_svg_write(const struct viz_sched *s, const struct viz_path *cp,
                  const struct viz_svg_opts *o, FILE *f);

/*
 * viz_fonts_release - free the font caches cairo and fontconfig keep after
 * viz_svg_write (leak checkers report them otherwise).  Call it only when
 * no cairo object is alive and no other thread draws, e.g. before exit;
 * a later viz_svg_write sets them up again.
 */
void viz_fonts_release(void);

/* ------------------------------------------------------------------ */
/* The extended critical path (Paper VI). */

enum viz_item_kind {
	VIZ_WORK = 0,  /* the thread ran the record's work (wall time: under
	                  ps it includes the sharing, under rr preemptions) */
	VIZ_READY,     /* the thread waited for its processor               */
	VIZ_LATENCY,   /* a released thread waited out the sync latency     */
	VIZ_SLEEP,     /* the thread slept (record: the sleep)              */
	VIZ_RELEASE,   /* zero length: `thread` was released by `other`'s
	                  record `other_rec` (object kind/obj); the path goes
	                  on in `other` before this point                   */
	VIZ_NKINDS
};

struct viz_item {
	uint8_t kind;       /* enum viz_item_kind                          */
	uint8_t obj_kind;   /* enum trace_kind (LATENCY, RELEASE)          */
	uint32_t thread;    /* dense                                       */
	uint32_t rec;       /* the record (WORK: whose work; READY: the one
	                       the thread waited to run; LATENCY, RELEASE:
	                       the acquisition)                           */
	uint32_t obj;       /* dense object index (LATENCY, RELEASE)       */
	int32_t other;      /* RELEASE: the releasing thread; READY: the
	                       thread on the processor meanwhile, or -1    */
	uint32_t other_rec; /* RELEASE: the releasing record               */
	uint64_t from, to;  /* units: trace unit; to - from is the length  */
	uint64_t waited;    /* RELEASE: how long `thread` was blocked      */
};

struct viz_path {
	size_t n;
	struct viz_item *items; /* in time order; the lengths add up to
	                           the makespan                           */
	uint64_t makespan;      /* units: trace unit                       */
};

/*
 * viz_critical - walk the schedule backward from the last exit: along a
 * thread while it ran; at a blocked acquisition to the releasing record
 * of the releaser (Paper VI, Figure 3); at a wait for the processor to
 * the thread that held it (fifo, rr; under ps the sharing is inside the
 * work's wall time), at a latency or sleep along the latency.  Returns
 * VIZ_OK and *out (free with viz_path_free) or VIZ_ENOMEM.
 */
int viz_critical(const struct viz_sched *s, struct viz_path **out);
void viz_path_free(struct viz_path *p); /* accepts NULL */

/* Summaries of a path: per thread (work + ready + sleep on the path) and
 * per synchronization object, or processor (kind TRACE_NKINDS, id the
 * processor or UINT32_MAX): the latency on the path, plus for each
 * release the part of the path between the previous release and this one
 * during which the released thread waited (disjoint spans: the object
 * times add up to at most the makespan). */
struct viz_share {
	uint8_t kind;       /* per object: enum trace_kind; per thread: 0  */
	uint32_t id;        /* dense thread or object                      */
	uint64_t time;      /* units: trace unit                           */
	uint32_t count;     /* items / waits                               */
};
/* Fills malloc'd arrays sorted by decreasing time; returns VIZ_OK or
 * VIZ_ENOMEM (then both NULL). */
int viz_path_shares(const struct viz_sched *s, const struct viz_path *p,
                    struct viz_share **threads, size_t *nthreads,
                    struct viz_share **objects, size_t *nobjects);

/* Human-readable path and summaries; `top` limits the summary lines. */
int viz_path_print(const struct viz_sched *s, const struct viz_path *p,
                   unsigned top, FILE *f);
int viz_path_json(const struct viz_sched *s, const struct viz_path *p,
                  FILE *f);
/* A few lines on what to act on: the top causes of waiting on the path
 * and the busiest processor's share (for `allocate --explain`). */
int viz_explain_print(const struct viz_sched *s, const struct viz_path *p,
                      unsigned top, FILE *f);

/* ------------------------------------------------------------------ */
/* What if (causal profiling's virtual speedup, by re-simulation). */

/*
 * A what-if: "line:L:P%" (the record at trace line L runs P% faster),
 * "at:FILE:LINE:P%" (every record whose source location is FILE:LINE),
 * "thread:ID:P%" (every record of thread ID), "latency:T" (the
 * synchronization latency is T), "latency:KIND:ID:T" (the latency of
 * the releases of one object is T, the others' unchanged: KIND is one
 * of viz_whatif_kinds, ID its external id; sim_params.obj_latency, so
 * the Direct model only).  P in 0..100; T in trace units.
 */
struct viz_whatif {
	enum { VIZ_WI_LINE, VIZ_WI_THREAD, VIZ_WI_LATENCY, VIZ_WI_LOC,
	       VIZ_WI_OBJLAT } what;
	uint64_t arg;       /* line, external thread id, or latency (units:
	                       trace unit)                                */
	uint8_t kind;       /* VIZ_WI_OBJLAT: enum trace_kind             */
	uint32_t obj;       /* VIZ_WI_OBJLAT: external object (or thread) id */
	uint32_t percent;   /* faster by, 0..100                          */
	const char *text;   /* as given (VIZ_WI_LOC: FILE:LINE is text + 3,
	                       loc_len bytes)                             */
	size_t loc_len;
};
/* Parses `s`; returns VIZ_OK or VIZ_EINVAL (*w zeroed). */
int viz_whatif_parse(const char *s, struct viz_whatif *w);
/* The KIND words of "latency:KIND:ID:T", [TRACE_NKINDS] by enum
 * trace_kind: "thread" (the exit a join waits for), "mutex", "sem",
 * "cond", "barrier", "rwlock". */
extern const char *const viz_whatif_kinds[TRACE_NKINDS];

/*
 * viz_whatif_run - re-simulate trace `tr` with the change `w` applied
 * (works scaled down by percent, rounded down to an integer), the same
 * `par` and `binding`.  *saved: the total work removed (trace units);
 * *out the new makespan.  Returns VIZ_OK; VIZ_EINVAL (no record at that
 * line or location / no such thread or object); VIZ_ENOMEM; VIZ_ESIM (the re-simulation failed,
 * e.g. deadlocked, or VIZ_WI_OBJLAT with par->model other than
 * SIM_DIRECT).  Outputs are zero on failure.
 */
int viz_whatif_run(const struct trace *tr, const struct sim_params *par,
                   const int32_t *binding, const struct viz_whatif *w,
                   uint64_t *saved, sim_time *out);

/* ------------------------------------------------------------------ */
/* For commands. */

/*
 * viz_save_run - write `simulate --timeline FILE` and/or `--svg FILE`
 * (either may be NULL) for run `res` (SIM_STATS | SIM_SCHEDULE), each
 * through a temporary in the same directory renamed into place (no
 * partial file).  The SVG shows the critical path.  Calls
 * viz_fonts_release after drawing (single-threaded commands).  Returns VIZ_OK, or
 * VIZ_EIO / VIZ_ENOMEM / VIZ_EINVAL with a one-line message in `why`
 * ("out.svg: cannot write: Permission denied").
 */
int viz_save_run(const struct sim_program *p, const struct sim_params *par,
                 const int32_t *binding, const struct sim_result *res,
                 const char *timeline, const char *svg, char *why, size_t len);

/*
 * viz_explain_binding - simulate `binding` (model `model`, never
 * SIM_AUTO) and print viz_explain_print's lines (`top` causes) to f:
 * for `allocate --explain`.  Returns VIZ_OK, VIZ_ENOMEM, VIZ_ESIM (the
 * run failed), VIZ_EIO.
 */
int viz_explain_binding(const struct sim_program *p, const struct sim_params *par,
                        const int32_t *binding, enum sim_model model, unsigned top, FILE *f);

#endif
