/* The interactive browser: the engine on its own thread, this thread owning
 * the terminal (curses), both joined by pipes; draws the browser model.
 * Over 900 lines because the terminal's whole life is here: capturing the
 * output, restoring the tty on every exit path (signals, crashes, atexit),
 * the input loop and the drawing, which share that state; the columns and
 * their layout are column.c's and layout.c's. */
#include "config.h"

#include "tui.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "browser.h"
#include "errmsg.h"
#include "layout.h"
#include "output.h"
#include "pprof.h"
#include "provide_curses.h"
#include "util.h"
#include "view.h"

/* Captured stdout/stderr kept for after endwin: enough for any message,
 * not for a chatty command's whole output. */
#define TUI_LOG_MAX (64 * 1024)
/* A message from stderr stays this long in the status line (seconds). */
#define TUI_NOTE_SECS 8.0
/* Header lines, the column titles, and the status line. */
#define TUI_HEADER_LINES 3
#define TUI_CHROME (TUI_HEADER_LINES + 2)
/* The payload pane only when the table keeps at least this many rows. */
#define TUI_PANE_MIN_ROWS 5

enum tui_pair {
	TUI_PAIR_HOT = 1,
	TUI_PAIR_WARM,
	TUI_PAIR_TITLE,
	TUI_PAIR_STATUS,
	TUI_PAIR_ALERT,
	TUI_PAIR_HEADER,
};

struct tui {
	const struct tui_config *cfg;
	const struct tui_source *src;
	struct browser b;

	/* shared with the engine thread, under lock */
	pthread_mutex_t lock;
	struct snapshot *pending;    /* newest snapshot not yet shown */
	bool engine_done;
	int engine_status;

	pthread_t thread;
	bool thread_started;
	int wake[2];                 /* engine thread -> UI: a snapshot or the end */
	int sigfd;                   /* SIGINT, SIGTERM, SIGHUP, SIGWINCH */

	/* the terminal */
	int tty_fd;                  /* a dup of stdout: curses writes here */
	FILE *tty;
	SCREEN *screen;
	bool curses_on;
	bool color;
	struct termios saved_termios;
	bool have_termios;

	/* stdout and stderr while the screen is ours */
	int out_pipe;                /* read end */
	int saved_stdout, saved_stderr;
	struct strbuf log;           /* everything captured, for after endwin */
	size_t log_dropped;
	char partial[256];           /* the line being received */
	size_t partial_len;
	char note[256];              /* last captured line, for the status line */
	double note_until;

	char end_note[256];          /* why the engine stopped, once it has */
	bool user_quit;
};

static struct tui *tui_active;   /* for the crash handler and atexit */
static char tui_reset_seq[256];  /* terminal reset, precomputed for signals */
static size_t tui_reset_len;

/* ---- the engine thread ---- */

/* The engine's refresh callback, on the engine thread: keep the newest
 * snapshot in the slot and wake the UI.  Never waits on the UI. */
static bool tui_on_snapshot(struct snapshot *snap, void *ctx)
{
	struct tui *t = ctx;
	struct snapshot *copy = xmalloc(sizeof(*copy)), *old;

	*copy = *snap;
	pthread_mutex_lock(&t->lock);
	old = t->pending;
	t->pending = copy;
	pthread_mutex_unlock(&t->lock);
	if (old) {
		snapshot_release(old);
		free(old);
	}
	if (write(t->wake[1], "s", 1) < 0) {
		/* Full pipe: the UI has a wake-up pending already. */
	}
	return true;
}

static void *tui_engine_thread(void *arg)
{
	struct tui *t = arg;
	int status = t->src->run(t->src->ctx, tui_on_snapshot, t);

	fflush(NULL);
	pthread_mutex_lock(&t->lock);
	t->engine_done = true;
	t->engine_status = status;
	pthread_mutex_unlock(&t->lock);
	if (write(t->wake[1], "e", 1) < 0) {
		/* The UI also checks engine_done on every wake-up. */
	}
	return NULL;
}

/* ---- terminal restoration ---- */

static void tui_add_reset(const char *cap)
{
	char *s = tigetstr(cap);
	size_t len;

	if (!s || s == (char *)-1)
		return;
	len = strlen(s);
	if (tui_reset_len + len < sizeof(tui_reset_seq)) {
		memcpy(tui_reset_seq + tui_reset_len, s, len);
		tui_reset_len += len;
	}
}

/* On a crash: only async-signal-safe calls.  Put the tty back as it was,
 * leave the alternate screen, then let the signal do its default. */
static void tui_crash(int sig)
{
	struct tui *t = tui_active;

	if (t) {
		if (t->saved_stderr >= 0)
			dup2(t->saved_stderr, STDERR_FILENO);
		if (t->have_termios)
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &t->saved_termios);
		if (t->tty_fd >= 0 && tui_reset_len &&
		    write(t->tty_fd, tui_reset_seq, tui_reset_len) < 0) {
			/* nothing more to try */
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tui_install_crash_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tui_crash;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* ---- captured output ---- */

static void tui_log_add(struct tui *t, const char *buf, size_t n)
{
	size_t room = t->log.len < TUI_LOG_MAX ? TUI_LOG_MAX - t->log.len : 0;

	if (n > room) {
		t->log_dropped += n - room;
		n = room;
	}
	strbuf_add(&t->log, buf, n);
}

/* Read what libraries, the engine or the command wrote; the last complete
 * line becomes the status note. */
static bool tui_read_output(struct tui *t)
{
	char buf[4096];
	bool got = false;
	ssize_t n;
	ssize_t i;

	while ((n = read(t->out_pipe, buf, sizeof(buf))) > 0) {
		tui_log_add(t, buf, (size_t)n);
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				t->partial[t->partial_len] = '\0';
				if (t->partial_len) {
					snprintf(t->note, sizeof(t->note), "%s", t->partial);
					t->note_until = now_monotonic() + TUI_NOTE_SECS;
					got = true;
				}
				t->partial_len = 0;
			} else if (t->partial_len + 1 < sizeof(t->partial)) {
				t->partial[t->partial_len++] = buf[i];
			}
		}
	}
	return got;
}

/* stdout and stderr into a pipe, so that nothing but curses writes to the
 * screen; curses gets its own dup of the terminal. */
static int tui_capture_output(struct tui *t)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fflush(stdout);
	fflush(stderr);
	t->saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	t->saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	t->tty_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (t->saved_stdout < 0 || t->saved_stderr < 0 || t->tty_fd < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	/* dup2 clears close-on-exec: a command we start inherits the pipe. */
	dup2(p[1], STDOUT_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	t->out_pipe = p[0];
	return 0;
}

/* Give stdout and stderr back and print what was captured. */
static void tui_release_output(struct tui *t)
{
	if (t->saved_stdout < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	dup2(t->saved_stdout, STDOUT_FILENO);
	dup2(t->saved_stderr, STDERR_FILENO);
	close(t->saved_stdout);
	close(t->saved_stderr);
	t->saved_stdout = t->saved_stderr = -1;
	tui_read_output(t);
	close(t->out_pipe);
	t->out_pipe = -1;
	if (t->log.len && fwrite(t->log.buf, 1, t->log.len, stderr) != t->log.len)
		return;
	if (t->log_dropped)
		fprintf(stderr, "proftop: %zu more bytes of output were dropped\n", t->log_dropped);
	fflush(stderr);
}

static void tui_end_curses(struct tui *t)
{
	if (!t->curses_on)
		return;
	t->curses_on = false;
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
}

/* Also run by exit(), e.g. after an allocation failure in fatal(). */
static void tui_atexit(void)
{
	struct tui *t = tui_active;

	if (!t)
		return;
	tui_end_curses(t);
	tui_release_output(t);
	tui_active = NULL;
}

/* ---- curses ---- */

static bool tui_want_color(const struct tui_config *c)
{
	const char *nc = getenv("NO_COLOR");

	/* https://no-color.org: present and not empty. */
	return !c->no_color && !(nc && *nc);
}

static int tui_start_curses(struct tui *t)
{
	t->have_termios = tcgetattr(STDIN_FILENO, &t->saved_termios) == 0;
	t->tty = fdopen(t->tty_fd, "w");
	if (!t->tty)
		return -errno;
	t->screen = newterm(NULL, t->tty, stdin);
	if (!t->screen)
		return -ENOTTY;
	set_term(t->screen);
	t->curses_on = true;
	/* Ctrl-C is a key (quit), not a SIGINT to the command we run. */
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	tui_reset_len = 0;
	tui_add_reset("sgr0");
	tui_add_reset("cnorm");
	tui_add_reset("rmcup");
	if (tui_want_color(t->cfg) && has_colors() && start_color() == OK) {
		short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;

		t->color = true;
		init_pair(TUI_PAIR_HOT, COLOR_RED, bg);
		init_pair(TUI_PAIR_WARM, COLOR_GREEN, bg);
		init_pair(TUI_PAIR_TITLE, COLOR_BLACK, COLOR_GREEN);
		init_pair(TUI_PAIR_STATUS, COLOR_BLACK, COLOR_CYAN);
		init_pair(TUI_PAIR_ALERT, COLOR_YELLOW, bg);
		init_pair(TUI_PAIR_HEADER, COLOR_CYAN, bg);
	}
	return 0;
}

static attr_t tui_attr(const struct tui *t, enum tui_pair pair)
{
	if (t->color)
		return COLOR_PAIR(pair) | (pair == TUI_PAIR_HOT || pair == TUI_PAIR_ALERT ? A_BOLD : 0);
	/* Monochrome: weight and reverse video carry the same meaning. */
	switch (pair) {
	case TUI_PAIR_HOT:
	case TUI_PAIR_ALERT:
		return A_BOLD;
	case TUI_PAIR_TITLE:
	case TUI_PAIR_STATUS:
		return A_REVERSE;
	default:
		return A_NORMAL;
	}
}

/* Text at (y, x), cut to the screen's width with "…" in the middle. */
static void tui_put(int y, int x, const char *s, int width)
{
	char buf[1024];

	if (x >= COLS || width <= 0)
		return;
	if (x + width > COLS)
		width = COLS - x;
	layout_ellipsize(s, (unsigned)width, buf, sizeof(buf));
	mvaddstr(y, x, buf);
}

/* A whole line: fill with spaces in attr, then the text, cut at the end
 * (header and status lines put what matters most first). */
static void tui_line(int y, attr_t attr, const char *s)
{
	char buf[1024];
	unsigned w = layout_text_width(s);

	attrset(attr);
	move(y, 0);
	hline(' ', COLS);
	snprintf(buf, sizeof(buf), "%s", s);
	if (COLS > 1 && w > (unsigned)COLS) {
		size_t i = 0;
		unsigned cp = 0;

		/* Keep COLS - 1 characters, then "…". */
		while (buf[i] && cp < (unsigned)COLS - 1) {
			i++;
			while (((unsigned char)buf[i] & 0xc0) == 0x80)
				i++;
			cp++;
		}
		snprintf(buf + i, sizeof(buf) - i, "\xe2\x80\xa6");
	}
	tui_put(y, 0, buf, COLS);
	attrset(A_NORMAL);
}

static const char *tui_mode_name(enum hist_mode m)
{
	return m == HIST_ZERO ? "zero" : m == HIST_ACCUMULATE ? "accumulate" : "decay";
}

static void tui_draw_header(struct tui *t)
{
	const struct snapshot *s = t->b.snap;
	const struct browser *b = &t->b;
	const struct tui_config *c = t->cfg;
	char line[1024], rate[64];
	double kpct = 0;
	int x;

	if (!s) {
		snprintf(line, sizeof(line), "proftop  %s  waiting for the first samples...", c->cpus);
		attrset(tui_attr(t, TUI_PAIR_HEADER));
		tui_line(0, tui_attr(t, TUI_PAIR_HEADER) | A_BOLD, line);
		return;
	}
	if (s->freq)
		snprintf(rate, sizeof(rate), "%llu Hz", (unsigned long long)s->sample_freq);
	else
		snprintf(rate, sizeof(rate), "period %llu", (unsigned long long)s->sample_period);
	snprintf(line, sizeof(line), "proftop  event %s %s  target: %s  %s%s%s%s", s->event, rate,
		 s->target, c->cpus, s->event_note ? "  (" : "", s->event_note ? s->event_note : "",
		 s->event_note ? ")" : "");
	tui_line(0, tui_attr(t, TUI_PAIR_HEADER) | A_BOLD, line);

	/* Line 2: counters, with lost and throttled standing out when set. */
	if (s->period)
		kpct = 100.0 * (double)s->kernel_period / (double)s->period;
	move(1, 0);
	clrtoeol();
	snprintf(line, sizeof(line), "Samples: %llu (%.0f/s)  ", (unsigned long long)s->total_samples,
		 s->samples_per_sec);
	tui_put(1, 0, line, COLS);
	x = (int)layout_text_width(line);
	snprintf(line, sizeof(line), "lost: %llu", (unsigned long long)s->lost);
	attrset(s->lost ? tui_attr(t, TUI_PAIR_ALERT) : A_NORMAL);
	tui_put(1, x, line, COLS - x);
	x += (int)layout_text_width(line) + 2;
	snprintf(line, sizeof(line), "throttled: %llu", (unsigned long long)s->throttled);
	attrset(s->throttled ? tui_attr(t, TUI_PAIR_ALERT) : A_NORMAL);
	tui_put(1, x, line, COLS - x);
	x += (int)layout_text_width(line) + 2;
	attrset(A_NORMAL);
	snprintf(line, sizeof(line), "user %.1f%% kernel %.1f%%  refresh %gs  %s", 100.0 - kpct, kpct,
		 c->delay, tui_mode_name(b->mode));
	tui_put(1, x, line, COLS - x);
	x += (int)layout_text_width(line) + 2;
	if (b->paused || t->engine_done) {
		attrset(tui_attr(t, TUI_PAIR_ALERT) | A_REVERSE);
		tui_put(1, x, b->paused ? " PAUSED: sampling goes on " : " ENDED ", COLS - x);
		attrset(A_NORMAL);
	}

	/* Line 3: what shapes the table. */
	{
		struct strbuf sb;

		strbuf_init(&sb);
		strbuf_addf(&sb, "Sort: %s  %s", browser_sort_name(b),
			    b->relative ? "% of shown rows" :
			    s->wall ? "% of all wall time" :
			    s->off_cpu ? "% of all off-CPU time" : "% of all samples");
		if (s->wall)
			strbuf_addf(&sb, "  on-CPU %.1f ms/s", s->oncpu_ms_per_sec);
		if (s->off_cpu)
			strbuf_addf(&sb, "  off-CPU %.1f ms/s  switches %.0f/s  dropped %llu",
				    s->offcpu_ms_per_sec, s->switches_per_sec,
				    (unsigned long long)s->offcpu_dropped);
		if (s->symbols_loading)
			strbuf_addf(&sb, "  loading symbols: %zu", s->symbols_loading);
		if (s->debuginfod_active)
			strbuf_addf(&sb, "  debuginfod: %zu", s->debuginfod_active);
		if (b->filter[0])
			strbuf_addf(&sb, "  Filter: %s", b->filter);
		if (b->zoom_comm)
			strbuf_addf(&sb, "  Zoom command: %s", b->zoom_comm);
		if (b->zoom_dso)
			strbuf_addf(&sb, "  Zoom DSO: %s", b->zoom_dso);
		if (b->hide_kernel)
			strbuf_addstr(&sb, "  kernel hidden");
		if (b->hide_user)
			strbuf_addstr(&sb, "  user hidden");
		if (b->percent_limit > 0)
			strbuf_addf(&sb, "  limit %g%%", b->percent_limit);
		if (b->max_rows)
			strbuf_addf(&sb, "  first %zu rows", b->max_rows);
		strbuf_addf(&sb, "  rows: %zu of %zu", b->nr_rows, s->nr_rows);
		tui_line(2, (b->filter[0] || b->zoom_comm || b->zoom_dso) ? A_BOLD : A_NORMAL,
			 sb.buf);
		strbuf_release(&sb);
	}
}

/* Line l's cell text of column col (the Symbol column without its mark). */
static void tui_cell_text(const struct snapshot *snap, const struct browser_line *l,
			  enum column_id col, char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb);
	column_text(&sb, snap, l->row, col, l->self, l->children, COLUMN_SCREEN);
	snprintf(buf, size, "%s", sb.buf);
	strbuf_release(&sb);
}

/* The widths the columns would like, from every row line (not only those
 * on screen, so that scrolling does not move the columns). */
static void tui_wants(const struct browser *b, unsigned *want)
{
	/* Every cell of every row, each redraw: one buffer for them all
	 * (a malloc, a copy and a free a cell were half the time), cut
	 * as tui_cell_text's 1024 bytes would be. */
	struct strbuf sb;
	size_t i, k;

	memset(want, 0, COLUMN__MAX * sizeof(*want));
	strbuf_init(&sb);
	for (i = 0; i < b->nr_lines; i++) {
		const struct browser_line *l = &b->lines[i];

		if (l->node)
			continue;
		for (k = 0; k < b->nr_cols; k++) {
			enum column_id c = b->cols[k];
			unsigned w;

			strbuf_reset(&sb);
			column_text(&sb, b->snap, l->row, c, l->self, l->children, COLUMN_SCREEN);
			if (sb.len >= 1024)
				sb.buf[1023] = '\0';
			w = layout_text_width(sb.buf) + (c == COLUMN_SYM ? COLUMN_MARK_WIDTH : 0);
			if (w > want[c])
				want[c] = w;
		}
	}
	strbuf_release(&sb);
}

/* perf's heat: red from 5%, green from 0.5%. */
static attr_t tui_heat(const struct tui *t, double pct)
{
	if (pct >= 5.0)
		return tui_attr(t, TUI_PAIR_HOT);
	if (pct >= 0.5 && t->color)
		return tui_attr(t, TUI_PAIR_WARM);
	return A_NORMAL;
}

/* --baseline's Delta: red up, green down, as a diff reads. */
static attr_t tui_delta(const struct tui *t, const struct snapshot_row *r)
{
	double d = column_delta(r);

	if (d >= 0.005)
		return tui_attr(t, TUI_PAIR_HOT);
	if (d <= -0.005 && t->color)
		return tui_attr(t, TUI_PAIR_WARM);
	return A_NORMAL;
}

/* A node of an expanded tree, from the first name column on:
 * indentation by depth, +/- when it has children, its share, its name. */
static void tui_draw_node(struct tui *t, const struct browser_line *l, const struct layout *lay,
			  int y, int gutter, attr_t base)
{
	const struct snapshot_node *n = l->node;
	const struct layout_cell *c = NULL;
	char text[1024];
	size_t k;
	int x;

	for (k = 0; k < lay->n && !c; k++)
		if (!lay->cells[k].right)
			c = &lay->cells[k];
	x = gutter + (c ? (int)c->x : 0) + 2 * (int)(l->depth - 1);
	snprintf(text, sizeof(text), "%s %.2f%% ", !l->expandable ? "-" : l->expanded ? "v" : ">",
		 n->share);
	attrset(base | tui_heat(t, n->share));
	tui_put(y, x, text, COLS - x);
	x += (int)layout_text_width(text);
	attrset(base);
	snprintf(text, sizeof(text), "%s %s%s  %s", n->kernel ? "[k]" : "[.]",
		 n->symbol ? n->symbol : "[unknown]", n->inlined ? COLUMN_INLINED : "",
		 n->dso ? n->dso : "");
	tui_put(y, x, text, COLS - x);
}

/* The table's layout.  On a narrow terminal the payload's columns give
 * way, the lowest keep rank (the least telling) first, until the names fit
 * (the pane still has every count); never the column the table is sorted
 * by. */
static void tui_layout(const struct browser *b, struct layout *lay, const unsigned *want,
		       unsigned width)
{
	enum column_id cols[COLUMN__MAX];
	size_t n = b->nr_cols, i, j, drop;

	memcpy(cols, b->cols, n * sizeof(*cols));
	for (;;) {
		const struct layout_cell *last;

		layout_compute(lay, b->snap, cols, n, want, width);
		last = lay->n ? &lay->cells[lay->n - 1] : NULL;
		if (!last || last->x + last->width <= width)
			return;
		for (i = 0, drop = n; i < n; i++) {
			unsigned r = column_keep_rank(b->snap, cols[i]);

			if (r && cols[i] != b->sort_col &&
			    (drop == n || r < column_keep_rank(b->snap, cols[drop])))
				drop = i;
		}
		if (drop == n)
			return;
		for (i = j = 0; i < n; i++)
			if (i != drop)
				cols[j++] = cols[i];
		n = j;
	}
}

static void tui_draw_table(struct tui *t, int y0, int rows)
{
	struct browser *b = &t->b;
	unsigned want[COLUMN__MAX];
	struct layout lay;
	char text[1024], cut[1024];
	size_t k;
	int y;
	/* With callchains, a gutter for the +/- of expandable rows, as perf. */
	int gutter = b->snap && b->snap->callchains ? 2 : 0;

	tui_wants(b, want);
	tui_layout(b, &lay, want, (unsigned)(COLS > gutter ? COLS - gutter : 1));

	/* Column titles, the sort column marked. */
	attrset(tui_attr(t, TUI_PAIR_TITLE));
	move(y0, 0);
	hline(' ', COLS);
	for (k = 0; k < lay.n; k++) {
		const struct layout_cell *c = &lay.cells[k];
		const char *title = browser_col_title(b, c->col);
		unsigned tw = layout_text_width(title);

		if (c->col == b->sort_col)
			attron(A_BOLD | A_UNDERLINE);
		tui_put(y0, gutter + (int)(c->x + (c->right && tw < c->width ? c->width - tw : 0)),
			title, (int)c->width);
		if (c->col == b->sort_col)
			attroff(A_BOLD | A_UNDERLINE);
	}
	attrset(A_NORMAL);

	for (y = 0; y < rows; y++) {
		size_t li = b->top + (size_t)y;
		bool sel = li == b->selected;
		attr_t base = sel ? A_REVERSE : A_NORMAL;

		move(y0 + 1 + y, 0);
		if (li >= b->nr_lines) {
			clrtoeol();
			continue;
		}
		attrset(base);
		hline(' ', COLS);
		if (b->lines[li].node) {
			tui_draw_node(t, &b->lines[li], &lay, y0 + 1 + y, gutter, base);
			attrset(A_NORMAL);
			continue;
		}
		if (gutter && b->lines[li].expandable)
			tui_put(y0 + 1 + y, 0, b->lines[li].expanded ? "-" : "+", 1);
		for (k = 0; k < lay.n; k++) {
			const struct layout_cell *c = &lay.cells[k];
			const struct browser_line *l = &b->lines[li];
			unsigned w, width = c->width;
			int x = gutter + (int)c->x;

			if (x >= COLS)
				break;
			tui_cell_text(b->snap, l, c->col, text, sizeof(text));
			if (c->col == COLUMN_SYM) {
				attrset(base | (l->row->kernel ? A_BOLD : A_NORMAL));
				tui_put(y0 + 1 + y, x, column_mark(l->row), (int)width);
				attrset(base);
				x += COLUMN_MARK_WIDTH;
				width = width > COLUMN_MARK_WIDTH ? width - COLUMN_MARK_WIDTH : 0;
			}
			w = layout_ellipsize(text, width, cut, sizeof(cut));
			if (c->right && w < width)
				x += (int)(width - w);
			if (c->col == COLUMN_SELF)
				attrset(base | tui_heat(t, l->self));
			else if (c->col == COLUMN_CHILDREN)
				attrset(base | tui_heat(t, l->children));
			else if (c->col == COLUMN_DELTA)
				attrset(base | tui_delta(t, l->row));
			tui_put(y0 + 1 + y, x, cut, (int)width);
			attrset(base);
		}
		attrset(A_NORMAL);
	}
	if (!b->nr_lines && b->snap) {
		const char *why = b->snap->nr_rows ? "no rows match: Esc zooms out, / then Enter "
						     "clears the filter" :
						     "no samples in this interval yet";
		tui_put(y0 + 2, 2, why, COLS - 2);
	}
}

/* The per-instruction view (a): its title and columns, then a line per
 * instruction, the percent coloured by heat as in the table. */
static void tui_draw_insns(struct tui *t, int y0, int rows)
{
	struct annotate_view *v = &t->b.ann;
	struct strbuf sb;
	size_t n;
	int y;

	strbuf_init(&sb);
	annotate_view_set_width(v, COLS > 0 ? (unsigned)COLS : 1);
	annotate_view_columns(v, &sb);
	strbuf_addstr(&sb, "   ");
	annotate_view_title(v, &sb);
	/* Payload columns leave no room for the title: it goes above them. */
	if (v->pw && layout_text_width(sb.buf) > (unsigned)COLS && rows > 1) {
		strbuf_reset(&sb);
		annotate_view_title(v, &sb);
		tui_line(y0++, tui_attr(t, TUI_PAIR_TITLE), sb.buf);
		rows--;
		strbuf_reset(&sb);
		annotate_view_columns(v, &sb);
	}
	tui_line(y0, tui_attr(t, TUI_PAIR_TITLE), sb.buf);
	annotate_view_set_page(v, (size_t)rows);
	n = annotate_view_lines(v);
	for (y = 0; y < rows; y++) {
		size_t li = v->top + (size_t)y;
		attr_t base = li == v->selected ? A_REVERSE : A_NORMAL;
		double pct;
		bool src;

		if (li >= n) {
			move(y0 + 1 + y, 0);
			clrtoeol();
			continue;
		}
		strbuf_reset(&sb);
		annotate_view_line(v, li, &sb, &pct, &src);
		tui_line(y0 + 1 + y, base | (src ? tui_attr(t, TUI_PAIR_HEADER) : A_NORMAL), sb.buf);
		if (!src && pct > 0) {
			attrset(base | tui_heat(t, pct));
			mvaddnstr(y0 + 1 + y, 0, sb.buf, 8);
			attrset(A_NORMAL);
		}
	}
	strbuf_release(&sb);
}

/* The payload breakdown of the selected row, as text lines in sb;
 * returns their number (0: no pane). */
static int tui_pane_text(const struct tui *t, struct strbuf *sb)
{
	const struct browser *b = &t->b;
	const struct snapshot_row *r = browser_selected(b);
	int n = 0;
	size_t i;

	if (!b->payload || !b->detail || b->screen == BROWSER_HELP || !b->snap)
		return 0;
	if (b->screen == BROWSER_INSNS)
		return annotate_view_detail(&b->ann, sb, COLS > 2 ? (size_t)COLS - 2 : 1);
	if (r && r->payload && b->snap->payload->stats_samples(r->payload))
		output_payload_detail(sb, b->snap, r, COLS > 2 ? (size_t)COLS - 2 : 1);
	else
		strbuf_addf(sb, "%s: no %s samples in the selected row\n", b->snap->payload->title,
			    b->snap->payload->title);
	for (i = 0; i < sb->len; i++)
		n += sb->buf[i] == '\n';
	return n;
}

/* The pane under the table: a title line, then the text. */
static void tui_draw_pane(struct tui *t, int y0, const struct strbuf *sb, int lines)
{
	const char *p = sb->buf;
	char line[1024];
	int y;

	for (y = 0; y < lines; y++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!*p) {
			move(y0 + y, 0);
			clrtoeol();
			continue;
		}
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (y == 0) {
			tui_line(y0, tui_attr(t, TUI_PAIR_TITLE), line);
		} else {
			move(y0 + y, 0);
			clrtoeol();
			tui_put(y0 + y, 1, line, COLS - 1);
		}
		p = nl ? nl + 1 : p + len;
	}
}

static void tui_draw_help(struct tui *t, int y0, int rows)
{
	struct browser *b = &t->b;
	size_t n = browser_help_lines(), i;
	char line[256];
	int y;

	tui_line(y0, tui_attr(t, TUI_PAIR_TITLE),
		 "Keys (perf top / htop)      Up/Down/PgUp/PgDn scroll, any other key closes");
	if (b->help_top >= n)
		b->help_top = n ? n - 1 : 0;
	for (y = 0, i = b->help_top; y < rows; y++, i++) {
		move(y0 + 1 + y, 0);
		clrtoeol();
		if (i < n) {
			browser_help_line(i, line, sizeof(line));
			tui_put(y0 + 1 + y, 2, line, COLS - 2);
		}
	}
}

static void tui_draw_status(struct tui *t)
{
	struct browser *b = &t->b;
	attr_t attr = tui_attr(t, TUI_PAIR_STATUS);
	char line[512];

	if (b->screen == BROWSER_PROMPT) {
		snprintf(line, sizeof(line), "%s %s_  (Enter: apply, Esc: cancel)",
			 b->prompt == BROWSER_PROMPT_FILTER ? "Filter symbols:" : "Percent limit:",
			 b->input);
		tui_line(LINES - 1, A_NORMAL | A_BOLD, line);
		return;
	}
	if (b->message[0]) {
		snprintf(line, sizeof(line), "%s", b->message);
	} else if (b->screen == BROWSER_INSNS) {
		snprintf(line, sizeof(line),
			 "Esc table  TAB/Shift-TAB hot  t %s  o %s  s source  Enter follow  "
			 "Backspace back  h help  q quit",
			 b->ann.counts ? "percent" : "counts", b->ann.offsets ? "addresses" : "offsets");
	} else if (t->note[0] && now_monotonic() < t->note_until) {
		snprintf(line, sizeof(line), "%s", t->note);
		attr = tui_attr(t, TUI_PAIR_ALERT) | A_REVERSE;
	} else if (t->end_note[0]) {
		snprintf(line, sizeof(line), "%s  q: quit", t->end_note);
		attr = tui_attr(t, TUI_PAIR_ALERT) | A_REVERSE;
	} else {
		snprintf(line, sizeof(line),
			 "h help  q quit  / filter  s sort  t/d zoom  Esc out  %s%s%s%sK/U hide  "
			 "z %s  p pause  F %%base  L limit  P save",
			 b->snap && b->snap->callchains ? "+/E/C expand  G callers/callees  " : "",
			 b->payload ? "I " : "", b->payload ? b->snap->payload->title : "",
			 b->payload ? " pane  " : "",
			 b->mode == HIST_ZERO ? "decay" : "zero");
	}
	tui_line(LINES - 1, attr, line);
}

/* The header's lines below the first three (output_unwind_text's: how
 * chains were unwound, rings too small), drawn from line 3; how many. */
static int tui_draw_unwind(struct tui *t)
{
	struct strbuf sb;
	char *line, *nl;
	int n = 0;

	if (!t->b.snap)
		return 0;
	strbuf_init(&sb);
	output_unwind_text(&sb, t->b.snap);
	for (line = sb.buf; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		tui_line(TUI_HEADER_LINES + n++, A_NORMAL, line);
	}
	strbuf_release(&sb);
	return n;
}

static void tui_draw(struct tui *t)
{
	int extra = tui_draw_unwind(t);
	int head = TUI_HEADER_LINES + extra, rows = LINES - TUI_CHROME - extra, pane;
	struct strbuf pane_text;

	strbuf_init(&pane_text);
	pane = tui_pane_text(t, &pane_text);
	if (pane && rows - pane < TUI_PANE_MIN_ROWS)
		pane = 0;
	rows -= pane;
	if (rows < 1)
		rows = 1;
	browser_set_page(&t->b, (size_t)rows);
	tui_draw_header(t);
	if (t->b.screen == BROWSER_HELP)
		tui_draw_help(t, head, rows);
	else if (t->b.screen == BROWSER_INSNS)
		tui_draw_insns(t, head, rows);
	else
		tui_draw_table(t, head, rows);
	/* The selection may have moved with the page: the pane follows it. */
	if (pane) {
		strbuf_reset(&pane_text);
		tui_pane_text(t, &pane_text);
		tui_draw_pane(t, head + 1 + rows, &pane_text, pane);
	}
	strbuf_release(&pane_text);
	tui_draw_status(t);
	/* Only the cells that changed go out. */
	wnoutrefresh(stdscr);
	doupdate();
}

/* ---- input ---- */

static int tui_translate_key(int ch)
{
	switch (ch) {
	case KEY_UP:
		return BKEY_UP;
	case KEY_DOWN:
		return BKEY_DOWN;
	case KEY_LEFT:
		return BKEY_LEFT;
	case KEY_RIGHT:
		return BKEY_RIGHT;
	case KEY_PPAGE:
		return BKEY_PGUP;
	case KEY_NPAGE:
		return BKEY_PGDN;
	case KEY_HOME:
		return BKEY_HOME;
	case KEY_END:
		return BKEY_END;
	case KEY_ENTER:
	case '\r':
	case '\n':
		return BKEY_ENTER;
	case KEY_BACKSPACE:
		return BKEY_BACKSPACE;
	case KEY_F(1):
		return BKEY_F1;
	case KEY_BTAB:
		return BKEY_BTAB;
	default:
		return ch;
	}
}

static void tui_resize(struct tui *t)
{
	struct winsize ws;

	if (ioctl(t->tty_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	/* What the terminal shows after a resize is anyone's guess (tmux and
	 * xterm reflow it): repaint everything once. */
	clearok(curscr, TRUE);
}

/* Take the newest snapshot unless the display is paused. */
static void tui_take_snapshot(struct tui *t)
{
	struct snapshot *snap = NULL;

	pthread_mutex_lock(&t->lock);
	if (!t->b.paused) {
		snap = t->pending;
		t->pending = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	if (snap)
		browser_set_snapshot(&t->b, snap);
}

/* The engine has returned: say why, and leave if asked to. */
static bool tui_engine_ended(struct tui *t)
{
	const struct tui_config *c = t->cfg;
	int st = t->engine_status;

	if (c->input)
		snprintf(t->end_note, sizeof(t->end_note), "%s: %s", c->input,
			 st ? "damaged recording (see the message on exit)" : "the whole recording");
	else if (c->command)
		snprintf(t->end_note, sizeof(t->end_note),
			 "the command ended (exit status %d): last table kept", st);
	else if (c->iterations)
		snprintf(t->end_note, sizeof(t->end_note), "%ld refreshes done: last table kept",
			 c->iterations);
	else
		snprintf(t->end_note, sizeof(t->end_note), "the target exited: last table kept");
	return c->exit_on_end;
}

static int tui_loop(struct tui *t)
{
	bool done = false;

	tui_draw(t);
	while (!done) {
		struct pollfd pfd[4] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = t->wake[0], .events = POLLIN },
			{ .fd = t->sigfd, .events = POLLIN },
			{ .fd = t->out_pipe, .events = POLLIN },
		};
		bool redraw = false;
		int timeout = -1;
		char buf[64];

		/* The timer: wake when a captured message is due to go. */
		if (t->note[0]) {
			double left = t->note_until - now_monotonic();

			timeout = left > 0 ? (int)(left * 1000) + 10 : 0;
		}
		if (poll(pfd, ARRAY_SIZE(pfd), timeout) < 0 && errno != EINTR)
			break;
		if (t->note[0] && now_monotonic() >= t->note_until) {
			t->note[0] = '\0';
			redraw = true;
		}
		if (pfd[3].revents && tui_read_output(t))
			redraw = true;
		if (pfd[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(t->sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGWINCH) {
					tui_resize(t);
					redraw = true;
				} else {
					t->user_quit = true;
					done = true;
				}
			}
		}
		if (pfd[1].revents & POLLIN) {
			bool ended;

			while (read(t->wake[0], buf, sizeof(buf)) > 0)
				;
			tui_take_snapshot(t);
			pthread_mutex_lock(&t->lock);
			ended = t->engine_done;
			pthread_mutex_unlock(&t->lock);
			if (ended && !t->end_note[0] && tui_engine_ended(t))
				done = true;
			redraw = true;
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			int ch;

			while ((ch = getch()) != ERR) {
				unsigned r;

				if (ch == KEY_RESIZE) {
					redraw = true;
					continue;
				}
				r = browser_key(&t->b, tui_translate_key(ch));
				if (r & BROWSER_SET_MODE)
					t->src->set_mode(t->src->ctx, t->b.mode);
				if (r & BROWSER_RESUMED)
					tui_take_snapshot(t);
				if (r & BROWSER_ANNOTATE)
					browser_annotate_report(&t->b, t->src->annotate(t->src->ctx,
							t->b.ann.symbol, t->b.ann.dso, t->b.ann.hint));
				if (r & BROWSER_QUIT) {
					t->user_quit = true;
					done = true;
					break;
				}
				redraw = true;
			}
			if (pfd[0].revents & (POLLHUP | POLLERR) && !(pfd[0].revents & POLLIN)) {
				/* The terminal went away. */
				t->user_quit = true;
				done = true;
			}
		}
		if (redraw && !done)
			tui_draw(t);
	}
	return 0;
}

/* ---- setup and teardown ---- */

static int tui_signals(struct tui *t, sigset_t *engine_mask)
{
	sigset_t all;

	/* This thread takes INT, TERM, HUP and WINCH through a signalfd; the
	 * engine thread gets SIGCHLD (its command) inside its ppoll.  Block
	 * them all here before anything can start a thread or a child. */
	sigemptyset(&all);
	sigaddset(&all, SIGINT);
	sigaddset(&all, SIGTERM);
	sigaddset(&all, SIGHUP);
	sigaddset(&all, SIGWINCH);
	*engine_mask = all;
	sigaddset(&all, SIGCHLD);
	if (pthread_sigmask(SIG_BLOCK, &all, NULL))
		return -1;
	sigdelset(&all, SIGCHLD);
	t->sigfd = signalfd(-1, &all, SFD_NONBLOCK | SFD_CLOEXEC);
	return t->sigfd < 0 ? -errno : 0;
}

/* --baseline-save: the last table shown, as pprof, once the terminal is
 * back (so that an error can be read).  Returns 0 or -errno. */
static int tui_save_baseline(const struct tui_config *cfg, const struct snapshot *snap)
{
	struct pprof_writer *w = pprof_writer_new(cfg->baseline_save, cfg->comment);
	struct errmsg em = ERRMSG_INIT;
	int err = pprof_writer_snapshot(w, snap, &em);

	if (err)
		msg_error("--baseline-save: %s", errmsg_text(&em, err));
	pprof_writer_free(w);
	return err;
}

int tui_main(const struct tui_config *cfg)
{
	struct browser_init init = { .view = cfg->view, .mode = cfg->mode,
				     .baseline = cfg->baseline };
	struct tui *t = xcalloc(1, sizeof(*t));
	sigset_t engine_mask, ui_mask;
	int status = 0, err;

	t->cfg = cfg;
	t->src = &cfg->source;
	t->tty_fd = t->out_pipe = t->saved_stdout = t->saved_stderr = -1;
	t->sigfd = -1;
	t->wake[0] = t->wake[1] = -1;
	strbuf_init(&t->log);
	pthread_mutex_init(&t->lock, NULL);
	browser_init(&t->b, &init);

	setlocale(LC_ALL, "");
	if (tui_signals(t, &engine_mask) || pipe2(t->wake, O_CLOEXEC | O_NONBLOCK)) {
		msg_error("cannot set up the terminal UI: %s", strerror(errno));
		status = 1;
		goto out;
	}
	/* Capture before the engine starts a command, so that it inherits
	 * the pipe and cannot scribble on the screen either. */
	if ((err = tui_capture_output(t)) < 0) {
		msg_error("cannot capture the output: %s", strerror(-err));
		status = 1;
		goto out;
	}
	tui_active = t;
	atexit(tui_atexit);
	status = t->src->start(t->src->ctx);
	if (status)
		goto out_output;

	tui_install_crash_handlers();
	if ((err = tui_start_curses(t)) < 0) {
		tui_release_output(t);
		msg_error("cannot start the terminal UI (TERM=%s): %s; try --batch",
			  getenv("TERM") ? getenv("TERM") : "unset", strerror(-err));
		status = 1;
		goto out_engine;
	}

	/* The engine thread inherits a mask without SIGCHLD. */
	pthread_sigmask(SIG_SETMASK, NULL, &ui_mask);
	pthread_sigmask(SIG_SETMASK, &engine_mask, NULL);
	err = pthread_create(&t->thread, NULL, tui_engine_thread, t);
	pthread_sigmask(SIG_SETMASK, &ui_mask, NULL);
	if (err) {
		tui_end_curses(t);
		tui_release_output(t);
		msg_error("cannot start the engine thread: %s", strerror(err));
		status = 1;
		goto out_engine;
	}
	t->thread_started = true;

	tui_loop(t);

	t->src->stop(t->src->ctx);
	pthread_join(t->thread, NULL);
	/* The user stopped a running session: that is a success; a session
	 * that ended by itself reports the engine's status. */
	status = t->user_quit && !t->end_note[0] ? 0 : t->engine_status;
	tui_end_curses(t);
out_output:
	tui_release_output(t);
out_engine:
	tui_active = NULL;
	if (cfg->baseline_save && t->b.snap && tui_save_baseline(cfg, t->b.snap) && !status)
		status = 1;
	browser_release(&t->b);
	if (t->pending) {
		snapshot_release(t->pending);
		free(t->pending);
	}
	t->src->release(t->src->ctx);
out:
	if (t->sigfd >= 0)
		close(t->sigfd);
	if (t->wake[0] >= 0) {
		close(t->wake[0]);
		close(t->wake[1]);
	}
	if (t->tty)
		fclose(t->tty);
	else if (t->tty_fd >= 0)
		close(t->tty_fd);
	strbuf_release(&t->log);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return status;
}
