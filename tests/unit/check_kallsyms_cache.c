/* Unit tests for symbols/kallsyms-cache.c: a round trip gives the parsed
 * tables back (fixed text and the running kernel's), and a file of
 * another key, truncated, corrupt, or not ours is refused. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kallsyms-cache.h"
#include "kallsyms-cache-test.h"
#include "kallsyms.h"
#include "kallsyms-fixture.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

static const char text[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t secondary_startup\n"
	"ffffffff81000600 T last_text\n"
	"ffffffff81000680 T _etext\n"
	"ffffffff82000000 D data_obj\n"
	"ffffffff83000000 T _sinittext\n"
	"ffffffff83000010 t init_func\n"
	"ffffffff83000400 T _einittext\n"
	"ffffffffc0001000 t ext4_init\t[ext4]\n"
	"ffffffffc0001100 T ext4_read\t[ext4]\n"
	"ffffffffc0005000 t xfs_func\t[xfs]\n"
	"ffffffffc0003000 t bpf_prog_abc_handler\t[bpf]\n"
	"ffffffffc0008000 t ftrace_trampoline\t[__builtin__ftrace]\n";

/* ext4's size counts its data: 64 KB, of which one page is text. */
static const char mods[] =
	"ext4 65536 1 - Live 0xffffffffc0001000\n"
	"xfs 4096 0 - Live 0xffffffffc0005000 (OE)\n";

static void key(struct kallsyms_cache_key *k, const char *boot, const char *modules)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3 };

	kallsyms_cache_key_make(k, boot, id, sizeof(id), modules);
}

static void same_table(const struct symtab *a, const struct symtab *b)
{
	size_t i;

	ck_assert_uint_eq(symtab_count(a), symtab_count(b));
	for (i = 0; i < symtab_count(a); i++) {
		const struct symbol *x = symtab_get(a, i), *y = symtab_get(b, i);

		ck_assert_uint_eq(x->start, y->start);
		ck_assert_uint_eq(x->end, y->end);
		ck_assert_str_eq(x->name, y->name);
		ck_assert_int_eq(symtab_sized(a, i), symtab_sized(b, i));
	}
}

/* b is a's kernel image and listed modules, nothing else. */
static void same_syms(const struct kernel_syms *a, const struct kernel_syms *b)
{
	size_t i, j = 0;

	/* Whole: a field added to the image is compared too. */
	ck_assert_mem_eq(&a->image, &b->image, sizeof(a->image));
	ck_assert_uint_ne(b->image.span_hi, 0);
	ck_assert(!b->restricted);
	same_table(a->kernel, b->kernel);
	for (i = 0; i < a->nmodules; i++) {
		if (!a->modules[i].listed)
			continue;
		ck_assert_uint_lt(j, b->nmodules);
		ck_assert_str_eq(a->modules[i].name, b->modules[j].name);
		ck_assert_uint_eq(a->modules[i].start, b->modules[j].start);
		ck_assert_uint_eq(a->modules[i].end, b->modules[j].end);
		ck_assert(b->modules[j].listed);
		same_table(a->modules[i].symtab, b->modules[j].symtab);
		j++;
	}
	ck_assert_uint_eq(j, b->nmodules);
}

/* A cache of text/mods (ks) saved under boot "b1" (k) in a fresh dir, as
 * file. */
struct saved {
	struct kallsyms_cache_key k;
	struct kernel_syms ks;
	char *dir, *file;
};

static void saved_make(struct saved *sv, const char *name)
{
	sv->dir = testutil_tmpdir(name);
	sv->file = xasprintf("%s/kallsyms", sv->dir);
	ksfix_parse(text, mods, &sv->ks);
	key(&sv->k, "b1\n", mods);
	ck_assert_int_eq(chmod(sv->dir, 0700), 0);
	ck_assert_int_eq(kallsyms_cache_save(sv->dir, &sv->k, &sv->ks), 0);
}

static void saved_free(struct saved *sv)
{
	kallsyms_release(&sv->ks);
	kallsyms_cache_key_release(&sv->k);
	free(sv->file);
	free(sv->dir);
}

/* Load dir's cache under the key of boot and modules: its result, and
 * nothing handed out when it fails. */
static int load_as(const char *dir, const char *boot, const char *modules)
{
	struct kallsyms_cache_key k;
	struct kernel_syms back;
	int err;

	key(&k, boot, modules);
	err = kallsyms_cache_load(dir, &k, &back);
	if (err == 0)
		kallsyms_release(&back);
	else
		ck_assert_ptr_null(back.kernel);
	kallsyms_cache_key_release(&k);
	return err;
}

static void expect(const struct kernel_syms *ks, uint64_t addr, const char *name)
{
	const struct symbol *s = kallsyms_lookup(ks, addr, NULL);

	ck_assert_msg(*name ? s && strcmp(s->name, name) == 0 : s == NULL, "%#llx: %s, want %s",
		      (unsigned long long)addr, s ? s->name : "(none)", *name ? name : "(none)");
}

START_TEST(test_round_trip)
{
	struct saved sv;
	struct kernel_syms back;
	struct stat st;

	saved_make(&sv, "kcache-rt");
	ck_assert_int_eq(kallsyms_cache_load(sv.dir, &sv.k, &back), 0);
	same_syms(&sv.ks, &back);
	ck_assert_uint_eq(back.nmodules, 2);
	expect(&back, 0xffffffff81000050, "startup_64");
	expect(&back, 0xffffffff83000020, "init_func");
	expect(&back, 0xffffffffc0001150, "ext4_read");
	expect(&back, 0xffffffffc0005010, "xfs_func");
	/* Dynamic symbols are not kept: their addresses are outside what
	 * the cache covers (the caller reads kallsyms again), and never
	 * named after ext4's last function, whose module's listed size
	 * runs over them. */
	expect(&sv.ks, 0xffffffffc0003010, "bpf_prog_abc_handler");
	expect(&back, 0xffffffffc0003010, "");
	ck_assert(!kallsyms_covers(&back, 0xffffffffc0003010));
	ck_assert(!kallsyms_covers(&back, 0xffffffffc0008000));
	ck_assert(kallsyms_covers(&back, 0xffffffffc0001150));
	ck_assert(kallsyms_covers(&back, 0xffffffff83000020));
	/* 0600 in a 0700 directory. */
	ck_assert_int_eq(stat(sv.file, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(stat(sv.dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	kallsyms_release(&back);
	saved_free(&sv);
}
END_TEST

/* The running kernel's kallsyms, through the cache: every symbol back. */
START_TEST(test_round_trip_real)
{
	struct kallsyms_cache_key k;
	struct kernel_syms ks, back;
	char *dir = testutil_tmpdir("kcache-real");

	if (kallsyms_load(&ks) != 0 || ks.restricted || kallsyms_cache_key_read(&k) != 0) {
		kallsyms_release(&ks);
		free(dir);
		return;
	}
	ck_assert_int_eq(chmod(dir, 0700), 0);
	ck_assert_int_eq(kallsyms_cache_save(dir, &k, &ks), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &k, &back), 0);
	same_syms(&ks, &back);
	ck_assert_uint_gt(symtab_count(back.kernel), 1000);
	kallsyms_release(&back);
	kallsyms_release(&ks);
	kallsyms_cache_key_release(&k);
	free(dir);
}
END_TEST

START_TEST(test_stale)
{
	static const uint8_t other_id[20] = { 0xde, 0xad, 0xbe, 0xee };
	struct kallsyms_cache_key k2;
	struct kernel_syms back;
	struct saved sv;

	saved_make(&sv, "kcache-stale");
	/* Its own key (a boot ID read with its newline or without). */
	ck_assert_int_eq(load_as(sv.dir, "b1", mods), 0);
	ck_assert_int_eq(load_as(sv.dir, "b2\n", mods), -ESTALE);
	kallsyms_cache_key_make(&k2, "b1", other_id, sizeof(other_id), mods);
	ck_assert_int_eq(kallsyms_cache_load(sv.dir, &k2, &back), -ESTALE);
	ck_assert_ptr_null(back.kernel);
	kallsyms_cache_key_release(&k2);
	/* xfs reloaded elsewhere; then a module more. */
	ck_assert_int_eq(load_as(sv.dir, "b1",
				 "ext4 65536 1 - Live 0xffffffffc0001000\n"
				 "xfs 4096 0 - Live 0xffffffffc0009000 (OE)\n"),
			 -ESTALE);
	ck_assert_int_eq(load_as(sv.dir, "b1",
				 "ext4 65536 1 - Live 0xffffffffc0001000\n"
				 "xfs 4096 0 - Live 0xffffffffc0005000 (OE)\n"
				 "nfs 4096 0 - Live 0xffffffffc000a000\n"),
			 -ESTALE);
	/* A module's users and refcount change while its symbols do not. */
	ck_assert_int_eq(load_as(sv.dir, "b1",
				 "ext4 65536 7 jbd2, Live 0xffffffffc0001000\n"
				 "xfs 4096 2 - Live 0xffffffffc0005000 (OE)\n"),
			 0);
	saved_free(&sv);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
	char *buf;

	ck_assert_int_eq(read_file(path, SIZE_MAX, &buf, len), 0);
	return buf;
}

static void spit(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* Every truncation, and a flipped byte anywhere, is refused, and nothing
 * is handed out; so are header counts that point past the file. */
START_TEST(test_corrupt)
{
	struct saved sv;
	struct kernel_syms back;
	char *orig, *buf;
	size_t len, i, tables;
	int err;

	saved_make(&sv, "kcache-bad");
	orig = slurp(sv.file, &len);
	buf = xmalloc(len);
	for (i = 0; i < len; i += (i < 256 ? 1 : 13)) {
		spit(sv.file, orig, i);
		ck_assert_int_eq(kallsyms_cache_load(sv.dir, &sv.k, &back), -EBADMSG);
		ck_assert_ptr_null(back.kernel);
	}
	for (i = 0; i < len; i += (i < 256 ? 1 : 7)) {
		memcpy(buf, orig, len);
		buf[i] ^= 0x10;
		spit(sv.file, buf, len);
		err = kallsyms_cache_load(sv.dir, &sv.k, &back);
		/* The key's bytes make it another key's file. */
		ck_assert_msg(err == -EBADMSG || err == -ESTALE, "byte %zu: %d", i, err);
		ck_assert_ptr_null(back.kernel);
	}
	/* Lying counts and offsets, under a checksum that matches: the
	 * header's (modules_len, ntables, nsyms, blob_len at 96..128) and
	 * the first two tables' (after the modules text). */
	tables = 176 + ((sv.k.modules_len + 7) & ~(size_t)7);
	for (i = 96; i < tables + 2 * 56; i += 8) {
		static const uint64_t lies[] = { UINT64_MAX / 3, UINT64_MAX, 1u << 20, 0, 1, 7 };
		size_t j;

		if (i >= 128 && i < tables)
			continue;
		for (j = 0; j < ARRAY_SIZE(lies); j++) {
			memcpy(buf, orig, len);
			if (memcmp(buf + i, &lies[j], 8) == 0)
				continue;
			memcpy(buf + i, &lies[j], 8);
			kallsyms_cache_test_seal(buf, len);
			spit(sv.file, buf, len);
			err = kallsyms_cache_load(sv.dir, &sv.k, &back);
			if (err == 0) {
				/* A lie that still describes a valid file
				 * (a module's range or name moved): bounded. */
				kallsyms_release(&back);
				continue;
			}
			ck_assert_msg(err == -EBADMSG || err == -ESTALE, "word %zu: %d", i, err);
			ck_assert_ptr_null(back.kernel);
		}
	}
	/* Whole again: loads. */
	spit(sv.file, orig, len);
	ck_assert_int_eq(kallsyms_cache_load(sv.dir, &sv.k, &back), 0);
	kallsyms_release(&back);
	free(buf);
	free(orig);
	saved_free(&sv);
}
END_TEST

START_TEST(test_permissions)
{
	struct saved sv;
	struct kernel_syms back;
	char *dir, *file, *link;

	saved_make(&sv, "kcache-perm");
	dir = sv.dir;
	file = sv.file;
	link = xasprintf("%s.link", file);

	ck_assert_int_eq(chmod(file, 0620), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
	ck_assert_int_eq(chmod(file, 0602), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
	ck_assert_int_eq(chmod(file, 0600), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
	/* Nor written there. */
	ck_assert_int_eq(kallsyms_cache_save(dir, &sv.k, &sv.ks), -EPERM);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	/* A link, even to our own file. */
	ck_assert_int_eq(rename(file, link), 0);
	ck_assert_int_eq(symlink(link, file), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -ENOENT);
	/* Someone else's (root only can make one). */
	if (geteuid() == 0) {
		ck_assert_int_eq(rename(link, file), 0);
		ck_assert_int_eq(chown(file, 1, 1), 0);
		ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
		ck_assert_int_eq(chown(file, 0, 0), 0);
		ck_assert_int_eq(chown(dir, 1, 1), 0);
		ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), -EPERM);
		ck_assert_int_eq(chown(dir, 0, 0), 0);
		ck_assert_int_eq(kallsyms_cache_load(dir, &sv.k, &back), 0);
		kallsyms_release(&back);
	}
	free(link);
	saved_free(&sv);
}
END_TEST

/* A missing directory is made 0700 (and its parent); a restricted read
 * is never written. */
START_TEST(test_save_dirs_and_restricted)
{
	static const char zeros[] = "0000000000000000 T _stext\n0000000000000000 t f\n";
	struct kallsyms_cache_key k;
	struct kernel_syms ks, back, hidden;
	char *base = testutil_tmpdir("kcache-mk"), *dir = xasprintf("%s/cache/proftop", base);
	struct stat st;

	ksfix_parse(text, mods, &ks);
	key(&k, "b1", mods);
	ck_assert_int_eq(kallsyms_cache_save(dir, &k, &ks), 0);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(kallsyms_cache_load(dir, &k, &back), 0);
	kallsyms_release(&back);
	/* Not in a directory of someone else's (root under sudo, with a
	 * user's HOME). */
	if (geteuid() == 0) {
		char *theirs = xasprintf("%s/theirs", base), *d2 = xasprintf("%s/cache/proftop", theirs);

		ck_assert_int_eq(mkdir(theirs, 0755), 0);
		ck_assert_int_eq(chown(theirs, 1, 1), 0);
		ck_assert_int_eq(kallsyms_cache_save(d2, &k, &ks), -EPERM);
		*strrchr(d2, '/') = '\0';
		ck_assert_int_ne(access(d2, F_OK), 0);
		ck_assert_int_eq(mkdir(d2, 0755), 0);
		ck_assert_int_eq(chown(d2, 1, 1), 0);
		strcat(d2, "/proftop");
		ck_assert_int_eq(kallsyms_cache_save(d2, &k, &ks), -EPERM);
		ck_assert_int_ne(access(d2, F_OK), 0);
		free(d2);
		free(theirs);
	}
	ksfix_parse(zeros, "", &hidden);
	ck_assert(hidden.restricted);
	ck_assert_int_eq(kallsyms_cache_save(dir, &k, &hidden), -EINVAL);
	kallsyms_release(&hidden);
	kallsyms_release(&ks);
	kallsyms_cache_key_release(&k);
	free(dir);
	free(base);
}
END_TEST

START_TEST(test_hidden)
{
	char *dir = testutil_tmpdir("kcache-hidden"), *f = xasprintf("%s/k", dir);
	FILE *fp = fopen(f, "w");

	fputs("0000000000000000 A fixed_percpu_data\n0000000000000000 T _stext\n", fp);
	fclose(fp);
	ck_assert(kallsyms_cache_hidden(f));
	fp = fopen(f, "w");
	fputs("0000000000000000 A fixed_percpu_data\nffffffff81000000 T _stext\n", fp);
	fclose(fp);
	ck_assert(!kallsyms_cache_hidden(f));
	unlink(f);
	ck_assert(kallsyms_cache_hidden(f));
	free(f);
	free(dir);
}
END_TEST

START_TEST(test_dir)
{
	char *d;

	setenv("XDG_CACHE_HOME", "/x/c", 1);
	setenv("HOME", "/h", 1);
	d = kallsyms_cache_dir();
	ck_assert_str_eq(d, "/x/c/proftop");
	free(d);
	setenv("XDG_CACHE_HOME", "rel", 1);
	d = kallsyms_cache_dir();
	ck_assert_str_eq(d, "/h/.cache/proftop");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	ck_assert_ptr_null(kallsyms_cache_dir());
}
END_TEST

static Suite *kallsyms_cache_suite(void)
{
	Suite *s = suite_create("kallsyms_cache");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_round_trip_real);
	tcase_add_test(tc, test_stale);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_permissions);
	tcase_add_test(tc, test_save_dirs_and_restricted);
	tcase_add_test(tc, test_hidden);
	tcase_add_test(tc, test_dir);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(kallsyms_cache_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
