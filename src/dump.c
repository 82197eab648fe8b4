/* -D/--dump: the header, features, attrs and every record of a recording as
 * text, one block per record, stable enough to diff two dumps. */
#include "config.h"

#include "dump.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "errmsg.h"
#include "perfdata.h"
#include "record.h"
#include "util.h"

/* The recording's architecture (uname -m), for raw payload decoders. */
static char dump_arch[32];
/* Its payload decoder (arch_payload_find), or NULL: set by dump_header. */
static const struct arch_payload_ops *dump_payload;
/* For decoders that select by event (IBS): the recording's CPUID and PMU
 * names, and the last event's decoder. */
static struct arch_env dump_env;
static struct arch_pmu *dump_pmus;
static const struct perfdata_event *dump_event;
static const struct arch_payload_ops *dump_event_payload;

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
	"CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static void print_sample_type(FILE *out, uint64_t t)
{
	size_t i;
	bool first = true;

	fprintf(out, "0x%" PRIx64 " (", t);
	for (i = 0; i < 64; i++) {
		if (!(t >> i & 1))
			continue;
		if (i < sizeof(sample_bits) / sizeof(sample_bits[0]))
			fprintf(out, "%s%s", first ? "" : "|", sample_bits[i]);
		else
			fprintf(out, "%sbit%zu", first ? "" : "|", i);
		first = false;
	}
	fputs(")", out);
}

static void print_hex(FILE *out, const char *indent, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (i % 16 == 0)
			fprintf(out, "%s%04zx:", indent, i);
		fprintf(out, " %02x", b[i]);
		if (i % 16 == 15 || i + 1 == n)
			fputc('\n', out);
	}
}

void dump_header(FILE *out, const struct perfdata *pd)
{
	const struct perfdata_info *in = perfdata_get_info(pd);
	size_t i, k;

	snprintf(dump_arch, sizeof(dump_arch), "%s", in->arch ? in->arch : "");
	/* No ARCH feature: no decoder, whatever the payloads look like. */
	dump_payload = arch_payload_find(arch_machine_from_name(dump_arch));
	free(dump_pmus);
	dump_pmus = xcalloc(in->npmus ? in->npmus : 1, sizeof(*dump_pmus));
	for (i = 0; i < in->npmus; i++) {
		dump_pmus[i].type = in->pmus[i].type;
		dump_pmus[i].name = in->pmus[i].name;
	}
	dump_env.e_machine = arch_machine_from_name(dump_arch);
	dump_env.cpuid = in->cpuid;
	dump_env.pmus = dump_pmus;
	dump_env.npmus = in->npmus;
	arch_env_parse_cpuid(&dump_env);
	dump_event = NULL;
	fprintf(out, "# format: %s, %s byte order, %" PRIu64 " bytes\n",
		in->pipe ? "pipe" : "file", in->swapped ? "swapped (other host's)" : "native",
		in->file_size);
	if (in->hostname)
		fprintf(out, "# hostname: %s\n", in->hostname);
	if (in->osrelease)
		fprintf(out, "# os release: %s\n", in->osrelease);
	if (in->version)
		fprintf(out, "# perf version: %s\n", in->version);
	if (in->arch)
		fprintf(out, "# arch: %s\n", in->arch);
	if (in->nr_cpus_avail || in->nr_cpus_online)
		fprintf(out, "# nrcpus: %u available, %u online\n", in->nr_cpus_avail,
			in->nr_cpus_online);
	if (in->cmdline)
		fprintf(out, "# cmdline: %s\n", in->cmdline);
	if (in->first_sample_time || in->last_sample_time)
		fprintf(out, "# sample time: %" PRIu64 " to %" PRIu64 "\n", in->first_sample_time,
			in->last_sample_time);
	for (i = 0; i < in->nbuild_ids; i++) {
		const struct perfdata_build_id *b = &in->build_ids[i];

		fputs("# build id: ", out);
		for (k = 0; k < b->size; k++)
			fprintf(out, "%02x", b->id[k]);
		fprintf(out, " %s (pid %d, cpumode %u)\n", b->filename, (int)b->pid, b->cpumode);
	}
	for (i = 0; i < perfdata_nr_events(pd); i++) {
		const struct perfdata_event *ev = perfdata_get_event(pd, i);
		const struct perf_event_attr *a = &ev->attr;

		fprintf(out, "# event %zu: %s: type %u, config 0x%" PRIx64 ", %s %" PRIu64
			", sample_type ", i, ev->name ? ev->name : "(no name)", a->type, (uint64_t)a->config,
			a->freq ? "freq" : "period", (uint64_t)a->sample_period);
		print_sample_type(out, (uint64_t)a->sample_type);
		fprintf(out, ", read_format 0x%" PRIx64 ", sample_id_all %u, ids:", (uint64_t)a->read_format,
			(unsigned)a->sample_id_all);
		for (k = 0; k < ev->nids; k++)
			fprintf(out, " %" PRIu64, ev->ids[k]);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* Lines an arch payload decoder adds after the hex of a RAW payload: on
 * a recording whose machine has a decoder, the lines perf report -D prints
 * for the payload, byte for byte, when the event and the payload are the
 * decoder's. */
static void dump_raw_decoded(FILE *out, const struct perfdata_record *rec, const void *raw,
			     uint32_t size)
{
	const struct arch_payload_ops *ops = dump_payload;
	union arch_payload_buf decoded;
	char text[1024];
	int n;

	if (!rec->event)
		return;
	if (rec->event != dump_event) {
		dump_event = rec->event;
		dump_event_payload = arch_payload_select(&dump_env, &rec->event->attr);
	}
	if (dump_event_payload)
		ops = dump_event_payload;
	if (!arch_payload_decode_in(&dump_env, ops, &rec->event->attr, raw, size, &decoded))
		return;
	n = ops->format_dump(&decoded, text, sizeof(text));
	if (n > 0 && (size_t)n < sizeof(text))
		fputs(text, out);
}

void dump_raw(FILE *out, const struct perfdata_record *rec, const void *raw, uint32_t size)
{
	fprintf(out, "  raw: %u bytes\n", size);
	print_hex(out, "    ", raw, size);
	dump_raw_decoded(out, rec, raw, size);
}

static const char *cpumode_name(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		return "kernel";
	case PERF_RECORD_MISC_USER:
		return "user";
	case PERF_RECORD_MISC_HYPERVISOR:
		return "hypervisor";
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return "guest kernel";
	case PERF_RECORD_MISC_GUEST_USER:
		return "guest user";
	default:
		return "unknown";
	}
}

static const char *context_name(uint64_t ip)
{
	switch (ip) {
	case (uint64_t)PERF_CONTEXT_HV:
		return "hypervisor";
	case (uint64_t)PERF_CONTEXT_KERNEL:
		return "kernel";
	case (uint64_t)PERF_CONTEXT_USER:
		return "user";
	case (uint64_t)PERF_CONTEXT_GUEST:
		return "guest";
	case (uint64_t)PERF_CONTEXT_GUEST_KERNEL:
		return "guest kernel";
	case (uint64_t)PERF_CONTEXT_GUEST_USER:
		return "guest user";
	default:
		return "context";
	}
}

static void dump_sid(FILE *out, const struct record *r, const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;

	if (!r->has_sid)
		return;
	fputs(" ", out);
	if (t & PERF_SAMPLE_TIME)
		fprintf(out, " time %" PRIu64, r->sid.time);
	if (t & PERF_SAMPLE_TID)
		fprintf(out, " pid/tid %d/%d", (int)r->sid.pid, (int)r->sid.tid);
	if (t & PERF_SAMPLE_CPU)
		fprintf(out, " cpu %u", r->sid.cpu);
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		fprintf(out, " id %" PRIu64, r->sid.id);
	if (t & PERF_SAMPLE_STREAM_ID)
		fprintf(out, " stream_id %" PRIu64, r->sid.stream_id);
	fputc('\n', out);
}

static void dump_sample(FILE *out, const struct perfdata_record *rec, const struct record *r)
{
	const struct sample *s = &r->u.sample;
	uint64_t t = rec->event->attr.sample_type, i;

	fprintf(out, "  ip 0x%" PRIx64 " period %" PRIu64 "%s", s->ip, s->period,
		s->exact_ip ? " exact" : "");
	if (t & PERF_SAMPLE_ADDR)
		fprintf(out, " addr 0x%" PRIx64, s->addr);
	fputc('\n', out);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		fprintf(out, "  callchain: %" PRIu64 " entries\n", s->nr_callchain);
		for (i = 0; i < s->nr_callchain; i++) {
			uint64_t ip = s->callchain[i];

			if (record_is_context(ip))
				fprintf(out, "    %3" PRIu64 ": 0x%016" PRIx64 " (%s)\n", i, ip,
					context_name(ip));
			else
				fprintf(out, "    %3" PRIu64 ": 0x%016" PRIx64 "\n", i, ip);
		}
	}
	if (t & PERF_SAMPLE_RAW)
		dump_raw(out, rec, s->raw, s->raw_size);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		fprintf(out, "  branch stack: %" PRIu64 " entries\n", s->nr_branches);
}

void dump_record(FILE *out, const struct perfdata_record *rec)
{
	const struct perf_event_header *h = rec->hdr;
	const struct perf_event_attr *a = &rec->event->attr;
	struct record r;
	struct errmsg em = ERRMSG_INIT;
	size_t k;

	fprintf(out, "0x%" PRIx64 " [%u]: %s (%u) misc 0x%04x %s\n", rec->offset, h->size,
		record_type_name(h->type), h->type, h->misc, cpumode_name(h->misc));
	if (record_decode(h, a, &r, &em)) {
		fprintf(out, "  bad record: %s\n", em.text[0] ? em.text : "cannot be decoded");
		print_hex(out, "    ", h + 1, h->size - sizeof(*h));
		fputc('\n', out);
		return;
	}
	if (h->type < 64 && rec->event->name)
		fprintf(out, "  event %s\n", rec->event->name);
	dump_sid(out, &r, a);
	switch (r.kind) {
	case RECORD_SAMPLE:
		dump_sample(out, rec, &r);
		break;
	case RECORD_MMAP: {
		const struct mmap_event *m = &r.u.mmap;

		fprintf(out, "  pid/tid %d/%d start 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64,
			(int)m->pid, (int)m->tid, m->start, m->len, m->pgoff);
		if (h->type == PERF_RECORD_MMAP2) {
			if (m->has_build_id) {
				fputs(" build id ", out);
				for (k = 0; k < m->build_id_size; k++)
					fprintf(out, "%02x", m->build_id[k]);
			} else {
				fprintf(out, " dev %u:%u ino %" PRIu64 " gen %" PRIu64, m->maj, m->min,
					m->ino, m->ino_generation);
			}
			fprintf(out, " prot 0x%x flags 0x%x", m->prot, m->flags);
		}
		fprintf(out, "\n  file %s\n", m->filename);
		break;
	}
	case RECORD_COMM:
		fprintf(out, "  pid/tid %d/%d comm %s%s\n", (int)r.u.comm.pid, (int)r.u.comm.tid,
			r.u.comm.comm, r.u.comm.exec ? " (exec)" : "");
		break;
	case RECORD_FORK:
	case RECORD_EXIT:
		fprintf(out, "  pid %d ppid %d tid %d ptid %d time %" PRIu64 "\n", (int)r.u.task.pid,
			(int)r.u.task.ppid, (int)r.u.task.tid, (int)r.u.task.ptid, r.u.task.time);
		break;
	case RECORD_LOST:
		fprintf(out, "  id %" PRIu64 " lost %" PRIu64 "\n", r.u.lost.id, r.u.lost.lost);
		break;
	case RECORD_LOST_SAMPLES:
		fprintf(out, "  lost %" PRIu64 "\n", r.u.lost.lost);
		break;
	case RECORD_THROTTLE:
	case RECORD_UNTHROTTLE:
		fprintf(out, "  time %" PRIu64 " id %" PRIu64 " stream_id %" PRIu64 "\n",
			r.u.throttle.time, r.u.throttle.id, r.u.throttle.stream_id);
		break;
	case RECORD_KSYMBOL:
		fprintf(out, "  addr 0x%" PRIx64 " len %u type %u flags 0x%x name %s\n",
			r.u.ksymbol.addr, r.u.ksymbol.len, r.u.ksymbol.ksym_type, r.u.ksymbol.flags,
			r.u.ksymbol.name);
		break;
	default:
		/* perf's own records and newer kernel ones: their bytes. */
		if (h->size > sizeof(*h) && h->type != 68)
			print_hex(out, "    ", h + 1,
				  h->size - sizeof(*h) > 256 ? 256 : h->size - sizeof(*h));
		break;
	}
	fputc('\n', out);
}
