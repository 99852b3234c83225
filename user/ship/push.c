// SPDX-License-Identifier: MIT
/* HTTP push: request bodies for Pyroscope and Parca, one libcurl attempt. */
#include "ship/push.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base64.h"
#include "base/json.h"
#include "base/strbuf.h"

#define ANSWER_MAX	200	/* bytes of a server's answer kept for the log */


struct push_client {
	CURL *curl;
	struct curl_slist *headers_bin, *headers_json, *headers_pb;
	char *base;		/* URL without a trailing '/' */
	char answer[ANSWER_MAX + 1];
	size_t answer_len;
	char curl_err[CURL_ERROR_SIZE];
	_Atomic long long abort_at_ns;	/* CLOCK_MONOTONIC; 0: none */
};

int push_api_parse(const char *name, enum push_api *api)
{
	if (!strcmp(name, "ingest"))
		*api = PUSH_API_INGEST;
	else if (!strcmp(name, "push"))
		*api = PUSH_API_PUSH;
	else if (!strcmp(name, "parca"))
		*api = PUSH_API_PARCA;
	else if (!strcmp(name, "otlp"))
		*api = PUSH_API_OTLP;
	else
		return -1;
	return 0;
}

void push_service_name(const char *in, char *out, size_t len)
{
	size_t n = 0;

	if (!len)
		return;
	for (; *in && n + 1 < len; in++) {
		unsigned char c = (unsigned char)*in;

		out[n++] = isalnum(c) || c == '_' || c == '.' || c == '-' ? (char)c : '_';
	}
	if (!n && len > 1)
		out[n++] = '_';
	out[n] = '\0';
}

/* Query-string escaping (RFC 3986 unreserved characters stay). */
static void put_query_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || strchr("-._~", c))
			sb_putc(sb, (char)c);
		else
			sb_printf(sb, "%%%02X", c);
	}
}

static void put_json_label(struct strbuf *sb, const char *name, const char *value, bool first)
{
	if (!first)
		sb_putc(sb, ',');
	sb_puts(sb, "{\"name\":");
	json_put_cstr(sb, name);
	sb_puts(sb, ",\"value\":");
	json_put_cstr(sb, value);
	sb_putc(sb, '}');
}

/* CPU keeps the name Pyroscope gives Go's CPU profiles; off-CPU and wall
 * time are types of their own, so that a backend never adds blocked
 * nanoseconds to CPU ones. */
void push_type_names(enum push_type t, const char **suffix, const char **metric)
{
	switch (t) {
	case PUSH_TYPE_OFFCPU:
		*suffix = *metric = "off_cpu";
		return;
	case PUSH_TYPE_WALL:
		*suffix = *metric = "wall";
		return;
	case PUSH_TYPE_CPU:
		break;
	}
	*suffix = "cpu";
	*metric = "process_cpu";
}

/* The labels both JSON APIs share: __name__, service_name, then ours. */
static void put_json_labels(struct strbuf *sb, const struct push_meta *m, bool delta_label)
{
	const char *suffix, *metric;

	push_type_names(m->type, &suffix, &metric);
	put_json_label(sb, "__name__", metric, true);
	put_json_label(sb, "service_name", m->service, false);
	if (delta_label)
		put_json_label(sb, "__delta__", "false", false);
	for (int i = 0; i < m->nlabels; i++)
		put_json_label(sb, m->labels[i].name, m->labels[i].value, false);
}

/* A random (version 4) UUID: the Push API's sample ID, fixed when the
 * request is built so that a retry carries the same one. */
static void put_uuid(struct strbuf *sb)
{
	unsigned char u[16];
	FILE *f = fopen("/dev/urandom", "re");

	if (!f || fread(u, 1, sizeof(u), f) != sizeof(u)) {
		for (size_t i = 0; i < sizeof(u); i++)
			u[i] = (unsigned char)rand();
	}
	if (f)
		fclose(f);
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	for (size_t i = 0; i < sizeof(u); i++)
		sb_printf(sb, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
}

static char *steal(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : strdup("");

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

/* A binary body sent as it is. */
static void copy_body(struct push_req *out, const char *type, const void *data, size_t len)
{
	out->content_type = strdup(type);
	out->body = malloc(len ? len : 1);
	if (out->body)
		memcpy(out->body, data, len);
	out->body_len = out->body ? len : 0;
}

static void build_ingest(const struct push_meta *m, const void *gz, size_t len,
			 struct push_req *out, struct strbuf *path)
{
	struct strbuf name = STRBUF_INIT;
	const char *suffix, *metric;

	/* The type after the last '.' of the name must be one Pyroscope knows. */
	push_type_names(m->type, &suffix, &metric);
	sb_printf(&name, "%s.%s{", m->service, suffix);
	for (int i = 0; i < m->nlabels; i++)
		sb_printf(&name, "%s%s=%s", i ? "," : "", m->labels[i].name, m->labels[i].value);
	sb_putc(&name, '}');
	sb_puts(path, "/ingest?name=");
	put_query_escaped(path, sb_str(&name));
	sb_printf(path, "&from=%llu&until=%llu&format=pprof&sampleRate=%u&spyName=luabpfprof",
		  (unsigned long long)(m->from_ns / 1000000000ull),
		  (unsigned long long)(m->until_ns / 1000000000ull), m->hz);
	copy_body(out, "application/octet-stream", gz, len);
	sb_free(&name);
}

int push_build(enum push_api api, const struct push_meta *m, const void *gz, size_t len,
	       struct push_req *out)
{
	struct strbuf path = STRBUF_INIT, body = STRBUF_INIT;

	memset(out, 0, sizeof(*out));
	switch (api) {
	case PUSH_API_INGEST:
		build_ingest(m, gz, len, out, &path);
		break;
	case PUSH_API_OTLP:
		sb_puts(&path, PUSH_OTLP_ROUTE);
		copy_body(out, PUSH_OTLP_TYPE, gz, len);
		break;
	case PUSH_API_PUSH:
		sb_puts(&path, "/push.v1.PusherService/Push");
		sb_puts(&body, "{\"series\":[{\"labels\":[");
		put_json_labels(&body, m, true);
		sb_puts(&body, "],\"samples\":[{\"ID\":\"");
		put_uuid(&body);
		sb_puts(&body, "\",\"rawProfile\":\"");
		base64_append(&body, gz, len);
		sb_puts(&body, "\"}]}]}");
		break;
	case PUSH_API_PARCA:
		sb_puts(&path, "/profiles/writeraw");
		sb_puts(&body, "{\"series\":[{\"labels\":{\"labels\":[");
		put_json_labels(&body, m, false);
		sb_puts(&body, "]},\"samples\":[{\"rawProfile\":\"");
		base64_append(&body, gz, len);
		sb_puts(&body, "\"}]}],\"normalized\":true}");
		break;
	}
	if (api == PUSH_API_PUSH || api == PUSH_API_PARCA) {
		out->content_type = strdup("application/json");
		out->body_len = body.len;
		out->body = steal(&body);
	}
	out->path = steal(&path);
	if (!out->path || !out->content_type || !out->body) {
		push_req_free(out);
		return -1;
	}
	return 0;
}

void push_req_free(struct push_req *r)
{
	free(r->path);
	free(r->content_type);
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static size_t on_answer(char *data, size_t size, size_t n, void *ctx)
{
	struct push_client *c = ctx;
	size_t len = size * n, room = ANSWER_MAX - c->answer_len;

	if (len < room)
		room = len;
	memcpy(c->answer + c->answer_len, data, room);
	c->answer_len += room;
	c->answer[c->answer_len] = '\0';
	return len;
}

static struct curl_slist *headers_for(const char *content_type, const struct push_client_opts *o)
{
	struct curl_slist *h = NULL, *t;
	struct strbuf line = STRBUF_INIT;

	sb_printf(&line, "Content-Type: %s", content_type);
	h = curl_slist_append(h, sb_str(&line));
	if (h && o->tenant) {
		sb_reset(&line);
		sb_printf(&line, "X-Scope-OrgID: %s", o->tenant);
		t = curl_slist_append(h, sb_str(&line));
		h = t ? t : (curl_slist_free_all(h), NULL);
	}
	if (h && o->bearer) {
		sb_reset(&line);
		sb_printf(&line, "Authorization: Bearer %s", o->bearer);
		t = curl_slist_append(h, sb_str(&line));
		h = t ? t : (curl_slist_free_all(h), NULL);
	}
	/* No "Expect: 100-continue" round trip for large bodies. */
	if (h) {
		t = curl_slist_append(h, "Expect:");
		h = t ? t : (curl_slist_free_all(h), NULL);
	}
	sb_free(&line);
	return h;
}

/* libcurl calls this about once a second, and often while data flows:
 * past the abort deadline the request in flight ends at once. */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct push_client *c = ctx;
	long long at = atomic_load(&c->abort_at_ns);
	struct timespec t;

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	if (!at)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000ll + t.tv_nsec >= at;
}

void push_client_abort_at(struct push_client *c, long long mono_ns)
{
	atomic_store(&c->abort_at_ns, mono_ns);
}

struct push_client *push_client_new(const struct push_client_opts *o, char *err, size_t errlen)
{
	struct push_client *c = calloc(1, sizeof(*c));
	size_t n;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (push_opts_check(o, err, errlen))
		goto fail;
	c->base = strdup(o->url);
	c->curl = curl_easy_init();
	c->headers_bin = headers_for("application/octet-stream", o);
	c->headers_json = headers_for("application/json", o);
	c->headers_pb = headers_for(PUSH_OTLP_TYPE, o);
	if (!c->base || !c->curl || !c->headers_bin || !c->headers_json || !c->headers_pb) {
		snprintf(err, errlen, "cannot set up libcurl");
		goto fail;
	}
	n = strlen(c->base);
	while (n && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, o->timeout_s);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "luabpfprof");
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_answer);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, c);
	if (o->basic) {
		curl_easy_setopt(c->curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c->curl, CURLOPT_USERPWD, o->basic);
	}
	return c;
fail:
	push_client_free(c);
	return NULL;
}

void push_client_free(struct push_client *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers_bin);
	curl_slist_free_all(c->headers_json);
	curl_slist_free_all(c->headers_pb);
	free(c->base);
	free(c);
}

/* The base URL with the request's route, unless the base already ends in
 * that route (a --push URL given in full). */
static void full_url(const struct push_client *c, const struct push_req *r, struct strbuf *url)
{
	size_t route = strcspn(r->path, "?"), blen = strlen(c->base);

	sb_puts(url, c->base);
	if (blen >= route && !strncmp(c->base + blen - route, r->path, route))
		sb_puts(url, r->path + route);
	else
		sb_puts(url, r->path);
}

static void clean_answer(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20)
			*s = ' ';
}

enum push_result push_send(struct push_client *c, const struct push_req *r, char *why,
			   size_t whylen)
{
	struct strbuf url = STRBUF_INIT;
	long status = 0;
	CURLcode rc;
	enum push_result res;

	if (!push_path_ok(r->path)) {
		snprintf(why, whylen, "not a request luabpfprof makes (unsafe path)");
		return PUSH_REJECTED;
	}
	full_url(c, r, &url);
	c->answer_len = 0;
	c->answer[0] = '\0';
	c->curl_err[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, r->body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER,
			 !strcmp(r->content_type, "application/json") ? c->headers_json :
			 !strcmp(r->content_type, PUSH_OTLP_TYPE) ? c->headers_pb : c->headers_bin);
	rc = curl_easy_perform(c->curl);
	if (rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, whylen, "aborted at shutdown");
		res = PUSH_RETRY;
		goto cleanup;
	}
	if (rc != CURLE_OK) {
		snprintf(why, whylen, "%s", c->curl_err[0] ? c->curl_err : curl_easy_strerror(rc));
		res = PUSH_RETRY;
		goto cleanup;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	clean_answer(c->answer);
	snprintf(why, whylen, "HTTP %ld%s%s", status, c->answer[0] ? ": " : "", c->answer);
	if (status >= 200 && status < 300)
		res = PUSH_OK;
	else if (status >= 300 && status < 400)
		res = PUSH_REJECTED;	/* redirects are not followed: give the final URL */
	else if (status >= 400 && status < 500 && status != 401 && status != 403 &&
		 status != 408 && status != 429)
		res = PUSH_REJECTED;
	else
		res = PUSH_RETRY;
cleanup:
	sb_free(&url);
	return res;
}
