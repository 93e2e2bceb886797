/* machine.c - the machine options simulate and critical share (cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int cli_machine_check(const struct cli_machine *m, char *why, size_t len)
{
	if (m->binding && m->unbound)
		snprintf(why, len, "--binding and --unbound exclude each other");
	else if (m->unbound && !m->cpus)
		snprintf(why, len, "--unbound needs --cpus K");
	else if (m->cpus && !m->binding && !m->unbound)
		snprintf(why, len, "--cpus needs --binding FILE or --unbound%s%s%s",
		         m->alone ? " (without either, " : "", m->alone ? m->alone : "",
		         m->alone ? ")" : "");
	else
		return 0;
	return -1;
}

int cli_machine_load(struct cli_machine *m, const struct trace *tr, char *why,
                     size_t len)
{
	memset(&m->bind, 0, sizeof m->bind);
	m->k = m->cpus;
	m->latency_tu = m->create_cost_tu = m->switch_cost_tu = 0;
	if (cli_time_get(&m->latency, tr, 0, &m->latency_tu, why, len) ||
	    cli_time_get(&m->create_cost, tr, 0, &m->create_cost_tu, why, len) ||
	    cli_time_get(&m->switch_cost, tr, 0, &m->switch_cost_tu, why, len))
		return CLI_EUSAGE;
	if (!m->binding)
		return CLI_OK;
	struct trace_error err;
	if (trace_binding_read(m->binding, tr, &m->bind, &err) != 0) {
		snprintf(why, len, "%s", err.msg);
		return CLI_EINPUT;
	}
	if (!m->cpus)
		m->k = m->bind.cpus;
	for (uint32_t i = 0; i < m->bind.n; i++)
		if (m->bind.proc[i] >= (int32_t)m->k) {
			snprintf(why, len, "%s: thread %u is bound to processor %d, but "
			         "--cpus is %u", m->binding, tr->threads[i].id,
			         m->bind.proc[i], m->k);
			trace_binding_release(&m->bind);
			return CLI_EINPUT;
		}
	return CLI_OK;
}

void cli_machine_release(struct cli_machine *m)
{
	if (m)
		trace_binding_release(&m->bind);
}
