/* The script and style embedded in every SVG flame graph.  The script
 * expects WIDTH, HEIGHT, MIN_WIDTH, XPAD, CHAR_W, TOTAL and MATCH_FILL to
 * be defined before it, and the ids bg, title, subtitle, unzoom, search,
 * details and matched in the document. */
#ifndef LBP_SVG_SCRIPT_H
#define LBP_SVG_SCRIPT_H

extern const char svg_flame_script[];
extern const char svg_flame_style[];

#endif
