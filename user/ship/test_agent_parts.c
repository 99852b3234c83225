// SPDX-License-Identifier: MIT
/* Unit tests for continuous mode's parts: base64, request bodies for the
 * three push APIs, label and credentials checks, the spool (memory and
 * disk, limits, restart), rolling files with retention, and the per-pid
 * split of a profile. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base64.h"
#include "model/profile.h"
#include "model/profile_split.h"
#include "ship/push.h"
#include "ship/sink_files.h"
#include "ship/spool.h"
#include "base/strbuf.h"
#include "base/unit.h"

#define DEST "ingest http://unit tenant="

static char tmpdir[] = "/tmp/lbp-unit-agent.XXXXXX";

static const char *b64(const char *s)
{
	static struct strbuf sb = STRBUF_INIT;

	sb_reset(&sb);
	base64_append(&sb, s, strlen(s));
	return sb_str(&sb);
}

static void test_base64(void)
{
	/* RFC 4648 section 10. */
	CHECK_STR("base64: empty", b64(""), "");
	CHECK_STR("base64: f", b64("f"), "Zg==");
	CHECK_STR("base64: fo", b64("fo"), "Zm8=");
	CHECK_STR("base64: foo", b64("foo"), "Zm9v");
	CHECK_STR("base64: foob", b64("foob"), "Zm9vYg==");
	CHECK_STR("base64: fooba", b64("fooba"), "Zm9vYmE=");
	CHECK_STR("base64: foobar", b64("foobar"), "Zm9vYmFy");
	{
		struct strbuf sb = STRBUF_INIT;
		const unsigned char bin[] = { 0x1f, 0x8b, 0xff, 0x00 };

		base64_append(&sb, bin, sizeof(bin));
		CHECK_STR("base64: binary with NUL and 0xff", sb_str(&sb), "H4v/AA==");
		sb_free(&sb);
	}
}

static void test_names_and_labels(void)
{
	char name[16], err[200];

	push_service_name("nginx: worker", name, sizeof(name));
	CHECK_STR("service name: unsafe bytes become _", name, "nginx__worker");
	push_service_name("", name, sizeof(name));
	CHECK_STR("service name: empty becomes _", name, "_");
	push_service_name("a-very-long-process-name", name, 8);
	CHECK_STR("service name: truncated to the buffer", name, "a-very-");
	CHECK("label: env=prod is fine", !push_label_check("env=prod", err, sizeof(err)));
	CHECK("label: value with spaces and dots is fine", !push_label_check("zone=eu west.1", err, sizeof(err)));
	CHECK("label: no name refused", push_label_check("=x", err, sizeof(err)));
	CHECK("label: name starting with a digit refused", push_label_check("9a=1", err, sizeof(err)));
	CHECK("label: name with a dash refused", push_label_check("a-b=1", err, sizeof(err)));
	CHECK("label: __reserved refused", push_label_check("__name__=x", err, sizeof(err)));
	CHECK("label: service_name is ours", push_label_check("service_name=x", err, sizeof(err)));
	CHECK("label: pid is ours", push_label_check("pid=1", err, sizeof(err)));
	CHECK("label: empty value refused", push_label_check("k=", err, sizeof(err)));
	CHECK("label: comma in value refused", push_label_check("k=a,b", err, sizeof(err)));
	CHECK("label: brace in value refused", push_label_check("k=a}", err, sizeof(err)));
	CHECK("label: quote in value refused", push_label_check("k=a\"", err, sizeof(err)));
	CHECK("label: the reason names the label", strstr(err, "k=a\"") != NULL);
}

static void test_secrets(void)
{
	char path[128], buf[64], err[200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/token", tmpdir);
	f = fopen(path, "w");
	fputs("  tok3n \t\nsecond line\n", f);
	fclose(f);
	CHECK("secret: read", !push_read_secret(path, buf, sizeof(buf), err, sizeof(err)));
	CHECK_STR("secret: first line, trailing blanks trimmed", buf, "  tok3n");
	f = fopen(path, "w");
	fputs("\n", f);
	fclose(f);
	CHECK("secret: empty file refused", push_read_secret(path, buf, sizeof(buf), err, sizeof(err)));
	CHECK("secret: the reason says empty", strstr(err, "empty") != NULL);
	snprintf(path, sizeof(path), "%s/missing", tmpdir);
	CHECK("secret: missing file refused", push_read_secret(path, buf, sizeof(buf), err, sizeof(err)));
	CHECK("secret: the reason names the file", strstr(err, "missing") != NULL);
}

static const struct push_label labels[] = { { "env", "ci" }, { "pid", "12" } };

static void test_requests(void)
{
	const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0x00, 'x' };
	struct push_meta m = {
		.service = "svc", .labels = labels, .nlabels = 2,
		.from_ns = 1700000000500000000ull, .until_ns = 1700000010400000000ull, .hz = 99,
	};
	struct push_req r;
	enum push_api api;

	CHECK("push api: ingest", !push_api_parse("ingest", &api) && api == PUSH_API_INGEST);
	CHECK("push api: push", !push_api_parse("push", &api) && api == PUSH_API_PUSH);
	CHECK("push api: parca", !push_api_parse("parca", &api) && api == PUSH_API_PARCA);
	CHECK("push api: otlp", !push_api_parse("otlp", &api) && api == PUSH_API_OTLP);
	CHECK("push api: unknown refused", push_api_parse("zipkin", &api));
	CHECK("otlp: built", !push_build(PUSH_API_OTLP, NULL, gz, sizeof(gz), &r));
	CHECK_STR("otlp: the route", r.path, "/v1development/profiles");
	CHECK_STR("otlp: protobuf", r.content_type, "application/x-protobuf");
	CHECK("otlp: the body as given", r.body_len == sizeof(gz) && !memcmp(r.body, gz, sizeof(gz)));
	CHECK("otlp: a route push_send takes", push_path_ok(r.path));
	push_req_free(&r);

	CHECK("ingest: built", !push_build(PUSH_API_INGEST, &m, gz, sizeof(gz), &r));
	CHECK_STR("ingest: route, escaped name with the cpu type and labels, seconds, real rate",
		  r.path,
		  "/ingest?name=svc.cpu%7Benv%3Dci%2Cpid%3D12%7D&from=1700000000&until=1700000010"
		  "&format=pprof&sampleRate=99&spyName=luabpfprof");
	CHECK_STR("ingest: binary body type", r.content_type, "application/octet-stream");
	CHECK("ingest: the body is the gzip bytes",
	      r.body_len == sizeof(gz) && !memcmp(r.body, gz, sizeof(gz)));
	push_req_free(&r);

	CHECK("push: built", !push_build(PUSH_API_PUSH, &m, gz, sizeof(gz), &r));
	CHECK_STR("push: route", r.path, "/push.v1.PusherService/Push");
	CHECK_STR("push: JSON", r.content_type, "application/json");
	CHECK("push: labels __name__, service_name, __delta__=false, then ours",
	      strstr(r.body, "{\"series\":[{\"labels\":[{\"name\":\"__name__\",\"value\":\"process_cpu\"},"
			     "{\"name\":\"service_name\",\"value\":\"svc\"},"
			     "{\"name\":\"__delta__\",\"value\":\"false\"},"
			     "{\"name\":\"env\",\"value\":\"ci\"},{\"name\":\"pid\",\"value\":\"12\"}],") == r.body);
	CHECK("push: base64 profile", strstr(r.body, "\"rawProfile\":\"H4sIAHg=\"}]}]}") != NULL);
	{
		const char *id = strstr(r.body, "\"ID\":\"");
		bool uuid = id && strlen(id) > 42;

		for (int i = 0; uuid && i < 36; i++) {
			char c = id[6 + i];

			uuid = (i == 8 || i == 13 || i == 18 || i == 23) ? c == '-' :
			       (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
		}
		CHECK("push: a version 4 UUID as the sample ID", uuid && id[6 + 14] == '4');
	}
	CHECK("push: body length matches", r.body_len == strlen(r.body));
	push_req_free(&r);

	CHECK("parca: built", !push_build(PUSH_API_PARCA, &m, gz, sizeof(gz), &r));
	CHECK_STR("parca: route", r.path, "/profiles/writeraw");
	CHECK_STR("parca: grpc-gateway JSON body", r.body,
		  "{\"series\":[{\"labels\":{\"labels\":[{\"name\":\"__name__\",\"value\":\"process_cpu\"},"
		  "{\"name\":\"service_name\",\"value\":\"svc\"},{\"name\":\"env\",\"value\":\"ci\"},"
		  "{\"name\":\"pid\",\"value\":\"12\"}]},\"samples\":[{\"rawProfile\":\"H4sIAHg=\"}]}],"
		  "\"normalized\":true}");
	push_req_free(&r);
}

static struct push_req make_req(char fill, size_t n)
{
	struct push_req r = { strdup("/ingest?x=1"), strdup("application/octet-stream"),
			      malloc(n), n };

	memset(r.body, fill, n);
	return r;
}

static int count_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strlen(de->d_name) > strlen(suffix) &&
		    !strcmp(de->d_name + strlen(de->d_name) - strlen(suffix), suffix))
			n++;
	closedir(d);
	return n;
}

static void test_spool_memory(void)
{
	struct push_req a = make_req('a', 400), b = make_req('b', 400), c = make_req('c', 400), got;
	struct spool_stats st;
	char err[200];
	struct spool *s = spool_open(NULL, DEST, 1000, err, sizeof(err));
	uint64_t id, first;

	CHECK("memory spool: opens", s != NULL);
	CHECK("memory spool: empty peek", spool_peek(s, &got, &id) == -1);
	CHECK("memory spool: add a", spool_add(s, &a) == 0);
	CHECK("memory spool: add b", spool_add(s, &b) == 0);
	CHECK("memory spool: c pushes out the oldest (a)", spool_add(s, &c) == 1);
	spool_get_stats(s, &st);
	CHECK("memory spool: 2 queued, 1 dropped", st.queued == 2 && st.dropped == 1);
	CHECK("memory spool: peek gives b", !spool_peek(s, &got, &first) && got.body[0] == 'b' &&
	      got.body_len == 400 && !strcmp(got.path, a.path));
	push_req_free(&got);
	CHECK("memory spool: peek again gives b (not removed)", !spool_peek(s, &got, &id) && id == first);
	push_req_free(&got);
	spool_remove(s, first);
	CHECK("memory spool: then c", !spool_peek(s, &got, &id) && got.body[0] == 'c');
	push_req_free(&got);
	spool_remove(s, id);
	spool_remove(s, id);	/* gone already: no effect */
	spool_get_stats(s, &st);
	CHECK("memory spool: empty again, bytes back to 0", st.queued == 0 && st.bytes == 0);
	{
		struct push_req big = make_req('x', 2000);

		CHECK("memory spool: a request larger than the limit is refused", spool_add(s, &big) == -1);
		spool_get_stats(s, &st);
		CHECK("memory spool: and counted as dropped", st.dropped == 2);
		push_req_free(&big);
	}
	spool_close(s);
	push_req_free(&a);
	push_req_free(&b);
	push_req_free(&c);
}

/* The path of request id in dir (its name carries the owner's tag). */
static void spool_file(const char *dir, uint64_t id, char *path, size_t len)
{
	char prefix[32];
	struct dirent *de;
	DIR *d = opendir(dir);

	snprintf(prefix, sizeof(prefix), "%016llx-", (unsigned long long)id);
	snprintf(path, len, "%s/none", dir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			snprintf(path, len, "%.100s/%.60s", dir, de->d_name);
	if (d)
		closedir(d);
}

static void test_spool_disk(void)
{
	struct push_req a = make_req('a', 300), b = make_req('b', 300), got;
	char dir[128], path[256], err[200];
	struct spool_stats st;
	struct spool *s;
	uint64_t id;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/spool", tmpdir);
	s = spool_open(dir, DEST, 1 << 20, err, sizeof(err));
	CHECK("disk spool: creates its directory", s != NULL && count_files(dir, ".req") == 0);
	spool_add(s, &a);
	spool_add(s, &b);
	CHECK("disk spool: one file per request", count_files(dir, ".req") == 2);
	spool_close(s);

	/* A crash mid-write where O_TMPFILE is missing leaves a named
	 * temporary of a process that is gone: removed at open. */
	snprintf(path, sizeof(path), "%s/.luabpfprof.999999999-7.1", dir);
	f = fopen(path, "w");
	fputs("half", f);
	fclose(f);
	s = spool_open(dir, DEST, 1 << 20, err, sizeof(err));
	spool_get_stats(s, &st);
	CHECK("disk spool: a restart finds both requests", st.queued == 2);
	CHECK("disk spool: and removes the half-written file", access(path, F_OK) != 0);
	CHECK("disk spool: oldest first, content intact",
	      !spool_peek(s, &got, &id) && got.body_len == 300 && got.body[0] == 'a' &&
	      got.body[299] == 'a' && !strcmp(got.content_type, "application/octet-stream") &&
	      !strcmp(got.path, "/ingest?x=1"));
	push_req_free(&got);
	spool_remove(s, id);
	CHECK("disk spool: delivered means deleted", count_files(dir, ".req") == 1);
	/* New ids continue after the old ones: order survives restarts. */
	spool_add(s, &a);
	CHECK("disk spool: b before the new a", !spool_peek(s, &got, &id) && got.body[0] == 'b');
	push_req_free(&got);
	/* A corrupt file is dropped, not retried forever. */
	spool_file(dir, id, path, sizeof(path));
	f = fopen(path, "w");
	fputs("garbage", f);
	fclose(f);
	CHECK("disk spool: a corrupt request is skipped", !spool_peek(s, &got, &id) && got.body[0] == 'a');
	push_req_free(&got);
	spool_get_stats(s, &st);
	CHECK("disk spool: and counted as dropped", st.dropped == 1 && st.queued == 1);
	spool_close(s);

	/* The limit applies to what a previous run left. */
	s = spool_open(dir, DEST, 100, err, sizeof(err));
	spool_get_stats(s, &st);
	CHECK("disk spool: a smaller limit drops old requests at open", st.queued == 0 &&
	      st.dropped == 1 && count_files(dir, ".req") == 0);
	spool_close(s);
	snprintf(path, sizeof(path), "%s/token/sub", tmpdir);
	CHECK("disk spool: an unusable directory is refused with a reason",
	      spool_open(path, DEST, 100, err, sizeof(err)) == NULL && strstr(err, "--spool-dir"));
	push_req_free(&a);
	push_req_free(&b);
}

static void test_sink_files(void)
{
	char dir[128], err[200], path[256];
	struct sink_files *s;
	char data[100];
	FILE *f;

	memset(data, 'z', sizeof(data));
	snprintf(dir, sizeof(dir), "%s/out", tmpdir);
	s = sink_files_open(dir, 2, 0, err, sizeof(err));
	CHECK("files: opens (creates the directory)", s != NULL);
	/* Someone else's file is never touched. */
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	f = fopen(path, "w");
	fputs("keep me", f);
	fclose(f);
	sink_files_write(s, 1700000000000000000ull, "svc-1", data, sizeof(data));
	sink_files_write(s, 1700000010250000000ull, "svc-1", data, sizeof(data));
	sink_files_write(s, 1700000020000000000ull, "svc-1", data, sizeof(data));
	CHECK("files: --retain-count 2 keeps two", count_files(dir, ".pb.gz") == 2);
	snprintf(path, sizeof(path), "%s/20231114T221330.250Z-svc-1.pb.gz", dir);
	CHECK("files: named by UTC start time with milliseconds", access(path, F_OK) == 0);
	snprintf(path, sizeof(path), "%s/20231114T221320.000Z-svc-1.pb.gz", dir);
	CHECK("files: the newest are kept", access(path, F_OK) != 0);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	CHECK("files: other files are left alone", access(path, F_OK) == 0);
	sink_files_close(s);

	/* Reopened with a size limit: existing files count. */
	s = sink_files_open(dir, 100, 250, err, sizeof(err));
	sink_files_write(s, 1700000030000000000ull, "svc", data, sizeof(data));
	CHECK("files: --retain-size counts files already there", count_files(dir, ".pb.gz") == 2);
	sink_files_close(s);
	s = sink_files_open(dir, 100, 10, err, sizeof(err));
	CHECK("files: the newest file stays even over the size limit", count_files(dir, ".pb.gz") == 1);
	sink_files_close(s);
	snprintf(path, sizeof(path), "%s/token/out", tmpdir);
	CHECK("files: an unusable directory is refused with a reason",
	      sink_files_open(path, 1, 0, err, sizeof(err)) == NULL && strstr(err, "--out-dir"));
}

static void test_split(void)
{
	struct profile *p = profile_new(99), *one;
	struct frame_sym fa = { .kind = SYM_LUA, .name = "a", .chunk = "@t.lua", .firstline = 1, .line = 2 };
	struct frame_sym fb = { .kind = SYM_LUA, .name = "b", .chunk = "@t.lua", .firstline = 5, .line = 6 };
	const struct frame_sym *ab[2], *b[1];
	struct sample s = { .pid = 10, .tid = 10, .vmstate = -1, .count = 3 };
	uint32_t *pids;
	size_t n;

	ab[0] = profile_frame(p, &fa);
	ab[1] = profile_frame(p, &fb);
	b[0] = ab[1];
	p->start_ns = 5;
	p->duration_ns = 7;
	profile_set_comm(p, 10, "ten");
	profile_set_comm(p, 20, "twenty");
	s.frames = ab;
	s.nframes = 2;
	profile_add(p, &s);
	s.pid = s.tid = 20;
	s.frames = b;
	s.nframes = 1;
	s.count = 4;
	s.zone = "z";
	profile_add(p, &s);
	s.flags = PSAMPLE_HOST;
	s.nframes = 0;
	s.frames = NULL;
	s.count = 2;
	s.zone = NULL;
	profile_add(p, &s);
	s.pid = 30;
	s.count = 0;	/* a class with no count: no profile */
	profile_add(p, &s);

	n = profile_pids(p, &pids);
	CHECK("split: pids with samples, ascending", n == 2 && pids[0] == 10 && pids[1] == 20);
	free(pids);
	one = profile_of_pid(p, 20);
	CHECK("split: pid 20's samples only", one && one->total == 6 && one->nsamples == 2);
	CHECK("split: its own frames (only b)", one && profile_nframes(one) == 1 &&
	      !strcmp(profile_frame_at(one, 1)->name, "b"));
	CHECK("split: zone kept", one && one->samples[0].zone && !strcmp(one->samples[0].zone, "z"));
	CHECK_STR("split: comm kept", one ? profile_comm(one, 20) : NULL, "twenty");
	CHECK("split: time, duration, hz kept", one && one->start_ns == 5 && one->duration_ns == 7 &&
	      one->hz == 99);
	CHECK("split: stats count samples and host", one && one->stats.samples == 6 &&
	      one->stats.host == 2);
	profile_free(one);
	one = profile_of_pid(p, 10);
	CHECK("split: pid 10 keeps its stack order", one && one->total == 3 &&
	      one->samples[0].nframes == 2 && !strcmp(one->samples[0].frames[0]->name, "a") &&
	      !strcmp(one->samples[0].frames[1]->name, "b"));
	profile_free(one);
	profile_free(p);
}

/* -e cpu,off-cpu: a wall profile's halves, each its own profile type. */
static void test_halves(void)
{
	struct profile *p = profile_new(1000), *cpu, *off;
	struct frame_sym fa = { .kind = SYM_LUA, .name = "a", .chunk = "@t.lua", .firstline = 1, .line = 2 };
	const struct frame_sym *a[1];
	struct sample s = { .pid = 10, .tid = 10, .vmstate = -1, .count = 3000000, .events = 3 };
	struct push_meta m = { .type = PUSH_TYPE_OFFCPU, .service = "svc", .hz = 1000 };
	struct push_req req;

	p->event = PROFILE_WALL;
	a[0] = profile_frame(p, &fa);
	s.frames = a;
	s.nframes = 1;
	profile_add(p, &s);			/* 3 on-CPU samples of 1 ms */
	s.flags = PSAMPLE_OFFCPU;
	s.count = 50000000;
	s.events = 2;
	profile_add(p, &s);			/* 2 blocks, 50 ms */
	s.flags = PSAMPLE_OFFCPU | PSAMPLE_WAITING;
	s.count = 7000000;
	s.events = 1;
	profile_add(p, &s);			/* 1 wait for a CPU, 7 ms */
	cpu = profile_of_event(p, PROFILE_CPU);
	off = profile_of_event(p, PROFILE_OFFCPU);
	CHECK("halves: CPU counts samples", cpu && cpu->event == PROFILE_CPU && cpu->total == 3 &&
	      cpu->nsamples == 1 && cpu->stats.samples == 3);
	CHECK("halves: off-CPU keeps blocked and waiting nanoseconds", off &&
	      off->event == PROFILE_OFFCPU && off->total == 57000000 && off->nsamples == 2);
	CHECK("halves: only from a wall profile", !profile_of_event(cpu, PROFILE_CPU) &&
	      !profile_of_event(p, PROFILE_WALL));
	profile_free(cpu);
	profile_free(off);
	profile_free(p);
	CHECK("halves: /ingest names the off-CPU type",
	      !push_build(PUSH_API_INGEST, &m, "x", 1, &req) && strstr(req.path, "name=svc.off_cpu%7B"));
	push_req_free(&req);
	CHECK("halves: Parca's __name__ is off_cpu",
	      !push_build(PUSH_API_PARCA, &m, "x", 1, &req) &&
	      strstr(req.body, "{\"name\":\"__name__\",\"value\":\"off_cpu\"}"));
	push_req_free(&req);
	m.type = PUSH_TYPE_CPU;
	CHECK("halves: CPU stays process_cpu",
	      !push_build(PUSH_API_PUSH, &m, "x", 1, &req) && strstr(req.body, "\"process_cpu\""));
	push_req_free(&req);
}

int main(void)
{
	char cmd[200];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_base64();
	test_names_and_labels();
	test_secrets();
	test_requests();
	test_spool_memory();
	test_spool_disk();
	test_sink_files();
	test_split();
	test_halves();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("FAIL: cleanup of %s\n", tmpdir);
	UNIT_EXIT();
}
