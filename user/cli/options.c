/* Option parsing with getopt_long; every bad value is one line on stderr. */
#include "cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

#define MAX_HZ		100000
#define MAX_SECONDS	(365.0 * 24 * 3600)

enum {
	OPT_JP = 256, OPT_LUA_ONLY, OPT_VMSTATE_DETAIL, OPT_TREE, OPT_TREE_DEPTH, OPT_FOCUS,
	OPT_MAX_STACKS, OPT_MAX_COUNTS, OPT_MAX_FRAMES, OPT_VMSTATE_FRAMES, OPT_ZONE_FRAMES,
	OPT_ICICLE, OPT_PER_THREAD, OPT_CONTINUOUS, OPT_EVERY, OPT_OUT_DIR, OPT_RETAIN_COUNT, OPT_RETAIN_SIZE,
	OPT_PUSH, OPT_PUSH_API, OPT_SERVICE, OPT_LABEL, OPT_TENANT, OPT_AUTH_TOKEN_FILE,
	OPT_BASIC_AUTH_FILE, OPT_SPOOL_DIR, OPT_SPOOL_SIZE, OPT_LOG_FILE,
	OPT_PER_PROCESS,
};

static const struct option long_options[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "jp", required_argument, NULL, OPT_JP },
	{ "lua-only", no_argument, NULL, OPT_LUA_ONLY },
	{ "vmstate-detail", no_argument, NULL, OPT_VMSTATE_DETAIL },
	{ "vmstate-frames", no_argument, NULL, OPT_VMSTATE_FRAMES },
	{ "zone-frames", no_argument, NULL, OPT_ZONE_FRAMES },
	{ "icicle", no_argument, NULL, OPT_ICICLE },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "per-process", no_argument, NULL, OPT_PER_PROCESS },
	{ "tree", optional_argument, NULL, OPT_TREE },
	{ "tree-depth", required_argument, NULL, OPT_TREE_DEPTH },
	{ "focus", required_argument, NULL, OPT_FOCUS },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "max-counts", required_argument, NULL, OPT_MAX_COUNTS },
	{ "max-frames", required_argument, NULL, OPT_MAX_FRAMES },
	{ "all", no_argument, NULL, 'a' },
	{ "continuous", no_argument, NULL, OPT_CONTINUOUS },
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "out-dir", required_argument, NULL, OPT_OUT_DIR },
	{ "retain-count", required_argument, NULL, OPT_RETAIN_COUNT },
	{ "retain-size", required_argument, NULL, OPT_RETAIN_SIZE },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "push-api", required_argument, NULL, OPT_PUSH_API },
	{ "service", required_argument, NULL, OPT_SERVICE },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "tenant", required_argument, NULL, OPT_TENANT },
	{ "auth-token-file", required_argument, NULL, OPT_AUTH_TOKEN_FILE },
	{ "basic-auth-file", required_argument, NULL, OPT_BASIC_AUTH_FILE },
	{ "spool-dir", required_argument, NULL, OPT_SPOOL_DIR },
	{ "spool-size", required_argument, NULL, OPT_SPOOL_SIZE },
	{ "log-file", required_argument, NULL, OPT_LOG_FILE },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("Usage: luabpfprof [OPTIONS] -p PID[,PID...]\n"
	      "       luabpfprof [OPTIONS] -- COMMAND [ARGS...]\n"
	      "\n"
	      "Samples running LuaJIT processes from BPF, with no restart, code change or\n"
	      "debug symbols, and prints where the CPU goes in Lua terms.\n"
	      "\n"
	      "  -p, --pid PID[,PID]   profile these processes (repeatable)\n"
	      "  -d, --duration SEC    stop after SEC seconds (default: Ctrl-C, SIGTERM or exit)\n"
	      "  -F, --frequency HZ    samples per second per CPU (default 99)\n"
	      "  -o, --output FILE     write the report to FILE (default stdout)\n"
	      "  -f, --format FMT      text, folded, svg, pprof or speedscope\n"
	      "                        (default: from -o's extension, else text)\n"
	      "      --jp MODE         luajit -jp view letters: f F l p N -N s v z r m<N> a A G i<ms>\n"
	      "                        (default: f, depth 1, m3)\n"
	      "      --vmstate-detail  with v: split J into exit/record/optimize/assemble and N by trace\n"
	      "      --tree[=self]     call tree with inclusive (or self) shares\n"
	      "      --tree-depth N    limit the tree to N levels\n"
	      "      --focus NAME      keep only stacks through function NAME\n"
	      "      --lua-only        drop samples where the thread ran no Lua ([host])\n"
	      "      --per-thread      one report section per thread (pprof always has a tid label)\n"
	      "      --per-process     one section (flame graph root) per process; by default a\n"
	      "                        program's processes (its forks running the same executable,\n"
	      "                        as nginx's workers) merge; pprof always has a pid label\n"
	      "      --vmstate-frames  folded/svg: add the VM state as a leaf frame\n"
	      "      --zone-frames     folded/svg: add the jit.zone as a frame\n"
	      "      --icicle          svg: draw the root at the top\n"
	      "      --max-stacks N    BPF stack map entries (default 4096)\n"
	      "      --max-counts N    BPF count map entries (default 16384)\n"
	      "      --max-frames N    Lua frames walked per sample (default and max 256)\n"
	      "  -a, --all             every LuaJIT process on the host, including new ones\n"
	      "\n"
	      "Continuous mode (a node agent):\n"
	      "      --continuous      profile until stopped, one delta profile per interval\n"
	      "      --every SEC       interval length (default 10; also 10s, 1m)\n"
	      "      --out-dir DIR     rolling gzip pprof files (default sink)\n"
	      "      --retain-count N  keep at most N files in --out-dir (default 100)\n"
	      "      --retain-size SZ  keep at most SZ bytes in --out-dir (e.g. 100M)\n"
	      "      --push URL        send each interval to Pyroscope or Parca at URL\n"
	      "      --push-api API    ingest (Pyroscope /ingest, default), push (Pyroscope\n"
	      "                        Push API) or parca (/profiles/writeraw)\n"
	      "      --service NAME    service name (default: the process name)\n"
	      "      --label K=V       extra label on every profile (repeatable)\n"
	      "      --tenant ID       X-Scope-OrgID header\n"
	      "      --auth-token-file F    bearer token, read from F\n"
	      "      --basic-auth-file F    user:password, read from F\n"
	      "      --spool-dir DIR   keep undelivered profiles here while the backend is down\n"
	      "      --spool-size SZ   spool limit (default 64M); beyond it drops are counted\n"
	      "      --log-file F      log to F instead of stderr\n"
	      "\n"
	      "  -v, --verbose         explain discovery and show libbpf's messages\n"
	      "  -h, --help            this help\n"
	      "\n"
	      "Examples:\n"
	      "  sudo luabpfprof -p 1234 -d 5                 top Lua functions, like luajit -jp\n"
	      "  sudo luabpfprof -p 1234 -d 5 --jp Fl         chunk:function, then hot lines\n"
	      "  sudo luabpfprof -p 1234 -d 10 --jp v         VM states: compiled, interpreted, C, GC, JIT\n"
	      "  sudo luabpfprof -p 1234 -d 10 -o prof.svg    interactive flame graph\n"
	      "  sudo luabpfprof -p 1234 -d 10 -o prof.pb.gz  pprof, for go tool pprof\n"
	      "  sudo luabpfprof --tree -- luajit app.lua     launch and profile until it exits\n"
	      "  sudo luabpfprof -a --continuous --every 10s --push http://pyroscope:4040\n",
	      f);
}

int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')	/* no sign, no white space */
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	/* Decimal only: no sign, white space, hex, inf or nan. */
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.') ||
	    strspn(s, "0123456789.eE+-") != strlen(s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > MAX_SECONDS)
		return -1;
	*out = v;
	return 0;
}

/* "10", "10s", "2m", "1h" -> seconds. */
static int parse_interval(const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);
	double mult = 1;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == 's' || buf[n - 1] == 'm' || buf[n - 1] == 'h') {
		mult = buf[n - 1] == 'h' ? 3600 : buf[n - 1] == 'm' ? 60 : 1;
		buf[n - 1] = '\0';
	}
	if (parse_seconds(buf, out) || *out * mult > MAX_SECONDS)
		return -1;
	*out *= mult;
	return 0;
}

/* "4096", "64K", "100M", "1G" -> bytes. */
static int parse_size(const char *s, unsigned long long *out)
{
	char buf[64];
	size_t n = strlen(s);
	unsigned long long mult = 1, v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'K': case 'k': mult = 1ull << 10; break;
	case 'M': case 'm': mult = 1ull << 20; break;
	case 'G': case 'g': mult = 1ull << 30; break;
	default: break;
	}
	if (mult > 1)
		buf[n - 1] = '\0';
	if (parse_uint(buf, 1, (1ull << 50) / mult, &v))
		return -1;
	*out = v * mult;
	return 0;
}

static int add_pids(struct options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int err = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long pid;

		if (parse_uint(tok, 1, 4194304, &pid)) {
			log_error("invalid PID '%s': expected a positive process id", tok);
			err = -1;
		} else if (o->npids == MAX_PIDS) {
			log_error("too many PIDs (at most %d)", MAX_PIDS);
			err = -1;
		} else {
			o->pids[o->npids++] = (pid_t)pid;
		}
	}
	if (!err && (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,"))) {
		log_error("invalid PID list '%s'", arg);
		err = -1;
	}
	free(copy);
	return err;
}

static int size_option(const char *name, const char *arg, unsigned long long min,
		       unsigned long long max, uint32_t *out)
{
	unsigned long long v;

	if (parse_uint(arg, min, max, &v)) {
		log_error("invalid %s '%s': expected a whole number from %llu to %llu", name, arg,
			  min, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

enum options_result options_parse(int argc, char **argv, struct options *o)
{
	unsigned long long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->hz = 99;
	o->jp = "";
	o->max_stacks = 4096;
	o->max_counts = 16384;
	o->max_frames = 256;
	o->every = 10;
	o->retain_count = 100;
	o->push_api = "ingest";
	o->spool_bytes = 64ull << 20;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:F:o:f:vha", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (add_pids(o, optarg))
				return OPTIONS_ERROR;
			break;
		case 'd':
			if (parse_seconds(optarg, &o->duration)) {
				log_error("invalid duration '%s': expected seconds > 0", optarg);
				return OPTIONS_ERROR;
			}
			break;
		case 'F':
			if (parse_uint(optarg, 1, MAX_HZ, &v)) {
				log_error("invalid frequency '%s': expected 1 to %d Hz", optarg, MAX_HZ);
				return OPTIONS_ERROR;
			}
			o->hz = (unsigned)v;
			o->hz_given = true;
			break;
		case 'o':
			if (!*optarg) {
				log_error("empty output file name");
				return OPTIONS_ERROR;
			}
			o->output = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return OPTIONS_EXIT_OK;
		case OPT_JP:
			o->jp = optarg;
			break;
		case OPT_LUA_ONLY:
			o->lua_only = true;
			break;
		case OPT_VMSTATE_DETAIL:
			o->vmstate_detail = true;
			break;
		case OPT_VMSTATE_FRAMES:
			o->vmstate_frames = true;
			break;
		case OPT_ZONE_FRAMES:
			o->zone_frames = true;
			break;
		case OPT_ICICLE:
			o->icicle = true;
			break;
		case OPT_PER_PROCESS:
			o->per_process = true;
			break;
		case OPT_PER_THREAD:
			o->per_thread = true;
			break;
		case OPT_TREE:
			o->tree = optarg ? optarg : "";
			break;
		case OPT_TREE_DEPTH:
			if (parse_uint(optarg, 1, 1000, &v)) {
				log_error("invalid --tree-depth '%s': expected 1 to 1000", optarg);
				return OPTIONS_ERROR;
			}
			o->tree_depth = (int)v;
			break;
		case OPT_FOCUS:
			if (!*optarg) {
				log_error("empty --focus name");
				return OPTIONS_ERROR;
			}
			o->focus = optarg;
			break;
		case OPT_MAX_STACKS:
			if (size_option("--max-stacks", optarg, 2, 1 << 20, &o->max_stacks))
				return OPTIONS_ERROR;
			break;
		case OPT_MAX_COUNTS:
			if (size_option("--max-counts", optarg, 2, 1 << 22, &o->max_counts))
				return OPTIONS_ERROR;
			break;
		case OPT_MAX_FRAMES:
			if (size_option("--max-frames", optarg, 1, 256, &o->max_frames))
				return OPTIONS_ERROR;
			break;
		case 'a':
			o->all = true;
			break;
		case OPT_CONTINUOUS:
			o->continuous = true;
			break;
		case OPT_EVERY:
			if (parse_interval(optarg, &o->every) || o->every < 1) {
				log_error("invalid --every '%s': expected an interval of at least 1s (10, 10s, 1m)", optarg);
				return OPTIONS_ERROR;
			}
			break;
		case OPT_OUT_DIR:
			o->out_dir = optarg;
			break;
		case OPT_RETAIN_COUNT:
			if (parse_uint(optarg, 1, 1000000, &v)) {
				log_error("invalid --retain-count '%s': expected 1 to 1000000", optarg);
				return OPTIONS_ERROR;
			}
			o->retain_count = (unsigned)v;
			break;
		case OPT_RETAIN_SIZE:
			if (parse_size(optarg, &o->retain_bytes)) {
				log_error("invalid --retain-size '%s': expected a size such as 100M", optarg);
				return OPTIONS_ERROR;
			}
			break;
		case OPT_PUSH:
			o->push_url = optarg;
			break;
		case OPT_PUSH_API:
			if (strcmp(optarg, "ingest") && strcmp(optarg, "push") && strcmp(optarg, "parca")) {
				log_error("invalid --push-api '%s': use ingest, push or parca", optarg);
				return OPTIONS_ERROR;
			}
			o->push_api = optarg;
			break;
		case OPT_SERVICE:
			o->service = optarg;
			break;
		case OPT_LABEL:
			if (!strchr(optarg, '=') || *optarg == '=' || o->nlabels == 32) {
				log_error("invalid --label '%s': expected KEY=VALUE (at most 32)", optarg);
				return OPTIONS_ERROR;
			}
			o->labels[o->nlabels++] = optarg;
			break;
		case OPT_TENANT:
			o->tenant = optarg;
			break;
		case OPT_AUTH_TOKEN_FILE:
			o->auth_token_file = optarg;
			break;
		case OPT_BASIC_AUTH_FILE:
			o->basic_auth_file = optarg;
			break;
		case OPT_SPOOL_DIR:
			o->spool_dir = optarg;
			break;
		case OPT_SPOOL_SIZE:
			if (parse_size(optarg, &o->spool_bytes)) {
				log_error("invalid --spool-size '%s': expected a size such as 64M", optarg);
				return OPTIONS_ERROR;
			}
			break;
		case OPT_LOG_FILE:
			o->log_file = optarg;
			break;
		case ':':
			log_error("option %s needs a value (see -h)", argv[optind - 1]);
			return OPTIONS_ERROR;
		default:
			if (optopt && optopt < 256)
				log_error("unknown option '-%c' (see -h)", optopt);
			else
				log_error("unknown option '%s' (see -h)", argv[optind - 1]);
			return OPTIONS_ERROR;
		}
	}
	if (optind < argc) {
		/* getopt stops at "--" (consumed) or at the first operand. */
		if (strcmp(argv[optind - 1], "--")) {
			log_error("unexpected argument '%s' (a command goes after --)", argv[optind]);
			return OPTIONS_ERROR;
		}
		o->command = &argv[optind];
	}
	if (!o->npids && !o->command && !o->all) {
		log_error("nothing to profile: give -p PID, -a or -- COMMAND (see -h)");
		return OPTIONS_ERROR;
	}
	if ((o->npids > 0) + (o->command != NULL) + o->all > 1) {
		log_error("give only one of -p, -a and -- COMMAND");
		return OPTIONS_ERROR;
	}
	if (!o->continuous && (o->push_url || o->out_dir)) {
		log_error("--push and --out-dir need --continuous");
		return OPTIONS_ERROR;
	}
	if (o->continuous && !o->push_url && !o->out_dir) {
		log_error("--continuous needs a sink: --out-dir DIR (rolling pprof files) or --push URL");
		return OPTIONS_ERROR;
	}
	return OPTIONS_OK;
}
