/* Prototypes read at first sight: everything a frame of it will need
 * (chunk name, line table, bytecode, the names of its call sites) is
 * copied while it lives, so that its samples are still named after the
 * GC freed it (bpf/protos.bpf.h announces each new one). */
#include "symbolize/symbolize.h"

#include "symbolize/symbolizer_int.h"

/* Bounds on the work done for one prototype (a chunk's main function can
 * be large): call sites whose names are derived ahead, at most. */
#define PREFETCH_SITES	256

int sym_prefetch(struct symbolizer *s, uint64_t pt, uint32_t fp)
{
	struct proto_entry *e = proto_get(s, pt, fp);

	if (!e)
		return -1;
	if (e->prefetched)
		return 0;
	e->prefetched = true;
	/* Each part is read only while the header still reads the same
	 * (symbolize.c): a prototype that dies meanwhile keeps what was
	 * read of it before, and its samples name what that covers. */
	if (e->sizebc > 1)
		line_at(s, e, 1);
	if (proto_bc(s, e))
		call_sites_all(s, e, PREFETCH_SITES);
	return 0;
}
