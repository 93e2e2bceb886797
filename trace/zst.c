/*
 * zst.c - compressed traces (trace.h "Compressed traces"): zstd frames
 * read as a stream by the reader (recognized by their magic number, not
 * by the file's name) and written through a FILE (trace_zst_writer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace/traceint.h"

int tr_zst_magic(const void *p, size_t n)
{
	static const unsigned char m[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	return n >= 4 && memcmp(p, m, 4) == 0;
}

int trace_zst_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n >= 4 && strcmp(path + n - 4, ".zst") == 0;
}

/* ---- input ---- */

struct tr_zin {
	ZSTD_DStream *ds;
	ZSTD_inBuffer in;
	char *ibuf;          /* compressed input                          */
	size_t icap;         /* bytes                                     */
	int eof;             /* the compressed input ended                */
	size_t last;         /* ZSTD_decompressStream's last hint: 0 when
	                        a frame was just completed               */
	int started;         /* bytes of some frame were seen             */
	char msg[160];
};

struct tr_zin *tr_zin_new(void)
{
	struct tr_zin *z = calloc(1, sizeof *z);
	if (!z)
		return NULL;
	z->ds = ZSTD_createDStream();
	z->icap = ZSTD_DStreamInSize();
	z->ibuf = malloc(z->icap);
	if (!z->ds || !z->ibuf || ZSTD_isError(ZSTD_initDStream(z->ds))) {
		tr_zin_free(z);
		return NULL;
	}
	/* a window up to 2^27 bytes (zstd's default limit is enough for
	 * any level the writer uses; larger frames are refused, not read
	 * into unbounded memory) */
	ZSTD_DCtx_setParameter(z->ds, ZSTD_d_windowLogMax, 27);
	z->in.src = z->ibuf;
	return z;
}

void tr_zin_free(struct tr_zin *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->ibuf);
	free(z);
}

const char *tr_zin_error(const struct tr_zin *z)
{
	return z->msg;
}

ssize_t tr_zin_read(struct tr_zin *z, char *dst, size_t n,
                    ssize_t (*more)(void *, char *, size_t), void *ctx)
{
	ZSTD_outBuffer out = { dst, n, 0 };
	while (out.pos == 0) {
		if (z->in.pos == z->in.size && !z->eof) {
			ssize_t k = more(ctx, z->ibuf, z->icap);
			if (k < 0)
				return -1;
			if (k == 0)
				z->eof = 1;
			z->in.size = (size_t)k;
			z->in.pos = 0;
		}
		if (z->in.pos == z->in.size && z->eof) {
			if (z->last != 0 || !z->started) {
				snprintf(z->msg, sizeof z->msg,
				         "truncated zstd data (the compressed file is cut)");
				return -2;
			}
			return 0;
		}
		z->started = 1;
		size_t r = ZSTD_decompressStream(z->ds, &out, &z->in);
		if (ZSTD_isError(r)) {
			snprintf(z->msg, sizeof z->msg, "bad zstd data: %s", ZSTD_getErrorName(r));
			return -2;
		}
		z->last = r;
	}
	return (ssize_t)out.pos;
}

/* ---- output ---- */

struct tr_zout {
	ZSTD_CStream *cs;
	FILE *under;
	size_t ocap;
	int err;             /* errno of a failed write, or EIO         */
	char *obuf;
};

static int zout_put(struct tr_zout *z, ZSTD_outBuffer *o)
{
	if (o->pos && fwrite(o->dst, 1, o->pos, z->under) != o->pos) {
		z->err = errno ? errno : EIO;
		return -1;
	}
	o->pos = 0;
	return 0;
}

static ssize_t zout_write(void *c, const char *buf, size_t n)
{
	struct tr_zout *z = c;
	ZSTD_inBuffer in = { buf, n, 0 };
	while (in.pos < in.size && !z->err) {
		ZSTD_outBuffer o = { z->obuf, z->ocap, 0 };
		size_t r = ZSTD_compressStream2(z->cs, &o, &in, ZSTD_e_continue);
		if (ZSTD_isError(r))
			z->err = EIO;
		else
			zout_put(z, &o);
	}
	if (z->err) {
		errno = z->err;
		return -1;
	}
	return (ssize_t)n;
}

static int zout_close(void *c)
{
	struct tr_zout *z = c;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	for (size_t r = 1; r && !z->err;) {
		ZSTD_outBuffer o = { z->obuf, z->ocap, 0 };
		r = ZSTD_compressStream2(z->cs, &o, &in, ZSTD_e_end);
		if (ZSTD_isError(r))
			z->err = EIO;
		else
			zout_put(z, &o);
	}
	if (!z->err && fflush(z->under) != 0)
		z->err = errno ? errno : EIO;
	int err = z->err;
	ZSTD_freeCStream(z->cs);
	free(z->obuf);
	free(z);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

FILE *trace_zst_writer(FILE *under, int level)
{
	struct tr_zout *z = calloc(1, sizeof *z);
	if (!z) {
		errno = ENOMEM;
		return NULL;
	}
	z->under = under;
	z->cs = ZSTD_createCStream();
	z->ocap = ZSTD_CStreamOutSize();
	z->obuf = malloc(z->ocap);
	if (!z->cs || !z->obuf ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cs, ZSTD_c_compressionLevel, level))) {
		ZSTD_freeCStream(z->cs);
		free(z->obuf);
		free(z);
		errno = ENOMEM;
		return NULL;
	}
	cookie_io_functions_t io = { .write = zout_write, .close = zout_close };
	FILE *f = fopencookie(z, "w", io);
	if (!f) {
		ZSTD_freeCStream(z->cs);
		free(z->obuf);
		free(z);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 17);
	return f;
}
