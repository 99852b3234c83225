// SPDX-License-Identifier: MIT
/* OTLP profiles requests (see otlp.h). */
#include "report/otlp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pbwriter.h"
#include "base/xalloc.h"
#include "model/heap_paths.h"
#include "model/profile_split.h"
#include "report/heap_pprof.h"
#include "report/otlp_dict.h"
#include "report/service_name.h"

/* Field numbers: profiles_service.proto, profiles.proto, resource.proto,
 * common.proto. */
enum {
	REQ_RESOURCE_PROFILES = 1, REQ_DICTIONARY = 2,
	RP_RESOURCE = 1, RP_SCOPE_PROFILES = 2,
	RES_ATTRIBUTES = 1,
	KV_KEY = 1, KV_VALUE = 2, ANY_STRING = 1, ANY_INT = 3,
	SP_SCOPE = 1, SP_PROFILES = 2, SCOPE_NAME = 1,
	PROF_SAMPLE_TYPE = 1, PROF_SAMPLES = 2, PROF_TIME = 3, PROF_DURATION = 4,
	PROF_PERIOD_TYPE = 5, PROF_PERIOD = 6,
	VT_TYPE = 1, VT_UNIT = 2,
	SAMPLE_STACK = 1, SAMPLE_ATTRIBUTES = 2, SAMPLE_VALUES = 4,
};

#define MAX_ATTRS	16	/* a sample's labels (pbframes_labels) */

struct otlp_res {
	struct strbuf resource;		/* the Resource message */
	struct strbuf profiles;		/* ScopeProfiles.profiles fields */
};

struct otlp_request {
	struct otlp_dict d;
	struct keytab res_index;	/* encoded Resource -> res[] */
	struct otlp_res *res;
	unsigned nprofiles;
};

/* The samples of one Profile, merged by identity (stack and attributes)
 * as the specification asks. */
struct sample_set {
	struct keytab ids;		/* stack index, attribute indices */
	uint64_t *values;
	uint32_t attrs[MAX_ATTRS];
	uint32_t nattrs;
	struct otlp_dict *d;
	const char *res_labels;		/* --label-from's: in the resource */
};

struct otlp_request *otlp_request_new(void)
{
	struct otlp_request *r = xcalloc(1, sizeof(*r));

	otlp_dict_init(&r->d);
	return r;
}

void otlp_request_free(struct otlp_request *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->res_index.n; i++) {
		sb_free(&r->res[i].resource);
		sb_free(&r->res[i].profiles);
	}
	free(r->res);
	keytab_free(&r->res_index);
	otlp_dict_free(&r->d);
	free(r);
}

unsigned otlp_request_profiles(const struct otlp_request *r)
{
	return r->nprofiles;
}

static void put_kv(struct strbuf *out, const char *key, const char *str, int64_t num)
{
	struct strbuf kv = STRBUF_INIT, any = STRBUF_INIT;

	if (str) {
		utf8_put_valid(&kv, str, strlen(str));
		pb_bytes(&any, ANY_STRING, kv.buf ? kv.buf : "", kv.len);
		sb_reset(&kv);
	} else {
		pb_int(&any, ANY_INT, num);
	}
	pb_bytes(&kv, KV_KEY, key, strlen(key));
	pb_bytes(&kv, KV_VALUE, any.buf ? any.buf : "", any.len);
	pb_bytes(out, RES_ATTRIBUTES, kv.buf, kv.len);
	sb_free(&kv);
	sb_free(&any);
}

/* The semantic conventions' names (service, process, host, container, k8s). */
static void put_resource(struct strbuf *out, const struct otlp_resource *res)
{
	const struct proc_container *c = res->ctr;
	char key[64], value[128];

	put_kv(out, "service.name", res->service, 0);
	if (res->pid)
		put_kv(out, "process.pid", NULL, res->pid);
	if (res->comm)
		put_kv(out, "process.executable.name", res->comm, 0);
	if (res->host)
		put_kv(out, "host.name", res->host, 0);
	if (!c)
		return;
	if (c->id)
		put_kv(out, "container.id", c->id, 0);
	if (c->name)
		put_kv(out, "container.name", c->name, 0);
	if (c->pod_uid)
		put_kv(out, "k8s.pod.uid", c->pod_uid, 0);
	if (c->pod_name)
		put_kv(out, "k8s.pod.name", c->pod_name, 0);
	if (c->pod_namespace)
		put_kv(out, "k8s.namespace.name", c->pod_namespace, 0);
	for (const char *at = c->labels; proc_label_next(&at, key, sizeof(key), value, sizeof(value)); )
		put_kv(out, key, value, 0);
}

/* Whether key is one of the --label-from labels (resource attributes). */
static bool in_labels(const char *labels, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = labels; l && *l; l = strchr(l, '\n') + 1)
		if (!strncmp(l, key, n) && l[n] == '=')
			return true;
	return false;
}

static struct otlp_res *resource_of(struct otlp_request *r, const struct otlp_resource *res)
{
	struct strbuf enc = STRBUF_INIT;
	bool added;
	uint32_t i;

	put_resource(&enc, res);
	i = keytab_intern(&r->res_index, enc.buf ? enc.buf : "", enc.len, &added);
	if (added) {
		r->res = xrealloc(r->res, r->res_index.n * sizeof(*r->res));
		r->res[i].resource = enc;
		r->res[i].profiles = (struct strbuf)STRBUF_INIT;
	} else {
		sb_free(&enc);
	}
	return &r->res[i];
}

/* Labels the resource does not carry become sample attributes. */
static void attr_str(void *ctx, const char *key, const char *value)
{
	static const char *const resource_keys[] = {
		"pid", "comm", "container_id", "container", "pod", "pod_uid", "namespace",
	};
	struct sample_set *ss = ctx;

	for (size_t i = 0; i < sizeof(resource_keys) / sizeof(resource_keys[0]); i++)
		if (!strcmp(key, resource_keys[i]))
			return;
	if (in_labels(ss->res_labels, key))
		return;
	if (ss->nattrs < MAX_ATTRS)
		ss->attrs[ss->nattrs++] = otlp_dict_attr_str(ss->d, key, value);
}

static void attr_num(void *ctx, const char *key, int64_t value)
{
	struct sample_set *ss = ctx;

	if (!strcmp(key, "pid"))
		return;
	if (!strcmp(key, "tid"))
		key = "thread.id";
	if (ss->nattrs < MAX_ATTRS)
		ss->attrs[ss->nattrs++] = otlp_dict_attr_num(ss->d, key, value);
}

static void add_sample(struct sample_set *ss, uint32_t stack, uint64_t value)
{
	uint32_t key[MAX_ATTRS + 1];
	bool added;
	uint32_t i;

	key[0] = stack;
	memcpy(key + 1, ss->attrs, ss->nattrs * sizeof(*key));
	i = keytab_intern(&ss->ids, key, (ss->nattrs + 1) * sizeof(*key), &added);
	if (added) {
		ss->values = xrealloc(ss->values, ss->ids.n * sizeof(*ss->values));
		ss->values[i] = 0;
	}
	ss->values[i] += value;
}

static void put_value_type(struct otlp_dict *d, struct strbuf *out, uint32_t field,
			   const char *type, const char *unit)
{
	struct strbuf vt = STRBUF_INIT;

	pb_uint(&vt, VT_TYPE, pbframes_cstr(&d->f, type));
	pb_uint(&vt, VT_UNIT, pbframes_cstr(&d->f, unit));
	pb_bytes(out, field, vt.buf ? vt.buf : "", vt.len);
	sb_free(&vt);
}

/* Encodes the merged samples into the Profile message out. */
static void put_samples(struct sample_set *ss, struct strbuf *out)
{
	struct strbuf msg = STRBUF_INIT;

	for (uint32_t i = 0; i < ss->ids.n; i++) {
		const uint32_t *key = (const uint32_t *)ss->ids.keys[i];
		uint32_t nattrs = (uint32_t)(ss->ids.lens[i] / sizeof(*key)) - 1;
		uint64_t wide[MAX_ATTRS];

		for (uint32_t a = 0; a < nattrs; a++)
			wide[a] = key[1 + a];
		sb_reset(&msg);
		pb_uint(&msg, SAMPLE_STACK, key[0]);
		pb_packed(&msg, SAMPLE_ATTRIBUTES, wide, nattrs);
		pb_packed(&msg, SAMPLE_VALUES, &ss->values[i], 1);
		pb_bytes(out, PROF_SAMPLES, msg.buf, msg.len);
	}
	sb_free(&msg);
	keytab_free(&ss->ids);
	free(ss->values);
}

static void finish_profile(struct otlp_request *r, const struct otlp_resource *res,
			   struct strbuf *prof)
{
	struct otlp_res *rp = resource_of(r, res);

	pb_bytes(&rp->profiles, SP_PROFILES, prof->buf ? prof->buf : "", prof->len);
	r->nprofiles++;
}

int otlp_add_profile(struct otlp_request *r, const struct otlp_resource *res,
		     const struct profile *p, const struct export_opts *opts)
{
	struct export_opts o;
	struct sample_set ss = { .d = &r->d, .res_labels = res->ctr ? res->ctr->labels : NULL };
	struct pb_label_sink sink = { &ss, attr_str, attr_num };
	struct strbuf prof = STRBUF_INIT;
	struct xstack st = { 0 };
	uint32_t *locs = NULL;
	const char *type = p->alloc_every ? "alloc_space" : pbframes_time_type(p);
	const char *unit = p->alloc_every ? "bytes" : "nanoseconds";

	if (export_opts_norm(&o, opts))
		return -1;
	pbframes_use(&r->d.f, p, &o);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct sample *s = &p->samples[i];

		if (!s->count)
			continue;
		xstack_build(&st, s, &o, 0);
		locs = xrealloc(locs, (st.n + 1) * sizeof(*locs));
		/* Stacks are leaf first; the exported stack is root first. */
		for (uint32_t f = 0; f < st.n; f++)
			locs[f] = otlp_dict_frame(&r->d, &st.f[st.n - 1 - f], s);
		ss.nattrs = 0;
		pbframes_labels(&r->d.f, s, &sink);
		add_sample(&ss, otlp_dict_stack(&r->d, locs, st.n), pbframes_value(p, s));
	}
	put_value_type(&r->d, &prof, PROF_SAMPLE_TYPE, type, unit);
	put_samples(&ss, &prof);
	pb_fixed64(&prof, PROF_TIME, p->start_ns);
	pb_uint(&prof, PROF_DURATION, p->duration_ns);
	put_value_type(&r->d, &prof, PROF_PERIOD_TYPE, p->alloc_every ? "space" : type, unit);
	pb_uint(&prof, PROF_PERIOD, pbframes_period(p));
	finish_profile(r, res, &prof);
	sb_free(&prof);
	free(locs);
	xstack_free(&st);
	return 0;
}

void otlp_add_heap(struct otlp_request *r, const struct otlp_resource *res,
		   const struct heap_paths *hp, const struct heap_census *c, uint64_t time_ns)
{
	struct sample_set ss = { .d = &r->d };
	struct strbuf prof = STRBUF_INIT;
	uint32_t locs[HEAP_PATH_MAX_DEPTH + 2];
	char name[1024];

	for (uint32_t i = 0; i < hp->n; i++) {
		uint32_t n = 0;

		if (!hp->p[i].self_count)
			continue;
		/* A frame is named by its whole path, as in the pprof heap. */
		for (uint32_t p = i; p != HEAP_PATH_NONE && n < HEAP_PATH_MAX_DEPTH + 2;
		     p = hp->p[p].parent) {
			heap_path_name(hp, p, "", name, sizeof(name));
			locs[n++] = otlp_dict_named(&r->d, name);
		}
		add_sample(&ss, otlp_dict_stack(&r->d, locs, n), hp->p[i].self_bytes);
	}
	for (int b = 0; b < HEAP_VM_BUFFERS; b++) {
		if (!heap_vm_buffer_bytes(c, b))
			continue;
		locs[0] = otlp_dict_named(&r->d, heap_vm_buffer_names[b]);
		locs[1] = otlp_dict_named(&r->d, heap_vm_buffers_root);
		add_sample(&ss, otlp_dict_stack(&r->d, locs, 2), heap_vm_buffer_bytes(c, b));
	}
	put_value_type(&r->d, &prof, PROF_SAMPLE_TYPE, "inuse_space", "bytes");
	put_samples(&ss, &prof);
	pb_fixed64(&prof, PROF_TIME, time_ns);
	finish_profile(r, res, &prof);
	sb_free(&prof);
}

void otlp_request_encode(struct otlp_request *r, struct strbuf *out)
{
	struct strbuf rp = STRBUF_INIT, sp = STRBUF_INIT, dict = STRBUF_INIT;
	static const char scope_name[] = "luabpfprof";

	for (uint32_t i = 0; i < r->res_index.n; i++) {
		struct otlp_res *res = &r->res[i];

		sb_reset(&sp);
		sb_reset(&rp);
		sb_reset(&dict);	/* scratch: the InstrumentationScope */
		pb_bytes(&dict, SCOPE_NAME, scope_name, sizeof(scope_name) - 1);
		pb_bytes(&sp, SP_SCOPE, dict.buf, dict.len);
		sb_putn(&sp, res->profiles.buf ? res->profiles.buf : "", res->profiles.len);
		pb_bytes(&rp, RP_RESOURCE, res->resource.buf ? res->resource.buf : "",
			 res->resource.len);
		pb_bytes(&rp, RP_SCOPE_PROFILES, sp.buf, sp.len);
		pb_bytes(out, REQ_RESOURCE_PROFILES, rp.buf, rp.len);
	}
	sb_reset(&dict);
	otlp_dict_encode(&r->d, &dict);
	pb_bytes(out, REQ_DICTIONARY, dict.buf ? dict.buf : "", dict.len);
	sb_free(&rp);
	sb_free(&sp);
	sb_free(&dict);
}

int export_otlp(FILE *out, const struct profile *p, const struct export_opts *o)
{
	struct otlp_request *r = otlp_request_new();
	struct strbuf body = STRBUF_INIT, service = STRBUF_INIT;
	char host[256] = "";
	uint32_t *pids = NULL;
	size_t npids = profile_pids(p, &pids);
	int err = 0;

	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < npids && !err; i++) {
		struct profile *one = profile_of_pid(p, pids[i]);
		struct service_vars v = {
			.comm = profile_comm(p, pids[i]), .pid = pids[i],
			.ctr = profile_container(p, pids[i]),
			.labels = o ? o->labels : NULL, .nlabels = o ? o->nlabels : 0,
		};
		struct otlp_resource res = {
			.pid = pids[i], .comm = v.comm, .host = host[0] ? host : NULL, .ctr = v.ctr,
		};

		if (!one) {
			errno = ENOMEM;
			err = -1;
			break;
		}
		sb_reset(&service);
		service_expand(&service, o && o->service ? o->service : "{comm}", &v);
		res.service = sb_str(&service);
		err = otlp_add_profile(r, &res, one, o);
		profile_free(one);
	}
	if (!err) {
		otlp_request_encode(r, &body);
		fwrite(body.buf ? body.buf : "", 1, body.len, out);
		err = export_finish(out);
	}
	free(pids);
	sb_free(&body);
	sb_free(&service);
	otlp_request_free(r);
	return err;
}
