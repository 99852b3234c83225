// SPDX-License-Identifier: MIT
/* TValue decoding and string-keyed table lookups in target memory. */
#include "luajit/luaobj.h"

#include <stdlib.h>
#include <string.h>

#include "luajit/layout.h"
#include "proc/memory.h"

#define MAX_NODES	65536

uint32_t lj_tv_itype(const struct lj_layout *lay, uint64_t tv)
{
	return lay->gc64 ? (uint32_t)((int64_t)tv >> 47) : (uint32_t)(tv >> 32);
}

bool lj_tv_number(const struct lj_layout *lay, uint64_t tv, double *d)
{
	uint32_t it = lj_tv_itype(lay, tv);

	if (it < LJ_TNUMX) {
		memcpy(d, &tv, sizeof(*d));
		return true;
	}
	if (it == LJ_TNUMX) {	/* an integer of a dual-number build */
		*d = (double)(int32_t)(uint32_t)tv;
		return true;
	}
	return false;
}

uint64_t lj_tv_gcptr(const struct lj_layout *lay, uint64_t tv)
{
	return lay->gc64 ? tv & LJ_GCVMASK : tv & 0xffffffffull;
}

int lj_read_str(struct mem_reader *m, const struct lj_layout *lay, uint64_t str,
		char *buf, size_t max)
{
	uint32_t len;

	if (!max || mem_read(m, str + lay->str_len, &len, 4))
		return -1;
	if (len > max - 1)
		len = (uint32_t)(max - 1);
	if (mem_read(m, str + lay->str_data, buf, len))
		return -1;
	buf[len] = '\0';
	return 0;
}

int lj_tab_getstr(struct mem_reader *m, const struct lj_layout *lay, uint64_t tab,
		  const char *key, uint64_t *tv)
{
	size_t keylen = strlen(key);
	uint64_t node = 0;
	uint32_t hmask = 0;
	uint8_t *nodes = NULL;
	char *name = NULL;
	int err = -1;

	if (layout_read_ref(m, lay, tab + lay->tab_node, &node) ||
	    mem_read(m, tab + lay->tab_hmask, &hmask, 4) || !node || hmask >= MAX_NODES)
		goto cleanup;
	nodes = malloc((size_t)(hmask + 1) * lay->node_size);
	name = malloc(keylen + 2);
	if (!nodes || !name || mem_read(m, node, nodes, (size_t)(hmask + 1) * lay->node_size))
		goto cleanup;
	for (uint32_t i = 0; i <= hmask; i++) {
		uint64_t val, k;

		memcpy(&val, nodes + (size_t)i * lay->node_size, 8);
		memcpy(&k, nodes + (size_t)i * lay->node_size + lay->node_key, 8);
		if (lj_tv_itype(lay, k) != LJ_TSTR)
			continue;
		/* Reading keylen+1 bytes tells a prefix from an exact match. */
		if (lj_read_str(m, lay, lj_tv_gcptr(lay, k), name, keylen + 2) ||
		    strcmp(name, key))
			continue;
		*tv = val;
		err = 0;
		break;
	}
cleanup:
	free(nodes);
	free(name);
	return err;
}
