/*
 * vizint.h - internals shared by the files of viz/.
 */
#ifndef SHADOWBIND_VIZINT_H
#define SHADOWBIND_VIZINT_H

#include "cli/json.h"
#include "viz/viz.h"

/* One run interval (sim_interval with integer times). */
struct viz_iv {
	uint32_t thread;
	int32_t proc;      /* 0..k-1, TRACE_SHADOW, -2 (unbound ps pool)   */
	uint64_t from, to; /* units: trace unit                            */
};

/* Processor sharing: the service one thread of a group gets, V(t),
 * piecewise linear between breakpoints (all members progress alike). */
struct viz_vgrp {
	size_t n;          /* breakpoints                                  */
	uint64_t *t;       /* [n] increasing; units: trace unit            */
	double *v;         /* [n] V at t; units: trace unit of work        */
	double *rate;      /* [n] rate after t (work per time)             */
};

struct viz_sched {
	const struct trace *tr;
	struct sim_params par;
	uint64_t makespan;          /* units: trace unit                    */
	int32_t *proc;              /* [nthreads] bound proc, TRACE_SHADOW,
	                               or -2 (unbound)                      */
	uint64_t *tstart, *tend;    /* [nthreads] ready first, exit         */
	uint64_t *tcpu;             /* [nthreads] cpu                       */
	uint32_t *creator;          /* [nthreads] create record or NONE     */
	size_t niv;
	struct viz_iv *iv;          /* by thread, then from                 */
	size_t *iv_first;           /* [nthreads + 1]                       */
	struct viz_iv *ivp;         /* the same, by proc then to            */
	uint32_t nprocs;            /* k (bound, unbound)                   */
	double *busy;               /* [nprocs] busy time, trace units      */
	struct viz_rec_times *rt;   /* [nrec]                               */
	uint32_t *rec_thread;       /* [nrec] thread of each record         */
	/* ps service functions: [0..k-1] bound processors, [k] the pool */
	struct viz_vgrp *vg;        /* NULL unless ps                       */
};

/* Index in s->iv of u's first interval with from >= t (iv_first[u+1]
 * if none). */
size_t viz_iv_from(const struct viz_sched *s, uint32_t u, uint64_t t);
/* Work the thread of iv does in [a, b] (inside iv): b - a, or under ps
 * its share of the processor; units: trace unit. */
double viz_progress(const struct viz_sched *s, const struct viz_iv *iv, double a, double b);
/* Work the record needs, create cost included; units: trace unit. */
uint64_t viz_rec_work(const struct viz_sched *s, uint32_t r);
/* The object an acquisition record waits on (kind, dense index), given
 * its releasing record (or TRACE_NONE). */
void viz_acq_object(const struct viz_sched *s, uint32_t acq, uint32_t rel,
                    uint8_t *kind, uint32_t *obj);
/* Is record r an acquisition (may block)? */
int viz_is_acq(const struct trace_rec *r);
/* Time in microseconds as exact decimal text for unit `u`. */
char *viz_us(enum trace_unit u, uint64_t t, char *buf, size_t len);
/* Object name "mutex 3" (external id) into buf; kind TRACE_NKINDS is a
 * processor (obj = index, TRACE_SHADOW as UINT32_MAX). */
char *viz_obj_name(const struct trace *tr, uint8_t kind, uint32_t obj,
                   char *buf, size_t len);

#endif
