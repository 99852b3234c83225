/* SPDX-License-Identifier: MIT */
/* The script and style embedded in every SVG flame graph.  The script
 * expects WIDTH, HEIGHT, MIN_WIDTH, XPAD, CHAR_W, TOTAL and MATCH_FILL to
 * be defined before it, and the ids bg, title, subtitle, unzoom, search,
 * details and matched in the document. */
#ifndef LBP_SVG_SCRIPT_H
#define LBP_SVG_SCRIPT_H

#include <stdint.h>

#include "base/strbuf.h"

/* The geometry every flame graph shares, in px. */
#define SVG_IMAGE_WIDTH		1200
#define SVG_XPAD		10
#define SVG_FRAME_HEIGHT	16
#define SVG_FONT_SIZE		12
#define SVG_CHAR_WIDTH		(SVG_FONT_SIZE * 0.59)	/* estimate for Verdana-like fonts */
#define SVG_TOP_PAD		(SVG_FRAME_HEIGHT * 3 + 4)
#define SVG_BOTTOM_PAD		(SVG_FRAME_HEIGHT * 3 + 8)
#define SVG_MIN_WIDTH		0.1	/* narrower frames are left out */
#define SVG_MIN_IMAGE_WIDTH	300	/* the script never draws narrower */

extern const char svg_flame_script[];
extern const char svg_flame_style[];

/* Opens a flame graph document `height` px high whose frames add up to
 * `total`: the XML and svg headers, the style, the script with its
 * parameters, and the background; the caller writes the title next. */
void svg_document_open(struct strbuf *sb, int height, uint64_t total);

/* The controls the script drives, after the title and subtitle: Reset
 * Zoom, Search, the details line and the search's match count. */
void svg_document_controls(struct strbuf *sb, int height);

#endif
