/*
 * fuzz_exp.c - libFuzzer harness for the experiment-file reader
 * (exp_spec_parse; see tests/fuzz/Makefile).  Every input either parses
 * -- then its jobs can be enumerated and every job's key columns
 * formatted -- or fails with one printable line naming the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct exp_spec s; /* large: not on the stack */
	char err[1024];
	int rc = exp_spec_parse((const char *)data, size, "f.ini", &s, err,
	                        sizeof err);
	if (rc == EXP_OK) {
		struct exp_jobs j;
		if (exp_jobs_make(&s, &j, err, sizeof err) == EXP_OK &&
		    j.njobs < 100000) {
			char a[640], b[256];
			for (size_t i = 0; i < j.njobs; i++)
				exp_row_key(&s, &j, i, a, sizeof a, b, sizeof b);
		}
		exp_jobs_release(&j);
	} else if (rc == EXP_EINVAL) {
		if (strncmp(err, "f.ini", 5) != 0)
			abort();
		for (const char *c = err; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				abort();
	}
	exp_spec_release(&s);
	return 0;
}
