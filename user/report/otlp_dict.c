// SPDX-License-Identifier: MIT
/* The shared tables of an OTLP profiles request (see otlp_dict.h). */
#include "report/otlp_dict.h"

#include <string.h>

#include "base/pbwriter.h"

/* profiles.proto field numbers. */
enum {
	DICT_MAPPING = 1, DICT_LOCATION = 2, DICT_FUNCTION = 3, DICT_LINK = 4,
	DICT_STRING = 5, DICT_ATTRIBUTE = 6, DICT_STACK = 7,
	MAPPING_MEMORY_START = 1, MAPPING_MEMORY_LIMIT = 2, MAPPING_FILE_OFFSET = 3,
	MAPPING_FILENAME = 4, MAPPING_ATTRIBUTES = 5,
	LOCATION_MAPPING = 1, LOCATION_ADDRESS = 2, LOCATION_LINE = 3,
	LINE_FUNCTION = 1, LINE_LINE = 2,
	FUNCTION_NAME = 1, FUNCTION_SYSTEM_NAME = 2, FUNCTION_FILENAME = 3,
	FUNCTION_START_LINE = 4,
	STACK_LOCATIONS = 1,
	KVU_KEY = 1, KVU_VALUE = 2,
	ANY_STRING = 1, ANY_INT = 3,
	LINK_TRACE_ID = 1, LINK_SPAN_ID = 2,
};

/* The semantic convention for a mapped file's GNU build ID. */
#define ATTR_BUILD_ID	"process.executable.build_id.gnu"

struct location_key {
	uint64_t mapping, address, function;
	int64_t line;
};

struct attr_key {
	uint64_t key, str;	/* string ids; str 0 for a number */
	int64_t num;
	uint64_t is_num;
};

/* Interns key; a new entry is encoded by put (NULL: the zero value). */
static uint32_t intern(struct otlp_dict *d, struct keytab *t, const void *key, size_t len,
		       uint32_t field, void (*put)(struct otlp_dict *d, const void *key, size_t len))
{
	bool added;
	uint32_t i = keytab_intern(t, key, len, &added);

	if (added) {
		sb_reset(&d->sub);
		if (put && i)
			put(d, key, len);
		pb_bytes(&d->tables, field, d->sub.buf ? d->sub.buf : "", d->sub.len);
	}
	return i;
}

static void put_function(struct otlp_dict *d, const void *key, size_t len)
{
	(void)len;
	const struct pb_function *fn = key;

	pb_uint(&d->sub, FUNCTION_NAME, fn->name);
	pb_uint(&d->sub, FUNCTION_SYSTEM_NAME, fn->system_name);
	pb_uint(&d->sub, FUNCTION_FILENAME, fn->filename);
	pb_int(&d->sub, FUNCTION_START_LINE, fn->start_line);
}

static void put_attribute(struct otlp_dict *d, const void *key, size_t len)
{
	(void)len;
	const struct attr_key *a = key;
	struct strbuf value = STRBUF_INIT;

	if (a->is_num)
		pb_int(&value, ANY_INT, a->num);
	else
		pb_bytes(&value, ANY_STRING, d->f.strings.keys[a->str], d->f.strings.lens[a->str]);
	pb_uint(&d->sub, KVU_KEY, a->key);
	pb_bytes(&d->sub, KVU_VALUE, value.buf ? value.buf : "", value.len);
	sb_free(&value);
}

static void put_mapping(struct otlp_dict *d, const void *key, size_t len)
{
	(void)len;
	const struct pb_mapping *m = key;
	uint64_t build_attr;

	/* The attribute goes into the table before this entry: encode it
	 * first, then this mapping into a fresh scratch buffer. */
	struct strbuf msg = STRBUF_INIT;

	build_attr = m->build_id ? otlp_dict_attr_str(d, ATTR_BUILD_ID,
						       d->f.strings.keys[m->build_id]) : 0;
	pb_uint(&msg, MAPPING_MEMORY_START, m->start);
	pb_uint(&msg, MAPPING_MEMORY_LIMIT, m->limit);
	pb_uint(&msg, MAPPING_FILE_OFFSET, m->offset);
	pb_uint(&msg, MAPPING_FILENAME, m->filename);
	pb_packed(&msg, MAPPING_ATTRIBUTES, &build_attr, build_attr ? 1 : 0);
	sb_reset(&d->sub);
	sb_putn(&d->sub, msg.buf ? msg.buf : "", msg.len);
	sb_free(&msg);
}

static void put_location(struct otlp_dict *d, const void *key, size_t len)
{
	(void)len;
	const struct location_key *l = key;

	sb_reset(&d->line);
	pb_uint(&d->line, LINE_FUNCTION, l->function);
	pb_int(&d->line, LINE_LINE, l->line);
	pb_uint(&d->sub, LOCATION_MAPPING, l->mapping);
	pb_uint(&d->sub, LOCATION_ADDRESS, l->address);
	pb_bytes(&d->sub, LOCATION_LINE, d->line.buf ? d->line.buf : "", d->line.len);
}

static void put_stack(struct otlp_dict *d, const void *key, size_t len)
{
	const uint32_t *locs = key;
	size_t n = len / sizeof(uint32_t);
	uint64_t wide[n ? n : 1];

	for (size_t i = 0; i < n; i++)
		wide[i] = locs[i];
	pb_packed(&d->sub, STACK_LOCATIONS, wide, n);
}

void otlp_dict_init(struct otlp_dict *d)
{
	static const struct export_opts defaults = { .scope = 'F' };
	struct pb_mapping lua;
	/* The zero key of every table: as long as the longest of them (a
	 * mapping is 40 bytes, a location 32: sizing it by one key read 8
	 * bytes past it), and at least the 16 of a trace ID. */
	union {
		struct pb_function function;
		struct pb_mapping mapping;
		struct location_key location;
		struct attr_key attribute;
		char trace_id[16];
	} zero_keys;
	const char *zero = (const char *)&zero_keys;
	struct strbuf link = STRBUF_INIT;

	memset(d, 0, sizeof(*d));
	memset(&zero_keys, 0, sizeof(zero_keys));
	pbframes_init(&d->f, NULL, &defaults);
	intern(d, &d->functions, zero, sizeof(struct pb_function), DICT_FUNCTION, NULL);
	intern(d, &d->mappings, zero, sizeof(struct pb_mapping), DICT_MAPPING, NULL);
	intern(d, &d->locations, zero, sizeof(struct location_key), DICT_LOCATION, NULL);
	intern(d, &d->attributes, zero, sizeof(struct attr_key), DICT_ATTRIBUTE, NULL);
	intern(d, &d->stacks, zero, 0, DICT_STACK, NULL);
	/* link_table[0]: zero IDs of the lengths strict codecs expect. */
	pb_bytes(&link, LINK_TRACE_ID, zero, 16);
	pb_bytes(&link, LINK_SPAN_ID, zero, 8);
	pb_bytes(&d->tables, DICT_LINK, link.buf, link.len);
	sb_free(&link);
	memset(&lua, 0, sizeof(lua));
	lua.filename = pbframes_cstr(&d->f, "[lua]");
	d->lua_mapping = intern(d, &d->mappings, &lua, sizeof(lua), DICT_MAPPING, put_mapping);
}

void otlp_dict_free(struct otlp_dict *d)
{
	pbframes_free(&d->f);
	keytab_free(&d->functions);
	keytab_free(&d->mappings);
	keytab_free(&d->locations);
	keytab_free(&d->stacks);
	keytab_free(&d->attributes);
	sb_free(&d->tables);
	sb_free(&d->sub);
	sb_free(&d->line);
}

static uint32_t location(struct otlp_dict *d, const struct pb_function *fn, int64_t line,
			 uint32_t mapping, uint64_t address)
{
	struct location_key key;

	memset(&key, 0, sizeof(key));
	key.function = intern(d, &d->functions, fn, sizeof(*fn), DICT_FUNCTION, put_function);
	key.line = line;
	key.mapping = mapping;
	key.address = address;
	return intern(d, &d->locations, &key, sizeof(key), DICT_LOCATION, put_location);
}

uint32_t otlp_dict_frame(struct otlp_dict *d, const struct xframe *xf, const struct sample *s)
{
	struct pb_function fn;
	struct pb_mapping map;
	uint64_t address = 0;
	uint32_t mapping = d->lua_mapping;

	pbframes_function(&d->f, xf, s, &fn);
	if (pbframes_mapping(&d->f, xf, &map, &address))
		mapping = intern(d, &d->mappings, &map, sizeof(map), DICT_MAPPING, put_mapping);
	return location(d, &fn, pbframes_line(xf), mapping, address);
}

uint32_t otlp_dict_named(struct otlp_dict *d, const char *name)
{
	struct pb_function fn;

	memset(&fn, 0, sizeof(fn));
	fn.name = fn.system_name = pbframes_cstr(&d->f, name);
	return location(d, &fn, 0, 0, 0);
}

uint32_t otlp_dict_stack(struct otlp_dict *d, const uint32_t *locs, uint32_t n)
{
	return intern(d, &d->stacks, locs, n * sizeof(*locs), DICT_STACK, put_stack);
}

uint32_t otlp_dict_attr_str(struct otlp_dict *d, const char *key, const char *value)
{
	struct attr_key a;

	memset(&a, 0, sizeof(a));
	a.key = pbframes_cstr(&d->f, key);
	a.str = pbframes_cstr(&d->f, value);
	return intern(d, &d->attributes, &a, sizeof(a), DICT_ATTRIBUTE, put_attribute);
}

uint32_t otlp_dict_attr_num(struct otlp_dict *d, const char *key, int64_t value)
{
	struct attr_key a;

	memset(&a, 0, sizeof(a));
	a.key = pbframes_cstr(&d->f, key);
	a.num = value;
	a.is_num = 1;
	return intern(d, &d->attributes, &a, sizeof(a), DICT_ATTRIBUTE, put_attribute);
}

void otlp_dict_encode(struct otlp_dict *d, struct strbuf *out)
{
	sb_putn(out, d->tables.buf ? d->tables.buf : "", d->tables.len);
	for (uint32_t i = 0; i < d->f.strings.n; i++)
		pb_bytes(out, DICT_STRING, d->f.strings.keys[i], d->f.strings.lens[i]);
}
