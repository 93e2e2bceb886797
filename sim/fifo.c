/*
 * fifo.c - the fifo policy (docs/simulation.md): run to block.  The
 * running thread keeps its processor until it blocks or exits; ready
 * threads wait in FIFO order (slot.h).  Defines sim_class_fifo and the
 * policy's event loops (loop.h).
 */
#include "sim/simint.h"

#define SLOT_RR 0
#include "sim/slot.h"

static void policy_run(struct sim_work *w);

/* fifo puts no events of its own in the heap. */
static uint32_t fifo_tick(struct sim_work *w, uint32_t id, stime T, uint32_t kt)
{
	(void)kt;
	(void)w;
	(void)id;
	(void)T;
	return NIL;
}

const struct sim_class sim_class_fifo = {
	.name = "fifo",
	.quantum = 0,
	.enqueue = slot_enqueue,
	.dequeue = slot_dequeue,
	.go_on = slot_go_on,
	.work_done = slot_work_done,
	.tick = fifo_tick,
	.gtree = GT_SLOTS,
	.busy = slot_busy,
	.run = policy_run,
};

#define SIM_CLASS (&sim_class_fifo)
#include "sim/loop.h"
