// SPDX-License-Identifier: MIT
// Decodes the pprof files with two independent readers, npm pprof-format
// and Go's own `go tool pprof`, and compares them with the truth.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { Profile } = require('pprof-format');
const T = require('./truth');
const { check, sameMap, fail, done } = require('./lib');

const dir = process.argv[2];

function decode(file) {
	const gz = fs.readFileSync(file);
	check(`${path.basename(file)}: gzip magic`, gz[0] === 0x1f && gz[1] === 0x8b);
	return Profile.decode(zlib.gunzipSync(gz));
}

// Structure, with pprof-format: every rule formats.md lists.
function checkStructure(p, name, nsamples) {
	const str = (i) => p.stringTable.strings[Number(i)];
	const byId = (list) => new Map(list.map((x) => [Number(x.id), x]));
	const locs = byId(p.location), funcs = byId(p.function), maps = byId(p.mapping);

	check(`${name}: string_table[0] is ""`, str(0) === '');
	check(`${name}: sample types samples/count, cpu/nanoseconds`,
		p.sampleType.map((v) => `${str(v.type)}/${str(v.unit)}`).join(',') ===
		'samples/count,cpu/nanoseconds');
	check(`${name}: period type cpu/nanoseconds`,
		`${str(p.periodType.type)}/${str(p.periodType.unit)}` === 'cpu/nanoseconds');
	check(`${name}: sample count`, p.sample.length === nsamples, p.sample.length);
	check(`${name}: values are [n, n * period]`, p.sample.every((s) => s.value.length === 2 &&
		Number(s.value[1]) === Number(s.value[0]) * Number(p.period)));
	check(`${name}: every location resolves`, p.sample.every((s) =>
		s.locationId.every((id) => locs.has(Number(id)))));
	check(`${name}: every function resolves`, p.location.every((l) =>
		l.line.length === 1 && funcs.has(Number(l.line[0].functionId))));
	check(`${name}: every mapping resolves and needs no symbols`, p.location.every((l) =>
		maps.has(Number(l.mappingId))) && p.mapping.every((m) => m.hasFunctions &&
		m.hasFilenames && m.hasLineNumbers));
	const keys = p.function.map((f) => `${str(f.name)}\0${str(f.filename)}\0${f.startLine}`);
	check(`${name}: one function per (name, file, start line)`,
		new Set(keys).size === keys.length);
	const lkeys = p.location.map((l) => `${l.line[0].functionId}:${l.line[0].line}`);
	check(`${name}: one location per (function, line)`, new Set(lkeys).size === lkeys.length);
	return { str, locs, funcs };
}

function checkProfile() {
	const p = decode(path.join(dir, 'profile.pb.gz'));
	const { str, locs, funcs } = checkStructure(p, 'profile.pb.gz', T.samples.length);
	check('period is 1e9 / hz', Number(p.period) === T.period, p.period);
	check('time_nanos', BigInt(p.timeNanos) === 1700000000123456789n, p.timeNanos);
	check('duration_nanos', Number(p.durationNanos) === 2.5e9, p.durationNanos);

	const got = new Map(), labels = new Map();
	for (const s of p.sample) {
		const names = s.locationId.map((id) =>
			str(funcs.get(Number(locs.get(Number(id)).line[0].functionId)).name));
		const key = JSON.stringify(names.reverse());
		got.set(key, (got.get(key) || 0) + Number(s.value[0]));
		const l = {};
		for (const lab of s.label)
			l[str(lab.key)] = Number(lab.str) ? str(lab.str) : Number(lab.num);
		labels.set(`${key} ${l.tid} ${l.vmstate}`, l);
	}
	sameMap('pprof-format: stacks and counts equal the truth', got,
		T.expectedStacks({}, T.textKey));

	const bad = [];
	for (const s of T.samples) {
		const key = `${T.textKey(T.exportStack(s, {}))} ${s.tid} ${s.vm}`;
		const l = labels.get(key);
		const want = { pid: s.pid, tid: s.tid, comm: T.comm[s.pid], vmstate: s.vm,
			zone: s.zone, trace: s.trace, trace_start: s.traceStart };
		if (!l) { bad.push(`no sample ${key}`); continue; }
		for (const k of Object.keys(want))
			if (l[k] !== want[k]) bad.push(`${key} ${k}: ${l[k]} != ${want[k]}`);
	}
	check('pprof-format: labels pid, tid, comm, vmstate, zone, trace', !bad.length,
		bad.slice(0, 3).join('; '));

	const work = p.function.find((f) => str(f.name) === 'main.lua:work');
	check('function has the chunk path and first line', work &&
		str(work.filename) === '/srv/app/main.lua' && Number(work.startLine) === 2);
	const lines = p.location.filter((l) => l.line[0].functionId === work.id)
		.map((l) => Number(l.line[0].line)).sort();
	check('work has one location per current line', lines.join(',') === '5,7', lines);
}

// Go's pprof: the reader Pyroscope and Parca share.
function pprof(args) {
	return execFileSync('go', ['tool', 'pprof', ...args], { encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'] });
}

function parseTraces(out) {
	const got = new Map();
	for (const block of out.split(/^-+\+-+$/m).slice(1)) {
		const frames = [];
		let count = null;
		for (const line of block.split('\n')) {
			const m = /^\s+(\d+)   (.*)$/.exec(line);
			if (m && count === null) { count = Number(m[1]); frames.push(m[2]); }
			else if (count !== null && /^ {13}\S/.test(line)) frames.push(line.slice(13));
		}
		if (count === null) continue;
		const key = JSON.stringify(frames.reverse());
		got.set(key, (got.get(key) || 0) + count);
	}
	return got;
}

function parseTop(out) {
	const flat = new Map(), cum = new Map();
	for (const line of out.split('\n')) {
		const m = /^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%  (.*)$/.exec(line);
		if (!m) continue;
		flat.set(m[3], Number(m[1]));
		cum.set(m[3], Number(m[2]));
	}
	return { flat, cum };
}

function checkGo() {
	const file = path.join(dir, 'profile.pb.gz');
	try {
		const raw = pprof(['-raw', file]);
		check('go pprof -raw: period type and period',
			/^PeriodType: cpu nanoseconds$/m.test(raw) && /^Period: 10000000$/m.test(raw));
		check('go pprof -raw: sample types', /^samples\/count cpu\/nanoseconds$/m.test(raw));
		check('go pprof -raw: labels', /comm:\[app;v2 7\]/.test(raw) &&
			/trace:\[7\]/.test(raw) && /zone:\[parse\]/.test(raw));

		sameMap('go pprof -traces: stacks and counts equal the truth',
			parseTraces(pprof(['-traces', '-sample_index=samples', file])),
			T.expectedStacks({}, T.textKey));

		const top = parseTop(pprof(['-top', '-sample_index=samples', '-nodecount=1000', file]));
		const want = T.flatCum({});
		const keyed = (m) => new Map([...m].map(([k, v]) => [JSON.stringify([k]), v]));
		sameMap('go pprof -top: flat samples per function', keyed(top.flat),
			keyed(new Map([...want.cum.keys()].map((k) => [k, want.flat.get(k) || 0]))));
		sameMap('go pprof -top: cumulative samples per function', keyed(top.cum),
			keyed(want.cum));

		const cpu = pprof(['-top', '-sample_index=cpu', file]);
		check('go pprof: total cpu is samples * period', /Total samples = 1\.20s/.test(cpu),
			cpu.split('\n').slice(0, 5).join(' '));

		const lines = pprof(['-top', '-lines', '-sample_index=samples', file]);
		check('go pprof -lines: file:line per location',
			/main\.lua:work \/srv\/app\/main\.lua:5/.test(lines) &&
			/main\.lua:work \/srv\/app\/main\.lua:7/.test(lines));

		for (const f of ['empty.pb.gz', 'lines.pb.gz'])
			check(`go pprof reads ${f}`, pprof(['-raw', path.join(dir, f)]).length > 0);
	} catch (e) {
		fail('go tool pprof', `${e.message} ${e.stderr || ''}`);
	}
}

checkProfile();
checkStructure(decode(path.join(dir, 'empty.pb.gz')), 'empty.pb.gz', 0);
checkStructure(decode(path.join(dir, 'lines.pb.gz')), 'lines.pb.gz', T.samples.length);
checkGo();
done();
