/* The refresh scheduler: engine_run's timing decisions, without a clock,
 * a ring or a machine (see refresh.h). */
#include "config.h"

#include "refresh.h"

#include <string.h>

void refresh_init(struct refresh *s, const struct refresh_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	/* Intervals count from the start (the events sample from then). */
	s->last = cfg->start;
	s->next = cfg->start + cfg->delay;
	if (cfg->first_frame && cfg->delay > REFRESH_FIRST_FRAME)
		s->first = cfg->start + REFRESH_FIRST_FRAME;
}

/* A printed refresh is due but the kernel's symbols are loading: the
 * loop keeps reading the rings rather than join their thread, which would
 * leave the rings to overflow. */
static bool refresh_held(const struct refresh *s, const struct refresh_input *in)
{
	return s->cfg.wait_kernel && in->kernel_loading;
}

double refresh_timeout(const struct refresh *s, const struct refresh_input *in)
{
	double wait = (s->first ? s->first : s->next) - in->now;

	if (wait <= 0 && refresh_held(s, in))
		wait = REFRESH_KERNEL_POLL;
	/* Past the first frame's time and waiting for symbols. */
	if (s->first && wait < 0)
		wait = REFRESH_FIRST_FRAME_POLL;
	/* The /proc sweep goes on between ring reads. */
	if (in->synthesizing)
		wait = 0;
	if ((s->first || s->catch_up) && wait > REFRESH_FIRST_POLL)
		wait = REFRESH_FIRST_POLL;
	return wait < 0 ? 0 : wait;
}

static void refresh_publish(const struct refresh *s, const struct refresh_input *in, bool preview,
			  bool last, struct refresh_action *out)
{
	out->what = preview ? REFRESH_PREVIEW : REFRESH_FULL;
	out->interval = in->now - s->last;
	out->last = last;
	/* A preview does not wait for the kernel's symbols (user rows come
	 * first) nor for other symbols (the first frame waited already). */
	out->wait_kernel = !preview && s->cfg.wait_kernel;
	/* The last printed table has no next one to show what is still
	 * loading: it waits longer. */
	out->symbols_wait_ms = preview ? 0 :
			       last && s->cfg.last_waits ? REFRESH_LAST_SYMBOLS_WAIT_MS :
							   REFRESH_SYMBOLS_WAIT_MS;
}

void refresh_step(struct refresh *s, const struct refresh_input *in, struct refresh_action *out)
{
	double now = in->now;

	memset(out, 0, sizeof(*out));
	if (in->data)
		s->printed_since_data = false;
	if (in->ended)
		s->ended = true;
	/* The first frame is worth a short wait for the symbols of the hot
	 * DSOs: a frame full of [unknown] tells the user nothing.  The DSOs
	 * sampled so far are the hot ones: it waits for those, not for every
	 * one a busy system adds since. */
	if (s->first && now >= s->first && !s->ticket_taken) {
		s->ticket = in->symbols_queued;
		s->ticket_taken = true;
	}
	if (s->first && now >= s->first && now < s->next && !s->ended &&
	    (in->symbols_loaded >= s->ticket || now >= s->first + REFRESH_FIRST_FRAME_WAIT)) {
		refresh_publish(s, in, true, false, out);
		s->first = 0;
		s->catch_up = true;
		s->shown_at = now;
		return;
	}
	/* Until the first full refresh, each batch of symbols that comes in
	 * (late hot DSOs, the kernel's) is shown at once rather than after a
	 * whole -d. */
	if (s->catch_up && now < s->next && !s->ended && now >= s->shown_at + REFRESH_CATCH_UP &&
	    (in->symbols_loaded > s->shown_loaded || (!s->shown_kernel && !in->kernel_loading))) {
		refresh_publish(s, in, true, false, out);
		s->shown_at = now;
		return;
	}
	if (now >= s->next && !s->ended && refresh_held(s, in)) {
		out->what = REFRESH_HOLD;
		return;
	}
	if (now >= s->next || s->ended) {
		s->first = 0;
		s->catch_up = false;
		/* At the end, a refresh only if records came since the last. */
		if (!s->ended || !s->printed_since_data || s->refreshes == 0) {
			refresh_publish(s, in, false,
				      s->ended ||
					      (s->cfg.iterations && s->refreshes + 1 >= s->cfg.iterations),
				      out);
			s->printed_since_data = true;
			s->refreshes++;
		}
		s->last = now;
		/* A refresh that took longer than -d does not make the next
		 * ones come back to back: they keep to the -d grid. */
		while (s->next <= now)
			s->next += s->cfg.delay;
		if (s->cfg.iterations && s->refreshes >= s->cfg.iterations)
			out->stop = true;
	}
	if (s->ended)
		out->stop = true;
}

void refresh_shown(struct refresh *s, uint64_t symbols_loaded, bool kernel_loading)
{
	s->shown_loaded = symbols_loaded;
	s->shown_kernel = !kernel_loading;
}

void refresh_final(const struct refresh_config *cfg, double interval, struct refresh_action *out)
{
	struct refresh s;
	struct refresh_input in = { .now = interval };

	memset(&s, 0, sizeof(s));
	s.cfg = *cfg;
	refresh_publish(&s, &in, false, true, out);
}
