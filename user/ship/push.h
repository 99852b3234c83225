/* SPDX-License-Identifier: MIT */
/* Shipping profiles to a backend over HTTP (libcurl): the request each
 * API wants for one interval's gzip pprof, and one attempt to send it.
 * Retries, backoff and the spool are the shipper's (shipper.h).
 *   ingest  Pyroscope  POST /ingest?name=SVC.cpu{k=v}&from&until&format=pprof&sampleRate
 *                      (SVC.off_cpu, SVC.wall for the other profile types)
 *   push    Pyroscope  POST /push.v1.PusherService/Push (Connect JSON, base64 profile)
 *   parca   Parca      POST /profiles/writeraw (grpc-gateway JSON, base64 profile)
 *   otlp    OpenTelemetry  POST /v1development/profiles (protobuf
 *                      ExportProfilesServiceRequest, report/otlp.h): one
 *                      request per interval, built by the agent, not here
 */
#ifndef LBP_PUSH_H
#define LBP_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum push_api { PUSH_API_INGEST, PUSH_API_PUSH, PUSH_API_PARCA, PUSH_API_OTLP };

struct push_label {
	const char *name, *value;
};

/* The profile type a backend files a profile under: Pyroscope's /ingest
 * name suffix and the JSON APIs' __name__ (push_type_names). */
enum push_type { PUSH_TYPE_CPU, PUSH_TYPE_OFFCPU, PUSH_TYPE_WALL };

/* "cpu", "off_cpu", "wall" (/ingest) and "process_cpu", "off_cpu",
 * "wall" (__name__). */
void push_type_names(enum push_type t, const char **suffix, const char **metric);

/* What describes one profile to the backend. */
struct push_meta {
	enum push_type type;		/* zero: CPU */
	const char *service;		/* already valid (push_service_name) */
	const struct push_label *labels;
	int nlabels;
	uint64_t from_ns, until_ns;	/* CLOCK_REALTIME */
	unsigned hz;
};

#define PUSH_OTLP_ROUTE	"/v1development/profiles"
#define PUSH_OTLP_TYPE	"application/x-protobuf"

/* A ready request: immutable, so it can wait in the spool and be retried. */
struct push_req {
	char *path;		/* route and query string, e.g. "/ingest?name=..." */
	char *content_type;
	char *body;
	size_t body_len;
};

/* "ingest", "push", "parca", "otlp"; -1 if unknown. */
int push_api_parse(const char *name, enum push_api *api);

/* Builds the request carrying gz (a gzip pprof; for otlp, the encoded
 * ExportProfilesServiceRequest, m unused).  Returns 0. */
int push_build(enum push_api api, const struct push_meta *m, const void *gz, size_t len,
	       struct push_req *out);
void push_req_free(struct push_req *r);

/* Whether path is one push_build makes: a known route, and for /ingest a
 * query of unreserved and %-escaped bytes only.  Anything else (a spool
 * file someone edited: "@host/...", "/../", a CR) is never sent. */
bool push_path_ok(const char *path);

/* A service name every backend accepts, from any string (a comm): bytes
 * outside [A-Za-z0-9_.-] become '_'. */
void push_service_name(const char *in, char *out, size_t len);

/* Checks a --label: KEY a label name ([A-Za-z_][A-Za-z0-9_]*, not a
 * reserved one), VALUE non-empty printable without {},=" or backslash.
 * Returns 0, or -1 with a one-line reason. */
int push_label_check(const char *kv, char *err, size_t errlen);

/* The first line of a credentials file, trimmed of trailing blanks; -1
 * with a reason if it is not a regular file (a FIFO is refused without
 * blocking, a symlink followed only if root's or ours), cannot be read,
 * is empty, does not fit in len - 1 bytes (never cut) or holds control
 * characters (it becomes an HTTP header). */
int push_read_secret(const char *path, char *buf, size_t len, char *err, size_t errlen);

/* push_client_new refuses a URL with user:password@ (visible in ps and
 * logs: use a credentials file) and a tenant or credential with control
 * characters (a header injection). */
struct push_client_opts {
	const char *url;		/* base URL, or the full route URL */
	const char *tenant;		/* X-Scope-OrgID, or NULL */
	const char *bearer;		/* Authorization: Bearer, or NULL */
	const char *basic;		/* "user:password", or NULL */
	long connect_timeout_s, timeout_s;
};

enum push_result {
	PUSH_OK,
	PUSH_RETRY,		/* network error, timeout, 5xx, 408, 429, 401, 403 */
	PUSH_REJECTED,		/* 3xx, any other 4xx: sending it again cannot help */
};

/* 0, or -1 with one line: user:password@ in the URL, control characters
 * in the URL, tenant or credentials, a scheme other than http(s). */
int push_opts_check(const struct push_client_opts *o, char *err, size_t errlen);

struct push_client;

struct push_client *push_client_new(const struct push_client_opts *o, char *err, size_t errlen);
void push_client_free(struct push_client *c);

/* From mono_ns (CLOCK_MONOTONIC) on, a request in flight is aborted
 * within about a second (PUSH_RETRY, "aborted at shutdown").  Any thread. */
void push_client_abort_at(struct push_client *c, long long mono_ns);

/* One attempt; on failure why says what happened (status and the start
 * of the server's answer, or curl's error). */
enum push_result push_send(struct push_client *c, const struct push_req *r, char *why,
			   size_t whylen);

#endif
