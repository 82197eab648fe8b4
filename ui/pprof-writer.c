/* The --pprof writer (pprof-writer.h): each profile to its file, whole
 * (a temporary file, then rename), deflated; live, in stored gzip blocks
 * framed here from the pieces pprof-live.c keeps. */
#include "config.h"

#include "pprof-writer.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "errmsg.h"
#include "pprof-live.h"
#include "pprof.h"
#include "strbuf.h"
#include "util.h"
#include "view.h"

struct pprof_writer {
	const char *path;
	char *comment;
	struct strbuf raw;           /* the last profile, encoded */
	struct strbuf gz;            /* the same compressed (a file) */
	bool pending;                /* raw not written yet (stdout) */
	bool live;                   /* pprof_writer_live */
	bool stored;                 /* the file holds raw in stored blocks */
	struct pprof_live *lv;       /* live, to a file: the kept tables */
	int64_t start;               /* the last profile's time_nanos */
};

struct pprof_writer *pprof_writer_new(const char *path, const char *comment)
{
	struct pprof_writer *w = xcalloc(1, sizeof(*w));

	w->path = path;
	w->comment = comment ? xstrdup(comment) : NULL;
	strbuf_init(&w->raw);
	strbuf_init(&w->gz);
	return w;
}

void pprof_writer_live(struct pprof_writer *w)
{
	w->live = true;
	if (strcmp(w->path, "-") != 0 && !w->lv)
		w->lv = pprof_live_new();
}

static int pprof_writer_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* v[0..n) written whole to fd, however writev splits it (v is used up). */
static int pprof_writer_writev(int fd, struct iovec *v, size_t n)
{
	while (n) {
		ssize_t k = writev(fd, v, n > IOV_MAX ? IOV_MAX : (int)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		for (; n && (size_t)k >= v->iov_len; v++, n--)
			k -= (ssize_t)v->iov_len;
		if (n) {
			v->iov_base = (char *)v->iov_base + k;
			v->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/* path replaced by v[0..n) whole: a temporary file beside it, then rename. */
static int pprof_writer_replace(const char *path, struct iovec *v, size_t n, struct errmsg *em)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp), err;

	if (fd < 0) {
		err = -errno;
		errmsg_set(em, err, "cannot write %s (a temporary file beside it first): %s",
			   path, strerror(-err));
		free(tmp);
		return err;
	}
	err = pprof_writer_writev(fd, v, n);
	/* mkstemp makes it 0600: a profile is as readable as other output. */
	if (!err && fchmod(fd, 0644) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		errmsg_set(em, err, "cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
	}
	free(tmp);
	return err;
}

/* FILE from the last profile, compressed (the one place that deflates). */
static int pprof_writer_file(struct pprof_writer *w, struct errmsg *em)
{
	struct iovec v;
	int err;

	strbuf_reset(&w->gz);
	if ((err = pprof_gzip(w->raw.buf, w->raw.len, &w->gz, em)))
		return err;
	w->stored = false;
	v.iov_base = w->gz.buf;
	v.iov_len = w->gz.len;
	return pprof_writer_replace(w->path, &v, 1, em);
}

/* FILE from the live profile, piece[0..npiece) end to end, as one gzip
 * member of stored blocks.  Framed here (RFC 1952's header, RFC 1951's
 * blocks of at most 65535 bytes each behind its length, the CRC-32 and
 * size), so that the kept tables are written from where they are, not
 * copied into one buffer and twice more through deflate.  kept_crc: NULL,
 * or the CRC-32 of each piece past the first (the kept tables': computed
 * once, combined here). */
static int pprof_writer_stored(struct pprof_writer *w, const struct iovec *piece, size_t npiece,
			       const uLong *kept_crc, struct errmsg *em)
{
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	size_t total = 0, nblk, b, i, k = 0, p = 0, poff = 0;
	uLong crc = crc32(0, NULL, 0);
	unsigned char *hdr, tail[8];
	struct iovec *v;
	int err;

	for (i = 0; i < npiece; i++) {
		total += piece[i].iov_len;
		if (i && kept_crc)
			crc = crc32_combine(crc, kept_crc[i - 1], (z_off_t)piece[i].iov_len);
		else
			crc = crc32_z(crc, piece[i].iov_base, piece[i].iov_len);
	}
	nblk = total ? (total + 65534) / 65535 : 1;
	hdr = xmalloc(5 * nblk);
	/* a block spans a run of pieces: at most nblk + npiece spans */
	v = xmalloc((2 + 2 * nblk + npiece) * sizeof(*v));
	v[k].iov_base = (void *)head;
	v[k++].iov_len = sizeof(head);
	for (b = 0; b < nblk; b++) {
		size_t len = total - b * 65535 < 65535 ? total - b * 65535 : 65535;
		unsigned char *h = hdr + 5 * b;

		h[0] = b + 1 == nblk;    /* BFINAL, BTYPE 00: stored */
		h[1] = (unsigned char)len;
		h[2] = (unsigned char)(len >> 8);
		h[3] = (unsigned char)~len;
		h[4] = (unsigned char)(~len >> 8);
		v[k].iov_base = h;
		v[k++].iov_len = 5;
		while (len) {
			size_t take = piece[p].iov_len - poff < len ? piece[p].iov_len - poff : len;

			if (take) {
				v[k].iov_base = (char *)piece[p].iov_base + poff;
				v[k++].iov_len = take;
			}
			poff += take;
			len -= take;
			if (poff == piece[p].iov_len) {
				p++;
				poff = 0;
			}
		}
	}
	for (i = 0; i < 4; i++) {
		tail[i] = (unsigned char)(crc >> 8 * i);
		tail[4 + i] = (unsigned char)(total >> 8 * i);
	}
	v[k].iov_base = tail;
	v[k++].iov_len = sizeof(tail);
	err = pprof_writer_replace(w->path, v, k, em);
	w->stored = true;
	free(hdr);
	free(v);
	return err;
}

/* The live profile's pieces: the refresh's fields, then the kept tables
 * (with crc: their CRC-32s). */
static size_t pprof_writer_pieces(struct pprof_writer *w, struct iovec *v, uLong *crc)
{
	v[0].iov_base = w->raw.buf;
	v[0].iov_len = w->raw.len;
	return 1 + pprof_live_pieces(w->lv, v + 1, crc);
}

int pprof_writer_snapshot(struct pprof_writer *w, const struct snapshot *snap,
			  struct errmsg *em)
{
	struct timespec now;
	int64_t start;

	clock_gettime(CLOCK_REALTIME, &now);
	start = snap->wall_start_ns ? snap->wall_start_ns :
				      (int64_t)now.tv_sec * 1000000000 + now.tv_nsec -
					      (int64_t)(snap->time * 1e9);
	w->start = start;
	strbuf_reset(&w->raw);
	if (w->lv)
		pprof_live_encode(w->lv, &w->raw, snap, w->comment, start);
	else
		pprof_encode(&w->raw, snap, w->comment, start);
	/* stdout gets the last one only: compressed then. */
	if (strcmp(w->path, "-") == 0) {
		w->pending = true;
		return 0;
	}
	/* Live, a file rewritten every refresh is stored, not compressed:
	   deflate was most of the writing (issue 18). */
	if (w->lv) {
		struct iovec v[4];
		uLong crc[3];

		return pprof_writer_stored(w, v, pprof_writer_pieces(w, v, crc), crc, em);
	}
	return pprof_writer_file(w, em);
}

int pprof_writer_finish(struct pprof_writer *w, const struct snapshot *last,
			struct errmsg *em)
{
	int err;

	if (w->stored) {
		/* The live profile is valid, its tables in the order they
		   grew; the last file is the one-shot writer's. */
		if (last) {
			strbuf_reset(&w->raw);
			pprof_encode(&w->raw, last, w->comment, w->start);
		} else {
			struct iovec v[4];
			size_t i, n = pprof_writer_pieces(w, v, NULL);

			for (i = 1; i < n; i++)
				strbuf_add(&w->raw, v[i].iov_base, v[i].iov_len);
		}
		return pprof_writer_file(w, em);
	}
	if (!w->pending)
		return 0;
	w->pending = false;
	strbuf_reset(&w->gz);
	if ((err = pprof_gzip(w->raw.buf, w->raw.len, &w->gz, em)))
		return err;
	err = pprof_writer_write_all(STDOUT_FILENO, w->gz.buf, w->gz.len);
	if (err)
		return errmsg_set(em, err, "cannot write the profile to stdout: %s", strerror(-err));
	return 0;
}

void pprof_writer_free(struct pprof_writer *w)
{
	if (!w)
		return;
	free(w->comment);
	pprof_live_free(w->lv);
	strbuf_release(&w->raw);
	strbuf_release(&w->gz);
	free(w);
}
