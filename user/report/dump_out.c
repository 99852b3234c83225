/* Text and JSON of a dump (see dump_out.h). */
#include "report/dump_out.h"

#include <inttypes.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "base/textsafe.h"

static void text_losses(FILE *f, const struct dump_losses *l)
{
	if (l->walk_ended)
		fprintf(f, "# The heap walk stopped early (%s): coroutines may be missing\n",
			l->walk_why);
	if (l->unreadable || l->torn || l->cut || l->unknown_frames || l->bad_links)
		fprintf(f, "# Not read (the process ran meanwhile): %" PRIu64 " unreadable threads, %"
			PRIu64 " torn stacks, %" PRIu64 " stacks cut, %" PRIu64
			" unknown frames, %" PRIu64 " bad heap links\n",
			l->unreadable, l->torn, l->cut, l->unknown_frames, l->bad_links);
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

void dump_text(FILE *f, const struct dump *d)
{
	struct strbuf sb = STRBUF_INIT;

	fprintf(f, "Process %d (%s), VM at %#" PRIx64 ": %zu threads and coroutines\n", (int)d->pid,
		d->layout, d->g, d->n);
	text_losses(f, &d->loss);
	for (size_t i = 0; i < d->n; i++) {
		const struct dump_thread *t = &d->threads[i];

		sb_printf(&sb, "\n%s %#" PRIx64 " %s%s%s%s\n", t->main ? "Thread" : "Coroutine",
			  t->addr, t->main ? "main, " : "", t->status,
			  t->torn ? " (stack torn: frames below lost)" : "",
			  t->cut ? " (deeper frames cut)" : "");
		if (!t->nframes)
			sb_puts(&sb, "    (no Lua frames)\n");
		for (size_t j = 0; j < t->nframes; j++)
			text_frame(&sb, &t->frames[j], t->fresh);
		fwrite(sb_str(&sb), 1, sb.len, f);
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

static void json_thread(struct strbuf *sb, const struct dump_thread *t)
{
	sb_printf(sb, "{\"address\":\"%#" PRIx64 "\",\"status\":\"%s\",\"main\":%s,\"current\":%s,"
		  "\"not_started\":%s,\"torn\":%s,\"cut\":%s,\"frames\":[",
		  t->addr, t->status, t->main ? "true" : "false", t->current ? "true" : "false",
		  t->fresh ? "true" : "false", t->torn ? "true" : "false", t->cut ? "true" : "false");
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

	sb_printf(&sb, "{\"pid\":%d,\"luajit\":", (int)d->pid);
	json_put_cstr(&sb, d->layout);
	sb_printf(&sb, ",\"g\":\"%#" PRIx64 "\",\"unread\":{\"threads\":%" PRIu64 ",\"torn\":%" PRIu64
		  ",\"cut\":%" PRIu64 ",\"unknown_frames\":%" PRIu64 ",\"bad_links\":%" PRIu64
		  ",\"walk_ended\":%s},\"threads\":[",
		  d->g, l->unreadable, l->torn, l->cut, l->unknown_frames, l->bad_links,
		  l->walk_ended ? "true" : "false");
	for (size_t i = 0; i < d->n; i++) {
		if (i)
			sb_putc(&sb, ',');
		json_thread(&sb, &d->threads[i]);
		if (sb.len > (1u << 20)) {	/* keep the buffer small */
			fwrite(sb_str(&sb), 1, sb.len, f);
			sb_reset(&sb);
		}
	}
	sb_puts(&sb, "]}");
	fwrite(sb_str(&sb), 1, sb.len, f);
	sb_free(&sb);
}
