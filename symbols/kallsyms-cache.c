/* The kallsyms cache file: a header with its key, the table of each
 * symbol table (the kernel image, then each listed module), the symbols
 * as arrays (starts, ends, name offsets, sized flags) and one string
 * blob, all 8-byte aligned and checked against the file's size and
 * checksum before any of it is used. */
#include "config.h"

#include "kallsyms-cache.h"
#include "kallsyms-cache-test.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kallsyms.h"
#include "symtab.h"
#include "util.h"
#include "vmlinux.h"

#define KC_MAGIC "PTKSYMS1"
#define KC_VERSION 1
#define KC_ENDIAN 0x01020304u
#define KC_FILE "kallsyms"
/* Far above any kallsyms (10 MB of symbols): a size past it is not ours. */
#define KC_MAX_SIZE (256u << 20)

struct kc_header {
	char magic[8];
	uint32_t endian, version;
	uint64_t file_size;
	uint64_t checksum;        /* of the file, this field read as 0 */
	char boot_id[40];
	uint8_t build_id[20];
	uint32_t build_id_size;
	uint64_t modules_len;     /* the key's modules text, after the header */
	uint64_t ntables, nsyms, blob_len;
	struct kallsyms_image image;   /* struct kernel_syms', as it is */
};
/* The layout of version 1 (image: 6 words, start to span_hi): a field
 * added to struct kallsyms_image changes the file, and needs a new
 * KC_VERSION (an older file is then stale: ignored and rewritten). */
_Static_assert(sizeof(struct kallsyms_image) == 48, "KC_VERSION 1's image");
_Static_assert(sizeof(struct kc_header) == 176, "no padding in the header");

/* One symbol table: table 0 the kernel image, then the modules by start. */
struct kc_table {
	uint64_t start, end;      /* a module's range */
	uint64_t name_off;        /* a module's name, in the blob */
	uint64_t first, n;        /* its symbols */
	uint64_t pool_off, pool_len;   /* its names, in the blob */
};

static size_t kc_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The running sums of kc_checksum over the words of p[from, to). */
static void kc_sum(const unsigned char *p, size_t from, size_t to, uint64_t *a, uint64_t *b)
{
	uint64_t x = *a, y = *b, w;
	size_t i;

	for (i = from; i + 8 <= to; i += 8) {
		memcpy(&w, p + i, 8);
		x += w;
		y += x;
	}
	*a = x;
	*b = y;
}

/* Two running sums over the file's 64-bit words (len a multiple of 8,
 * the checksum's own word read as 0): cheap enough for 6 MB at every
 * start, and any changed or moved word shows. */
static uint64_t kc_checksum(const unsigned char *p, size_t len)
{
	size_t at = offsetof(struct kc_header, checksum);
	uint64_t a = 1, b = 0;

	kc_sum(p, 0, at, &a, &b);
	b += a;                   /* the checksum's word, as 0 */
	kc_sum(p, at + 8, len, &a, &b);
	return a ^ (b << 1 | b >> 63);
}

void kallsyms_cache_test_seal(void *buf, size_t len)
{
	uint64_t sum = kc_checksum(buf, len);

	memcpy((char *)buf + offsetof(struct kc_header, checksum), &sum, 8);
}

/* ---- the key ---- */

void kallsyms_cache_key_make(struct kallsyms_cache_key *k, const char *boot_id,
			     const uint8_t *build_id, size_t build_id_size,
			     const char *modules_text)
{
	struct strbuf sb;
	size_t n = strcspn(boot_id, "\n");

	memset(k, 0, sizeof(*k));
	memcpy(k->boot_id, boot_id, n < sizeof(k->boot_id) ? n : sizeof(k->boot_id));
	if (build_id_size > sizeof(k->build_id))
		build_id_size = sizeof(k->build_id);
	memcpy(k->build_id, build_id, build_id_size);
	k->build_id_size = (uint32_t)build_id_size;
	/* Only the fields that place symbols: the refcount and users of a
	 * module change while its symbols do not. */
	strbuf_init(&sb);
	while (modules_text && *modules_text) {
		const char *line = modules_text, *nl = strchr(line, '\n'), *f[6];
		size_t len[6], i;
		const char *p = line, *end = nl ? nl : line + strlen(line);

		modules_text = nl ? nl + 1 : end;
		for (i = 0; i < 6; i++) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			f[i] = p;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
			len[i] = (size_t)(p - f[i]);
		}
		if (!len[0])
			continue;
		strbuf_add(&sb, f[0], len[0]);
		strbuf_add(&sb, " ", 1);
		strbuf_add(&sb, f[1], len[1]);
		strbuf_add(&sb, " ", 1);
		strbuf_add(&sb, f[4], len[4]);
		strbuf_add(&sb, " ", 1);
		strbuf_add(&sb, f[5], len[5]);
		strbuf_add(&sb, "\n", 1);
	}
	k->modules_len = sb.len;
	k->modules = sb.len ? sb.buf : NULL;
	if (!sb.len)
		strbuf_release(&sb);
}

int kallsyms_cache_key_read(struct kallsyms_cache_key *k)
{
	uint8_t id[20];
	char *boot = NULL, *mods = NULL;
	size_t len;
	int n, err;

	memset(k, 0, sizeof(*k));
	if ((err = read_file("/proc/sys/kernel/random/boot_id", 64, &boot, &len)))
		return err;
	if (len < 8) {
		free(boot);
		return -ENOENT;
	}
	n = vmlinux_running_build_id(id);
	/* No module support: no /proc/modules, and nothing to key on. */
	if (read_file("/proc/modules", SIZE_MAX, &mods, &len))
		mods = NULL;
	kallsyms_cache_key_make(k, boot, id, n > 0 ? (size_t)n : 0, mods);
	free(boot);
	free(mods);
	return 0;
}

bool kallsyms_cache_key_equal(const struct kallsyms_cache_key *a,
			      const struct kallsyms_cache_key *b)
{
	return memcmp(a->boot_id, b->boot_id, sizeof(a->boot_id)) == 0 &&
	       a->build_id_size == b->build_id_size &&
	       memcmp(a->build_id, b->build_id, a->build_id_size) == 0 &&
	       a->modules_len == b->modules_len &&
	       (a->modules_len == 0 || memcmp(a->modules, b->modules, a->modules_len) == 0);
}

void kallsyms_cache_key_release(struct kallsyms_cache_key *k)
{
	free(k->modules);
	memset(k, 0, sizeof(*k));
}

char *kallsyms_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* The XDG spec: a relative path is to be ignored. */
	if (xdg && xdg[0] == '/')
		return xasprintf("%s/proftop", xdg);
	if (home && home[0] == '/')
		return xasprintf("%s/.cache/proftop", home);
	return NULL;
}

/* ---- the directory ---- */

/* Whether st (of a directory or the file) may be trusted: ours, and
 * writable by no one else. */
static bool kc_trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether path is a directory of ours (0: yes, -ENOENT: missing). */
static int kc_own_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) && st.st_uid == geteuid() ? 0 : -EPERM;
}

/* Make dir 0700, and its parent if missing, only inside directories of
 * ours: root under sudo, with a user's HOME, leaves that home alone. */
static int kc_make_dir(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/'), *up;
	int err = 0;

	if (!slash || slash == parent) {
		free(parent);
		return -EINVAL;
	}
	*slash = '\0';
	if ((err = kc_own_dir(parent)) == -ENOENT) {
		up = xstrdup(parent);
		slash = strrchr(up, '/');
		if (slash && slash != up)
			*slash = '\0';
		err = slash && slash != up ? kc_own_dir(up) : -EINVAL;
		if (!err && mkdir(parent, 0700) != 0 && errno != EEXIST)
			err = -errno;
		free(up);
	}
	if (!err && mkdir(dir, 0700) != 0 && errno != EEXIST)
		err = -errno;
	free(parent);
	return err;
}

/* Open dir (made as kc_make_dir does, if missing and create) as a
 * directory we trust.  Returns the fd or -errno. */
static int kc_open_dir(const char *dir, bool create)
{
	struct stat st;
	int fd, err;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if ((err = kc_make_dir(dir)) != 0)
			return err;
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !kc_trusted(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* ---- writing ---- */

/* The file written through a 64 KB buffer, its checksum summed on the way
 * (the header's checksum word is written as 0 and patched at the end): no
 * copy of the 6 MB image is ever held. */
struct kc_out {
	int fd, err;
	uint64_t a, b;            /* kc_checksum's sums so far */
	size_t len;
	unsigned char buf[64 << 10];
};

static int kc_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void kc_flush(struct kc_out *o)
{
	/* The buffer holds whole words: every piece is padded to 8. */
	kc_sum(o->buf, 0, o->len, &o->a, &o->b);
	if (!o->err)
		o->err = kc_write_all(o->fd, o->buf, o->len);
	o->len = 0;
}

static void kc_put(struct kc_out *o, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		size_t k = sizeof(o->buf) - o->len < n ? sizeof(o->buf) - o->len : n;

		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (o->len == sizeof(o->buf))
			kc_flush(o);
	}
}

/* Zeros up to the next multiple of 8 of what was put (total bytes). */
static void kc_pad(struct kc_out *o, size_t total)
{
	static const unsigned char zeros[8];

	kc_put(o, zeros, kc_pad8(total) - total);
}

/* The tables written: the kernel image's, then each listed module's. */
static size_t kc_tables(const struct kernel_syms *ks, const struct symtab **st,
			const struct kernel_module **mod)
{
	size_t i, n = 0;

	st[n] = ks->kernel;
	mod[n++] = NULL;
	for (i = 0; i < ks->nmodules; i++)
		if (ks->modules[i].listed) {
			st[n] = ks->modules[i].symtab;
			mod[n++] = &ks->modules[i];
		}
	return n;
}

/* Everything after the header, in file order. */
static void kc_put_body(struct kc_out *o, const struct kallsyms_cache_key *k,
			const struct kc_table *t, const struct symtab **st, size_t nt,
			size_t nsyms, const struct kernel_module **mod)
{
	size_t i, j;

	if (k->modules_len)
		kc_put(o, k->modules, k->modules_len);
	kc_pad(o, k->modules_len);
	kc_put(o, t, nt * sizeof(*t));
	for (i = 0; i < nt; i++)
		for (j = 0; j < t[i].n; j++)
			kc_put(o, &symtab_get(st[i], j)->start, 8);
	for (i = 0; i < nt; i++)
		for (j = 0; j < t[i].n; j++)
			kc_put(o, &symtab_get(st[i], j)->end, 8);
	for (i = 0; i < nt; i++) {
		uint32_t off = 0;

		for (j = 0; j < t[i].n; j++) {
			kc_put(o, &off, 4);
			off += (uint32_t)strlen(symtab_get(st[i], j)->name) + 1;
		}
	}
	kc_pad(o, 4 * nsyms);
	for (i = 0; i < nt; i++)
		for (j = 0; j < t[i].n; j++) {
			uint8_t sized = symtab_sized(st[i], j);

			kc_put(o, &sized, 1);
		}
	kc_pad(o, nsyms);
	for (i = 0; i < nt; i++) {
		if (mod[i])
			kc_put(o, mod[i]->name, strlen(mod[i]->name) + 1);
		for (j = 0; j < t[i].n; j++) {
			const char *name = symtab_get(st[i], j)->name;

			kc_put(o, name, strlen(name) + 1);
		}
		if (t[i].n == 0)
			kc_put(o, "", 1);
	}
}

/* Write the file to fd.  Returns 0 or -errno. */
static int kc_write(int fd, const struct kallsyms_cache_key *k, const struct kernel_syms *ks)
{
	const struct symtab **st = xmalloc((ks->nmodules + 1) * sizeof(*st));
	const struct kernel_module **mod = xmalloc((ks->nmodules + 1) * sizeof(*mod));
	struct kc_table *t = xcalloc(ks->nmodules + 1, sizeof(*t));
	size_t nt = kc_tables(ks, st, mod), nsyms = 0, blob = 0, i, j;
	struct kc_out *o = xmalloc(sizeof(*o));
	struct kc_header h;
	uint64_t sum;
	int err;

	/* Offsets first: the tables come before what they point into. */
	for (i = 0; i < nt; i++) {
		t[i].n = symtab_count(st[i]);
		t[i].first = nsyms;
		nsyms += t[i].n;
		if (mod[i]) {
			t[i].start = mod[i]->start;
			t[i].end = mod[i]->end;
			t[i].name_off = blob;
			blob += strlen(mod[i]->name) + 1;
		}
		t[i].pool_off = blob;
		for (j = 0; j < t[i].n; j++)
			blob += strlen(symtab_get(st[i], j)->name) + 1;
		/* An empty table still has a NUL-terminated pool. */
		if (!t[i].n)
			blob++;
		t[i].pool_len = blob - t[i].pool_off;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KC_MAGIC, 8);
	h.endian = KC_ENDIAN;
	h.version = KC_VERSION;
	h.file_size = sizeof(h) + kc_pad8(k->modules_len) + nt * sizeof(*t) + 16 * nsyms +
		      kc_pad8(4 * nsyms) + kc_pad8(nsyms) + kc_pad8(blob);
	memcpy(h.boot_id, k->boot_id, sizeof(h.boot_id));
	memcpy(h.build_id, k->build_id, sizeof(h.build_id));
	h.build_id_size = k->build_id_size;
	h.modules_len = k->modules_len;
	h.ntables = nt;
	h.nsyms = nsyms;
	h.blob_len = blob;
	h.image = ks->image;

	o->fd = fd;
	o->err = 0;
	o->len = 0;
	o->a = 1;
	o->b = 0;
	kc_put(o, &h, sizeof(h));   /* its checksum word 0, as summed */
	kc_put_body(o, k, t, st, nt, nsyms, mod);
	kc_pad(o, blob);
	kc_flush(o);
	sum = o->a ^ (o->b << 1 | o->b >> 63);
	err = o->err;
	if (!err && pwrite(fd, &sum, 8, offsetof(struct kc_header, checksum)) != 8)
		err = -EIO;
	free(o);
	free(t);
	free(mod);
	free(st);
	return err;
}

int kallsyms_cache_save(const char *dir, const struct kallsyms_cache_key *k,
			const struct kernel_syms *ks)
{
	char tmp[] = ".kallsyms.XXXXXX", *path;
	int dfd, fd, err;

	if (ks->restricted || !ks->kernel || symtab_count(ks->kernel) == 0 || !k->boot_id[0])
		return -EINVAL;
	if ((dfd = kc_open_dir(dir, true)) < 0)
		return dfd;
	/* mkstemp's 0600 file, renamed over the old one: a reader sees the
	 * old file or the new one, never half of one. */
	path = xasprintf("%s/%s", dir, tmp);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else {
		err = kc_write(fd, k, ks);
		if (close(fd) != 0 && !err)
			err = -errno;
		memcpy(tmp, path + strlen(dir) + 1, sizeof(tmp));
		if (!err && renameat(dfd, tmp, dfd, KC_FILE) != 0)
			err = -errno;
		if (err)
			unlinkat(dfd, tmp, 0);
	}
	free(path);
	close(dfd);
	return err;
}

/* ---- reading ---- */

/* Whether [off, off + len) lies inside size bytes (no overflow). */
static bool kc_within(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* The file's bytes (size of them) as out: checked to the last offset. */
static int kc_parse(const char *buf, size_t size, const struct kallsyms_cache_key *k,
		    struct kernel_syms *out)
{
	struct kc_header h;
	const struct kc_table *tables;
	const uint64_t *starts, *ends;
	const uint32_t *name_offs;
	const uint8_t *sized;
	const char *blob;
	uint64_t off, n, i;
	size_t cap = 0;

	if (size < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (memcmp(h.magic, KC_MAGIC, 8) != 0 || h.endian != KC_ENDIAN ||
	    h.version != KC_VERSION || h.file_size != size || h.build_id_size > 20 ||
	    size % 8 != 0)
		return -EBADMSG;
	if (kc_checksum((const unsigned char *)buf, size) != h.checksum)
		return -EBADMSG;
	/* Each count is bounded by the file before any product of it. */
	n = h.nsyms;
	if (h.ntables == 0 || h.ntables > size / sizeof(struct kc_table) || n > size / 21 ||
	    h.modules_len > size || h.blob_len == 0 || h.blob_len > size)
		return -EBADMSG;
	off = sizeof(h);
	if (h.modules_len != k->modules_len || memcmp(h.boot_id, k->boot_id, sizeof(h.boot_id)) ||
	    h.build_id_size != k->build_id_size ||
	    memcmp(h.build_id, k->build_id, h.build_id_size) ||
	    (k->modules_len && memcmp(buf + off, k->modules, k->modules_len)))
		return -ESTALE;
	off += kc_pad8(h.modules_len);
	tables = (const void *)(buf + off);
	off += h.ntables * sizeof(*tables);
	starts = (const void *)(buf + off);
	off += 8 * n;
	ends = (const void *)(buf + off);
	off += 8 * n;
	name_offs = (const void *)(buf + off);
	off += kc_pad8(4 * n);
	sized = (const void *)(buf + off);
	off += kc_pad8(n);
	blob = buf + off;
	if (off + kc_pad8(h.blob_len) != size || blob[h.blob_len - 1] != '\0')
		return -EBADMSG;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < h.ntables; i++) {
		const struct kc_table *t = &tables[i];
		struct symtab *st;

		if (!kc_within(t->first, t->n, n) || !kc_within(t->pool_off, t->pool_len, h.blob_len) ||
		    (i > 0 && (t->name_off >= h.blob_len || t->start >= t->end ||
			       (i > 1 && t->start < tables[i - 1].end))))
			goto bad;
		st = symtab_from_sorted(t->n, starts + t->first, ends + t->first,
					name_offs + t->first, sized + t->first,
					blob + t->pool_off, t->pool_len);
		if (!st)
			goto bad;
		if (i == 0) {
			out->kernel = st;
			continue;
		}
		out->modules = xgrow(out->modules, &cap, out->nmodules + 1, sizeof(*out->modules));
		out->modules[out->nmodules].name = xstrdup(blob + t->name_off);
		out->modules[out->nmodules].start = t->start;
		out->modules[out->nmodules].end = t->end;
		out->modules[out->nmodules].symtab = st;
		out->modules[out->nmodules].listed = true;
		out->nmodules++;
	}
	out->image = h.image;
	return 0;
bad:
	kallsyms_release(out);
	return -EBADMSG;
}

int kallsyms_cache_load(const char *dir, const struct kallsyms_cache_key *k,
			struct kernel_syms *out)
{
	struct stat st;
	char *buf;
	int dfd, fd, err;

	memset(out, 0, sizeof(*out));
	if ((dfd = kc_open_dir(dir, false)) < 0)
		return dfd == -EPERM ? -EPERM : -ENOENT;
	fd = openat(dfd, KC_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return errno == ELOOP ? -EPERM : -ENOENT;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !kc_trusted(&st)) {
		close(fd);
		return -EPERM;
	}
	if (st.st_size < (off_t)sizeof(struct kc_header) || st.st_size > KC_MAX_SIZE) {
		close(fd);
		return -EBADMSG;
	}
	buf = xmalloc((size_t)st.st_size);
	err = fileread_at(fd, buf, (size_t)st.st_size, 0) == (size_t)st.st_size
		      ? kc_parse(buf, (size_t)st.st_size, k, out)
		      : -EBADMSG;
	free(buf);
	close(fd);
	return err;
}

bool kallsyms_cache_hidden(const char *path)
{
	char buf[4096];
	size_t len;
	char *p;
	int fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	len = fileread_at(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[len] = '\0';
	/* Per-CPU symbols sit at 0 even when nothing is hidden: any line
	 * with another address says the addresses are shown. */
	for (p = buf; *p; p++) {
		for (; isxdigit((unsigned char)*p); p++)
			if (*p != '0')
				return false;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	return true;
}
