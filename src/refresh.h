/* The refresh scheduler: when the engine publishes a snapshot (a quick
 * first frame, catch-up frames while symbols come in, a refresh every -d,
 * held while the kernel's symbols load), decided from times and events
 * alone, so that it is tested without perf_event_open or a clock. */
#ifndef PROFTOP_REFRESH_H
#define PROFTOP_REFRESH_H

#include <stdbool.h>
#include <stdint.h>

/* Seconds from the start to the first frame (first_frame): the user sees
 * the hot functions at once, then a refresh every -d. */
#define REFRESH_FIRST_FRAME 0.1
/* Ring reads until then are at most this far apart (s): the hot DSOs
 * start loading early. */
#define REFRESH_FIRST_POLL 0.03
/* How long past REFRESH_FIRST_FRAME the first frame may wait for the
 * symbols of the DSOs sampled so far (s). */
#define REFRESH_FIRST_FRAME_WAIT 0.3
/* Then, until the first full refresh, a frame at most this often (s)
 * when more symbols have come in. */
#define REFRESH_CATCH_UP 0.2
/* Past the first frame's time and waiting for symbols: look again (s). */
#define REFRESH_FIRST_FRAME_POLL 0.01
/* How often a refresh held for the kernel's symbols looks again (s). */
#define REFRESH_KERNEL_POLL 0.02
/* How long a refresh waits for symbols still loading (ms). */
#define REFRESH_SYMBOLS_WAIT_MS 150
/* The same for the last printed table of a session (samples held for
 * symbols still loading after it are never shown). */
#define REFRESH_LAST_SYMBOLS_WAIT_MS 5000

struct refresh_config {
	double start;          /* when the events began sampling (monotonic s) */
	double delay;          /* -d: seconds between refreshes */
	long iterations;       /* -n: refreshes before the end; 0 = no limit */
	bool first_frame;      /* a quick first frame (the browser) */
	bool wait_kernel;      /* refreshes wait for the kernel's symbols (printed
				  tables are read whole, later: no kernel row may
				  be missing for being early) */
	bool last_waits;       /* the last refresh waits REFRESH_LAST_SYMBOLS_WAIT_MS
				  for other symbols (printed tables) */
};

/* What the loop saw, read just before asking. */
struct refresh_input {
	double now;                /* monotonic s */
	bool data;                 /* records were read since the last step */
	bool ended;                /* the command, or every -p target, is gone */
	bool kernel_loading;       /* the kernel's symbols are still loading */
	bool synthesizing;         /* the /proc sweep is under way */
	uint64_t symbols_queued;   /* symbol jobs queued so far (machine_symbols_ticket) */
	uint64_t symbols_loaded;   /* and finished (machine_symbols_loaded) */
};

enum refresh_what {
	REFRESH_NOTHING,   /* read again */
	REFRESH_HOLD,      /* a refresh is due but held for the kernel's symbols */
	REFRESH_PREVIEW,   /* publish without aging the hist (first and catch-up frames) */
	REFRESH_FULL,   /* publish, then age the hist */
};

struct refresh_action {
	enum refresh_what what;
	/* With REFRESH_PREVIEW and REFRESH_FULL: */
	double interval;       /* seconds since the last refresh (samples per second) */
	bool last;             /* no refresh comes after this one */
	bool wait_kernel;      /* take the kernel's symbols first, waiting for them */
	int symbols_wait_ms;   /* then wait at most this long for other symbols
				  still loading (0 with a preview: no wait) */
	/* Leave the loop, after publishing: the end, or -n reached. */
	bool stop;
};

/* The state; its fields are the scheduler's own. */
struct refresh {
	struct refresh_config cfg;
	double last;               /* the last refresh (or the start) */
	double next;               /* the next refresh is due */
	double first;              /* the first frame is due; 0: none (any more) */
	bool catch_up;             /* between the first frame and the first refresh */
	bool ticket_taken;
	uint64_t ticket;           /* the symbol jobs the first frame waits for */
	double shown_at;           /* the last preview */
	uint64_t shown_loaded;     /* symbol jobs done at the last preview */
	bool shown_kernel;         /* the kernel's symbols were in it */
	long refreshes;
	bool printed_since_data;   /* a refresh since the last records */
	bool ended;
};

void refresh_init(struct refresh *s, const struct refresh_config *cfg);

/* How long to wait for records before the next step (s, >= 0). */
double refresh_timeout(const struct refresh *s, const struct refresh_input *in);

/* After a wait and a read: what to do now. */
void refresh_step(struct refresh *s, const struct refresh_input *in, struct refresh_action *out);

/* After publishing a REFRESH_PREVIEW: the symbol jobs done and whether the
 * kernel's symbols were still loading once it was out, so that the next
 * catch-up frame comes only when there is more to show. */
void refresh_shown(struct refresh *s, uint64_t symbols_loaded, bool kernel_loading);

/* The one refresh of a recording read whole, covering interval s. */
void refresh_final(const struct refresh_config *cfg, double interval, struct refresh_action *out);

#endif
