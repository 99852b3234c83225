// SPDX-License-Identifier: MIT
/* Heap flame graph (see heap_svg.h).  Paths are already a tree whose
 * children come after their parent, so one pass in path order lays it
 * out: a child starts where its parent's previous child ended. */
#include "report/heap_svg.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashfn.h"
#include "base/strbuf.h"
#include "model/heap_paths.h"
#include "report/svg_script.h"

#define NAME_MAX_SVG	1024

static void put_text(struct strbuf *sb, const char *s, size_t max)
{
	size_t n = strlen(s), keep = max && n > max ? max - 2 : n;

	for (size_t i = 0; i < keep; i++) {
		switch (s[i]) {
		case '&': sb_puts(sb, "&amp;"); break;
		case '<': sb_puts(sb, "&lt;"); break;
		case '>': sb_puts(sb, "&gt;"); break;
		case '"': sb_puts(sb, "&quot;"); break;
		default: sb_putc(sb, s[i]); break;
		}
	}
	if (keep < n)
		sb_puts(sb, "..");
}

static void put_frame(struct strbuf *sb, const char *label, const char *path, uint64_t start,
		      uint64_t bytes, uint64_t count, unsigned depth, uint64_t total, int height)
{
	double x = SVG_XPAD + (double)start * (SVG_IMAGE_WIDTH - 2 * SVG_XPAD) / (double)total;
	double w = (double)bytes * (SVG_IMAGE_WIDTH - 2 * SVG_XPAD) / (double)total;
	int y = height - SVG_BOTTOM_PAD - (int)(depth + 1) * SVG_FRAME_HEIGHT;
	int shade = (int)(hash_bytes(label, strlen(label), 0) % 40);

	if (w < SVG_MIN_WIDTH)
		return;
	sb_printf(sb, "<g class=\"f\" data-s=\"%llu\" data-n=\"%llu\" data-d=\"%u\"><title>",
		  (unsigned long long)start, (unsigned long long)bytes, depth);
	put_text(sb, path, 0);
	sb_printf(sb, "\n%llu bytes (%.2f%%) in %llu objects", (unsigned long long)bytes,
		  100.0 * (double)bytes / (double)total, (unsigned long long)count);
	sb_printf(sb, "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		  "fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">",
		  x, y, w, SVG_FRAME_HEIGHT - 1, 60 + shade, 140 + shade, 200, x + 3,
		  y + SVG_FRAME_HEIGHT - 4);
	if (w >= 3 * SVG_CHAR_WIDTH + 6)
		put_text(sb, label, (size_t)((w - 6) / SVG_CHAR_WIDTH));
	sb_puts(sb, "</text></g>\n");
}

static void put_head(struct strbuf *sb, const char *title, uint64_t total, int h)
{
	svg_document_open(sb, h, total);
	sb_printf(sb, "<text id=\"title\" x=\"%d\" y=\"22\">", SVG_IMAGE_WIDTH / 2);
	put_text(sb, title, 0);
	sb_printf(sb, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\">%llu bytes by reference "
		  "path; click a frame to zoom, Ctrl-F to search</text>\n",
		  SVG_IMAGE_WIDTH / 2, (unsigned long long)total);
	svg_document_controls(sb, h);
}

int heap_svg_write(FILE *f, const struct heap_paths *hp, const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t *cursor = calloc(hp->n + 1, sizeof(*cursor)), *start, total = 0, root_at = 0;
	unsigned maxdepth = 0;
	char name[NAME_MAX_SVG];
	int h, rc;

	start = cursor ? calloc(hp->n + 1, sizeof(*start)) : NULL;
	if (!start) {
		free(cursor);
		return -1;
	}
	for (size_t i = 0; i < hp->n; i++) {
		if (hp->p[i].parent == HEAP_PATH_NONE)
			total += hp->p[i].held_bytes;
		if (hp->p[i].depth > maxdepth)
			maxdepth = hp->p[i].depth;
	}
	h = SVG_TOP_PAD + SVG_BOTTOM_PAD + (int)(maxdepth + 2) * SVG_FRAME_HEIGHT;
	put_head(&sb, title, total, h);
	if (total)
		put_frame(&sb, "all", "all", 0, total, 0, 0, total, h);
	for (size_t i = 0; total && i < hp->n; i++) {
		uint32_t parent = hp->p[i].parent;
		uint64_t *at = parent == HEAP_PATH_NONE ? &root_at : &cursor[parent];

		start[i] = *at;
		*at += hp->p[i].held_bytes;
		cursor[i] = start[i];
		heap_path_name(hp, (uint32_t)i, "", name, sizeof(name));
		put_frame(&sb, heap_path_label(hp, (uint32_t)i), name, start[i], hp->p[i].held_bytes,
			  hp->p[i].held_count, hp->p[i].depth + 1, total, h);
	}
	sb_puts(&sb, "</svg>\n");
	rc = fwrite(sb_str(&sb), 1, sb.len, f) == sb.len ? 0 : -1;
	sb_free(&sb);
	free(cursor);
	free(start);
	return rc;
}
