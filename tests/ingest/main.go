// SPDX-License-Identifier: MIT
// ingest: a local stand-in for a profiling backend, for tests.  It
// implements the documented contract of three routes (docs/formats.md):
//
//	POST /ingest?name=SVC.cpu{k=v}&from&until&format=pprof&sampleRate  (Pyroscope;
//	     SVC.off_cpu and SVC.wall for off-CPU and wall profiles)
//	POST /push.v1.PusherService/Push                                    (Pyroscope Push, JSON)
//	POST /profiles/writeraw                                             (Parca, JSON)
//	POST /v1development/profiles                                        (OTLP profiles, protobuf)
//
// and parses every profile with the real pprof library
// (github.com/google/pprof/profile).  It answers 200, or 400 with the
// reason, and appends one line per profile to -log:
//
//	ok<TAB>route=...<TAB>service=...<TAB>type=...<TAB>labels=k=v,...<TAB>from=...<TAB>samples=N ...
//
// type is the profile's time sample type (cpu, off_cpu, wall, or
// inuse_space for a heap), which must agree with the name's suffix or
// __name__ (process_cpu, off_cpu, wall); hot= lists the functions with
// the most time anywhere on the stack.
//
//	reject<TAB>route=...<TAB>error=...
//
// It proves the contract, not acceptance by a real server.
//
// An OTLP body (Content-Type application/x-protobuf) must decode with
// protoc as an ExportProfilesServiceRequest against the schema in
// -otlp-proto (tests/otlp, the one the project keeps); it is kept in
// -otlp-dir as NNNN.otlp for the test to compare with the pprof files of
// the same intervals (tests/otlp_check.py), and recorded as
//
//	ok<TAB>route=v1development/profiles<TAB>file=...<TAB>bytes=N<TAB>tenant=...<TAB>auth=...
//
// With -check it decodes pprof files instead (for --out-dir).
//
// Build offline, in GOPATH mode, with Debian's golang-github-google-pprof-dev:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o ingest ./tests/ingest
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/pprof/profile"
)

var (
	addr      = flag.String("addr", "127.0.0.1:4040", "listen address")
	logPath   = flag.String("log", "ingest.log", "record file (appended)")
	maxBody   = flag.Int64("max-body", 8<<20, "largest body accepted, bytes")
	reject    = flag.Bool("reject", false, "answer 400 to every request (a backend that refuses)")
	otlpProto = flag.String("otlp-proto", "", "directory of the OTLP schema (tests/otlp: profiles.proto)")
	otlpDir   = flag.String("otlp-dir", "", "keep each OTLP body here")
	otlpSeq   int
	check     = flag.Bool("check", false, "decode the gzip pprof files given as arguments, print their records and exit (1 if one is invalid)")

	logMu   sync.Mutex
	logFile *os.File
)

type label struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// One decoded profile and what came with it.
type record struct {
	route, service, tenant, auth, id string
	labels                           map[string]string
	from, until, rate                string
	p                                *profile.Profile
}

func write(line string) {
	logMu.Lock()
	defer logMu.Unlock()
	fmt.Fprintln(logFile, line)
	logFile.Sync()
}

// decode accepts only what the routes promise: gzip, then a pprof message
// that the library validates.
func decode(raw []byte) (*profile.Profile, error) {
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		return nil, errors.New("profile is not gzip-compressed")
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("gzip: %v", err)
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("pprof: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: %v", err)
	}
	// A heap profile (--continuous --heap): objects and bytes in use.
	if len(p.SampleType) == 2 && p.SampleType[0].Type == "inuse_objects" &&
		p.SampleType[0].Unit == "count" && p.SampleType[1].Type == "inuse_space" &&
		p.SampleType[1].Unit == "bytes" {
		return p, nil
	}
	if len(p.SampleType) != 2 || p.SampleType[0].Type != "samples" || p.SampleType[0].Unit != "count" {
		return nil, errors.New("pprof: sample types are not samples/count then a time (nor a heap profile's inuse_objects/count)")
	}
	// CPU, off-CPU or wall time: the second type, in nanoseconds, is
	// also the period type.
	t := p.SampleType[1]
	if (t.Type != "cpu" && t.Type != "off_cpu" && t.Type != "wall") || t.Unit != "nanoseconds" {
		return nil, fmt.Errorf("pprof: second sample type %s/%s is not cpu, off_cpu or wall in nanoseconds", t.Type, t.Unit)
	}
	if p.PeriodType == nil || p.PeriodType.Type != t.Type || p.PeriodType.Unit != "nanoseconds" {
		return nil, fmt.Errorf("pprof: period type is not %s/nanoseconds", t.Type)
	}
	return p, nil
}

// profileType is the sample type a backend files the profile under.
func profileType(p *profile.Profile) string {
	return p.SampleType[len(p.SampleType)-1].Type
}

// checkType: the name's type (Pyroscope's /ingest suffix, or __name__)
// must be the profile's own, so that no backend adds blocked time to CPU
// time.
func checkType(named string, p *profile.Profile) error {
	want := map[string]string{"cpu": "cpu", "process_cpu": "cpu", "off_cpu": "off_cpu",
		"wall": "wall"}[named]
	if t := profileType(p); t == "inuse_space" || t == want {
		return nil
	}
	return fmt.Errorf("profile type %q named %q", profileType(p), named)
}

// hot: the sixteen functions with the most time (the last value) on any
// frame of the stack, each counted once per sample.
func hot(p *profile.Profile) string {
	incl := map[string]int64{}
	for _, s := range p.Sample {
		seen := map[string]bool{}
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil || seen[ln.Function.Name] {
					continue
				}
				seen[ln.Function.Name] = true
				incl[ln.Function.Name] += s.Value[len(s.Value)-1]
			}
		}
	}
	var names []string
	for n := range incl {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if incl[names[i]] != incl[names[j]] {
			return incl[names[i]] > incl[names[j]]
		}
		return names[i] < names[j]
	})
	var out []string
	for i, n := range names {
		if i == 16 {
			break
		}
		out = append(out, fmt.Sprintf("%s:%d", strings.ReplaceAll(n, " ", "_"), incl[n]))
	}
	return strings.Join(out, ";")
}

// summary is the record line: labels sorted, totals, pids, top leaves.
func summary(r *record) string {
	var keys []string
	for k := range r.labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv []string
	for _, k := range keys {
		kv = append(kv, k+"="+r.labels[k])
	}
	var samples, cpu int64
	pids := map[string]bool{}
	leaf := map[string]int64{}
	for _, s := range r.p.Sample {
		samples += s.Value[0]
		if len(s.Value) > 1 {
			cpu += s.Value[1]
		}
		for _, n := range s.NumLabel["pid"] {
			pids[strconv.FormatInt(n, 10)] = true
		}
		name := "?"
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function != nil {
			name = s.Location[0].Line[0].Function.Name
		}
		leaf[name] += s.Value[0]
	}
	var pidList []string
	for p := range pids {
		pidList = append(pidList, p)
	}
	sort.Strings(pidList)
	var names []string
	for n := range leaf {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if leaf[names[i]] != leaf[names[j]] {
			return leaf[names[i]] > leaf[names[j]]
		}
		return names[i] < names[j]
	})
	var top []string
	for i, n := range names {
		if i == 5 {
			break
		}
		// One word each: frames like "[Garbage Collector]" have spaces,
		// and the tests read records as space-separated fields.
		top = append(top, fmt.Sprintf("%s:%d", strings.ReplaceAll(n, " ", "_"), leaf[n]))
	}
	return strings.Join([]string{"ok",
		"route=" + r.route,
		"service=" + r.service,
		"type=" + profileType(r.p),
		"labels=" + strings.Join(kv, ","),
		"from=" + r.from,
		"until=" + r.until,
		"rate=" + r.rate,
		fmt.Sprintf("period=%d", r.p.Period),
		fmt.Sprintf("time=%d", r.p.TimeNanos),
		fmt.Sprintf("duration=%d", r.p.DurationNanos),
		fmt.Sprintf("samples=%d", samples),
		fmt.Sprintf("cpu=%d", cpu),
		"pids=" + strings.Join(pidList, ","),
		"tenant=" + r.tenant,
		"auth=" + r.auth,
		"id=" + r.id,
		"top=" + strings.Join(top, ";"),
		"hot=" + hot(r.p),
	}, "\t")
}

// parseName splits "SVC.cpu{k=v,k2=v2}" (or SVC.off_cpu, SVC.wall) into
// the service, labels and type.
func parseName(name string) (string, map[string]string, string, error) {
	labels := map[string]string{}
	app := name
	if i := strings.IndexByte(name, '{'); i >= 0 {
		if !strings.HasSuffix(name, "}") {
			return "", nil, "", errors.New("name: unterminated {")
		}
		app = name[:i]
		inner := name[i+1 : len(name)-1]
		if inner != "" {
			for _, kv := range strings.Split(inner, ",") {
				eq := strings.IndexByte(kv, '=')
				if eq <= 0 || eq == len(kv)-1 {
					return "", nil, "", fmt.Errorf("name: bad label %q", kv)
				}
				labels[kv[:eq]] = kv[eq+1:]
			}
		}
	}
	dot := strings.LastIndexByte(app, '.')
	if dot <= 0 || (app[dot+1:] != "cpu" && app[dot+1:] != "off_cpu" && app[dot+1:] != "wall") {
		return "", nil, "", fmt.Errorf("name %q: the profile type after the last '.' must be cpu, off_cpu or wall", app)
	}
	return app[:dot], labels, app[dot+1:], nil
}

func handleIngest(w http.ResponseWriter, req *http.Request, body []byte, r *record) error {
	q := req.URL.Query()
	if q.Get("format") != "pprof" {
		return fmt.Errorf("format=%q, want pprof", q.Get("format"))
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/octet-stream" {
		return fmt.Errorf("Content-Type %q, want application/octet-stream", ct)
	}
	svc, labels, typ, err := parseName(q.Get("name"))
	if err != nil {
		return err
	}
	from, err1 := strconv.ParseInt(q.Get("from"), 10, 64)
	until, err2 := strconv.ParseInt(q.Get("until"), 10, 64)
	if err1 != nil || err2 != nil || from <= 0 || until < from {
		return fmt.Errorf("bad from/until %q/%q", q.Get("from"), q.Get("until"))
	}
	rate, err := strconv.ParseInt(q.Get("sampleRate"), 10, 64)
	if err != nil || rate <= 0 {
		return fmt.Errorf("bad sampleRate %q", q.Get("sampleRate"))
	}
	p, err := decode(body)
	if err != nil {
		return err
	}
	if err := checkType(typ, p); err != nil {
		return err
	}
	// The server scales counts by sampleRate: it must be the real rate.
	if p.Period != 1000000000/rate {
		return fmt.Errorf("sampleRate %d does not match the profile's period %d ns", rate, p.Period)
	}
	r.service, r.labels, r.p = svc, labels, p
	r.from, r.until, r.rate = q.Get("from"), q.Get("until"), q.Get("sampleRate")
	write(summary(r))
	return nil
}

func labelMap(ls []label) (map[string]string, error) {
	m := map[string]string{}
	for _, l := range ls {
		if l.Name == "" {
			return nil, errors.New("label with an empty name")
		}
		m[l.Name] = l.Value
	}
	if m["__name__"] == "" || m["service_name"] == "" {
		return nil, errors.New("labels __name__ and service_name are required")
	}
	return m, nil
}

func handlePush(w http.ResponseWriter, req *http.Request, body []byte, r *record) error {
	var msg struct {
		Series []struct {
			Labels  []label `json:"labels"`
			Samples []struct {
				ID         string `json:"ID"`
				RawProfile []byte `json:"rawProfile"`
			} `json:"samples"`
		} `json:"series"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return fmt.Errorf("json: %v", err)
	}
	if len(msg.Series) == 0 {
		return errors.New("no series")
	}
	var out []record
	for _, s := range msg.Series {
		m, err := labelMap(s.Labels)
		if err != nil {
			return err
		}
		for _, smp := range s.Samples {
			p, err := decode(smp.RawProfile)
			if err != nil {
				return err
			}
			if err := checkType(m["__name__"], p); err != nil {
				return err
			}
			rr := *r
			rr.service, rr.labels, rr.p, rr.id = m["service_name"], m, p, smp.ID
			out = append(out, rr)
		}
	}
	for i := range out {
		write(summary(&out[i]))
	}
	return nil
}

func handleParca(w http.ResponseWriter, req *http.Request, body []byte, r *record) error {
	var msg struct {
		Series []struct {
			Labels struct {
				Labels []label `json:"labels"`
			} `json:"labels"`
			Samples []struct {
				RawProfile []byte `json:"rawProfile"`
			} `json:"samples"`
		} `json:"series"`
		Normalized bool `json:"normalized"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return fmt.Errorf("json: %v", err)
	}
	if len(msg.Series) == 0 {
		return errors.New("no series")
	}
	var out []record
	for _, s := range msg.Series {
		m, err := labelMap(s.Labels.Labels)
		if err != nil {
			return err
		}
		for _, smp := range s.Samples {
			p, err := decode(smp.RawProfile)
			if err != nil {
				return err
			}
			if err := checkType(m["__name__"], p); err != nil {
				return err
			}
			rr := *r
			rr.service, rr.labels, rr.p = m["service_name"], m, p
			out = append(out, rr)
		}
	}
	for i := range out {
		write(summary(&out[i]))
	}
	return nil
}

const otlpMessage = "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest"
const otlpFile = "profiles.proto"

// handleOTLP checks an OTLP profiles request with protoc and keeps it.
func handleOTLP(w http.ResponseWriter, req *http.Request, body []byte, r *record) error {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		return fmt.Errorf("Content-Type %q, want application/x-protobuf", ct)
	}
	if *otlpProto == "" || *otlpDir == "" {
		return errors.New("started without -otlp-proto and -otlp-dir")
	}
	cmd := exec.Command("protoc", "-I", *otlpProto, "--decode="+otlpMessage, otlpFile)
	cmd.Stdin = bytes.NewReader(body)
	var text, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &text, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc --decode: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if !strings.Contains(text.String(), "resource_profiles") {
		return errors.New("no resource_profiles")
	}
	logMu.Lock()
	otlpSeq++
	path := filepath.Join(*otlpDir, fmt.Sprintf("%04d.otlp", otlpSeq))
	logMu.Unlock()
	if err := os.WriteFile(path, body, 0644); err != nil {
		return err
	}
	write(strings.Join([]string{"ok", "route=" + r.route, "file=" + path,
		fmt.Sprintf("bytes=%d", len(body)), "tenant=" + r.tenant, "auth=" + r.auth}, "\t"))
	return nil
}

// checkFiles prints a record per file ("route=file"), like a POST would.
func checkFiles(paths []string) int {
	rc := 0
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err == nil {
			var p *profile.Profile
			if p, err = decode(raw); err == nil {
				fmt.Println(summary(&record{route: "file", service: path, p: p}))
				continue
			}
		}
		fmt.Printf("reject\troute=file\tfile=%s\terror=%v\n", path, err)
		rc = 1
	}
	return rc
}

func main() {
	flag.Parse()
	if *check {
		os.Exit(checkFiles(flag.Args()))
	}
	var err error
	logFile, err = os.OpenFile(*logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0644)
	if err != nil {
		log.Fatal(err)
	}
	routes := map[string]func(http.ResponseWriter, *http.Request, []byte, *record) error{
		"/ingest":                     handleIngest,
		"/push.v1.PusherService/Push": handlePush,
		"/profiles/writeraw":          handleParca,
		"/v1development/profiles":     handleOTLP,
	}
	http.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		h, ok := routes[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		r := &record{route: strings.TrimPrefix(req.URL.Path, "/"),
			tenant: req.Header.Get("X-Scope-OrgID"), auth: req.Header.Get("Authorization")}
		fail := func(code int, err error) {
			write(fmt.Sprintf("reject\troute=%s\terror=%v", r.route, err))
			http.Error(w, err.Error(), code)
		}
		if req.Method != http.MethodPost {
			fail(http.StatusMethodNotAllowed, errors.New("POST only"))
			return
		}
		body, err := io.ReadAll(io.LimitReader(req.Body, *maxBody+1))
		if err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		if int64(len(body)) > *maxBody {
			fail(http.StatusRequestEntityTooLarge, errors.New("body too large"))
			return
		}
		if *reject {
			fail(http.StatusBadRequest, errors.New("refusing everything (-reject)"))
			return
		}
		if err := h(w, req, body, r); err != nil {
			fail(http.StatusBadRequest, err)
			return
		}
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "{}")
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening on", ln.Addr())
	log.Fatal(http.Serve(ln, nil))
}
