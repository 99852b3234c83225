// SPDX-License-Identifier: MIT
/* Text and JSON of a dump (see dump_out.h). */
#include "report/dump_out.h"

#include <inttypes.h>
#include <string.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "base/textsafe.h"

/* What the dump misses, each cause on its line: the process (it ran
 * meanwhile, or its heap links are damaged) apart from our limits, each
 * named, so that no limit is blamed on the process. */
static void text_losses(FILE *f, const struct dump_losses *l)
{
	if (l->walk_ended)
		fprintf(f, "# The heap walk stopped early (%s): coroutines may be missing\n",
			l->walk_why);
	if (l->read_why[0])
		fprintf(f, "# Reading stopped early (%s): %" PRIu64 " coroutines not read\n",
			l->read_why, l->not_read);
	if (l->cycles)
		fprintf(f, "# The heap's object list led back to an object already seen (%" PRIu64
			"): a loop in it, or objects moved meanwhile; coroutines after it are missing\n",
			l->cycles);
	if (l->threads_dropped)
		fprintf(f, "# Coroutines over the cap of %u not kept: %" PRIu64 "\n",
			DUMP_THREADS_MAX, l->threads_dropped);
	if (l->frames_dropped)
		fprintf(f, "# Frames and locals over the caps (%u in all, %u MiB of names) not kept: %"
			PRIu64 "\n", DUMP_FRAMES_MAX, DUMP_BYTES_MAX >> 20, l->frames_dropped);
	if (l->cut)
		fprintf(f, "# Stacks cut at the cap of their top %d frames: %" PRIu64 "\n",
			DUMP_STACK_MAX, l->cut);
	if (l->names_cut)
		fprintf(f, "# Names and values cut to %u bytes: %" PRIu64 "\n", DUMP_NAME_MAX,
			l->names_cut);
	if (l->unreadable || l->torn || l->unknown_frames || l->bad_links)
		fprintf(f, "# Not read (the process ran meanwhile): %" PRIu64 " unreadable threads, %"
			PRIu64 " torn stacks, %" PRIu64 " unknown frames, %" PRIu64 " bad heap links\n",
			l->unreadable, l->torn, l->unknown_frames, l->bad_links);
}

/* A frame's lines: every name and value is the target's, escaped by the
 * rule of base/textsafe.h so that none can move the cursor or forge a line. */
static void text_frame(struct strbuf *sb, const struct dump_frame *fr, bool fresh)
{
	sb_puts(sb, "    ");
	text_put(sb, fr->func);
	if (fr->chunk || fresh) {
		sb_puts(sb, " (");
		text_put(sb, fr->chunk ? fr->chunk : "?");
		if (fresh)
			sb_printf(sb, ":%d) (not started)", fr->firstline);
		else if (fr->line >= 0)
			sb_printf(sb, ":%d)", fr->line);
		else
			sb_puts(sb, ":?)");
	}
	sb_putc(sb, '\n');
	for (size_t k = 0; k < fr->nlocals; k++) {
		sb_puts(sb, "        ");
		text_put(sb, fr->locals[k].name);
		sb_puts(sb, " = ");
		text_put(sb, fr->locals[k].value);
		sb_putc(sb, '\n');
	}
}

/* The request a coroutine serves, under its header line. */
static void text_request(FILE *f, const struct dump_request *q)
{
	char age[32] = "age unknown";

	if (!q->method) {	/* a timer, init_worker: no client request */
		text_fprintf_line(f, "    nginx %s", q->kind);
		return;
	}
	if (q->age_ms >= 0)
		snprintf(age, sizeof(age), "%.3f s old", (double)q->age_ms / 1000.0);
	text_fprintf_line(f, "    nginx %s %s %s, phase %s, %s, host %s, server %s, location %s "
			  "(request %#" PRIx64 ")",
			  strcmp(q->kind, "request") ? "light thread of request" : "request",
			  q->method, q->uri, q->phase, age, q->host, q->server, q->location, q->r);
}

void dump_text(FILE *f, const struct dump *d)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t written = 0;

	fprintf(f, "Process %d (%s), VM at %#" PRIx64 ": %zu threads and coroutines\n", (int)d->pid,
		d->layout, d->g, d->n);
	text_losses(f, &d->loss);
	if (d->requests_refused)
		fprintf(f, "# %s\n", d->requests_refused);
	for (size_t i = 0; i < d->n; i++) {
		const struct dump_thread *t = &d->threads[i];

		if (written >= DUMP_OUTPUT_MAX) {
			fprintf(f, "\n# Output stopped at the cap of %llu MiB: %zu coroutines not written\n",
				DUMP_OUTPUT_MAX >> 20, d->n - i);
			break;
		}

		sb_printf(&sb, "\n%s %#" PRIx64 " %s%s%s%s\n", t->main ? "Thread" : "Coroutine",
			  t->addr, t->main ? "main, " : "", t->status,
			  t->torn ? " (stack torn: frames below lost)" : "",
			  t->cut ? " (deeper frames cut)" : "");
		if (t->req) {	/* the request's line is written as it is escaped */
			fwrite(sb_str(&sb), 1, sb.len, f);
			written += sb.len;
			sb_reset(&sb);
			text_request(f, t->req);
		}
		if (!t->nframes)
			sb_puts(&sb, "    (no Lua frames)\n");
		for (size_t j = 0; j < t->nframes; j++)
			text_frame(&sb, &t->frames[j], t->fresh);
		fwrite(sb_str(&sb), 1, sb.len, f);
		written += sb.len;
		sb_reset(&sb);
	}
	sb_free(&sb);
}

static void json_frame(struct strbuf *sb, const struct dump_frame *fr)
{
	sb_puts(sb, "{\"function\":");
	json_put_cstr(sb, fr->func);
	sb_puts(sb, ",\"chunk\":");
	if (fr->chunk)
		json_put_cstr(sb, fr->chunk);
	else
		sb_puts(sb, "null");
	sb_printf(sb, ",\"line\":%d,\"firstline\":%d,\"locals\":[", fr->line, fr->firstline);
	for (size_t k = 0; k < fr->nlocals; k++) {
		sb_puts(sb, k ? ",{\"name\":" : "{\"name\":");
		json_put_cstr(sb, fr->locals[k].name);
		sb_puts(sb, ",\"value\":");
		json_put_cstr(sb, fr->locals[k].value);
		sb_putc(sb, '}');
	}
	sb_puts(sb, "]}");
}

static void json_field(struct strbuf *sb, const char *name, const char *s)
{
	sb_printf(sb, ",\"%s\":", name);
	if (s)
		json_put_cstr(sb, s);
	else
		sb_puts(sb, "null");
}

static void json_request(struct strbuf *sb, const struct dump_request *q)
{
	sb_printf(sb, ",\"request\":{\"request\":\"%#" PRIx64 "\",\"age_ms\":%" PRId64, q->r,
		  q->age_ms);
	json_field(sb, "kind", q->kind);
	json_field(sb, "phase", q->phase);
	json_field(sb, "method", q->method);
	json_field(sb, "uri", q->uri);
	json_field(sb, "host", q->host);
	json_field(sb, "server", q->server);
	json_field(sb, "location", q->location);
	sb_putc(sb, '}');
}

static void json_thread(struct strbuf *sb, const struct dump_thread *t)
{
	sb_printf(sb, "{\"address\":\"%#" PRIx64 "\",\"status\":\"%s\",\"main\":%s,\"current\":%s,"
		  "\"not_started\":%s,\"torn\":%s,\"cut\":%s",
		  t->addr, t->status, t->main ? "true" : "false", t->current ? "true" : "false",
		  t->fresh ? "true" : "false", t->torn ? "true" : "false", t->cut ? "true" : "false");
	if (t->req)
		json_request(sb, t->req);
	sb_puts(sb, ",\"frames\":[");
	for (size_t j = 0; j < t->nframes; j++) {
		if (j)
			sb_putc(sb, ',');
		json_frame(sb, &t->frames[j]);
	}
	sb_puts(sb, "]}");
}

void dump_json(FILE *f, const struct dump *d)
{
	const struct dump_losses *l = &d->loss;
	struct strbuf sb = { 0 };
	uint64_t written = 0;
	size_t i;

	sb_printf(&sb, "{\"pid\":%d,\"luajit\":", (int)d->pid);
	json_put_cstr(&sb, d->layout);
	sb_printf(&sb, ",\"g\":\"%#" PRIx64 "\",\"unread\":{\"threads\":%" PRIu64 ",\"torn\":%" PRIu64
		  ",\"cut\":%" PRIu64 ",\"unknown_frames\":%" PRIu64 ",\"bad_links\":%" PRIu64
		  ",\"cycles\":%" PRIu64 ",\"walk_ended\":%s,\"read_stopped\":",
		  d->g, l->unreadable, l->torn, l->cut, l->unknown_frames, l->bad_links, l->cycles,
		  l->walk_ended ? "true" : "false");
	if (l->read_why[0])
		json_put_cstr(&sb, l->read_why);
	else
		sb_puts(&sb, "null");
	sb_printf(&sb, ",\"not_read\":%" PRIu64 ",\"threads_dropped\":%" PRIu64
		  ",\"frames_dropped\":%" PRIu64 ",\"names_cut\":%" PRIu64 "}",
		  l->not_read, l->threads_dropped, l->frames_dropped, l->names_cut);
	json_field(&sb, "requests_refused", d->requests_refused);
	sb_puts(&sb, ",\"threads\":[");
	for (i = 0; i < d->n && written < DUMP_OUTPUT_MAX; i++) {
		if (i)
			sb_putc(&sb, ',');
		json_thread(&sb, &d->threads[i]);
		if (sb.len > (1u << 20)) {	/* keep the buffer small */
			fwrite(sb_str(&sb), 1, sb.len, f);
			written += sb.len;
			sb_reset(&sb);
		}
	}
	sb_printf(&sb, "],\"unwritten\":%zu}", d->n - i);
	fwrite(sb_str(&sb), 1, sb.len, f);
	sb_free(&sb);
}
