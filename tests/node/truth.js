// SPDX-License-Identifier: MIT
// The synthetic profile of tests/unit/test_export_fixture.h, written down
// independently, and the stack shape docs/formats.md promises for it.
'use strict';

const C = '@0x55b303d132c0';
const M = 'main.lua:0';
const O = 'main.lua:outer';
const W = 'main.lua:work';
const ODD = 'x&y.lua:a;b<c>&"q\'';
const U = 'stdin:gr\u00f6\u00dfe';
const BAD = { bytes: Buffer.concat([Buffer.from('main.lua:bad'), Buffer.from([0xff]),
	Buffer.from('name')]) };
const D = 'main.lua:v 42';
const S = '[string]:1';
const REP = 'string.rep';
const FE = '[builtin:foreach]';

const hz = 100;
const period = 1e9 / hz;
const comm = { 4242: 'luajit', 4343: 'app;v2 7' };
const samples = [
	{ pid: 4242, tid: 4242, vm: 'I', count: 30, frames: [C, M, O, W] },
	{ pid: 4242, tid: 4242, vm: 'N', trace: 7, traceStart: 'main.lua:2', count: 50,
	  frames: [C, M, O, W] },
	{ pid: 4242, tid: 4243, vm: 'C', count: 10, frames: [C, M, O, REP] },
	{ pid: 4242, tid: 4242, vm: 'G', zone: 'parse', count: 5, frames: [C, M, ODD] },
	{ pid: 4242, tid: 4242, vm: 'I', zone: 'parse', count: 7, frames: [C, M, ODD, U] },
	{ pid: 4242, tid: 4242, vm: 'I', count: 3, frames: [C, M, BAD, D] },
	{ pid: 4242, tid: 4242, vm: 'J', count: 2, frames: [C, M, S] },
	{ pid: 4242, tid: 4244, host: true, count: 4, frames: [] },
	{ pid: 4343, tid: 4344, vm: 'I', count: 6, frames: [C, M, O, W] },
	{ pid: 4343, tid: 4344, vm: 'I', truncated: true, count: 1, frames: [W, FE] },
	{ pid: 4343, tid: 4344, vm: 'I', count: 2, frames: [C, M, O, O, W] },
];
const total = samples.reduce((a, s) => a + s.count, 0);
const vmNames = { N: 'Compiled', I: 'Interpreted', C: 'C code', G: 'Garbage Collector',
	J: 'JIT Compiler' };

// A label's bytes, and its text once invalid UTF-8 became U+FFFD.
function bytesOf(label) {
	return typeof label === 'string' ? Buffer.from(label, 'utf8') : label.bytes;
}
function textOf(label) {
	return bytesOf(label).toString('utf8');
}

// Root first: [comm [pid]] [zone] [unknown: truncated] frames [host]
// [vmstate].  The pid frame only per process (a program's processes merge
// by default); GC and JIT compiler time always get their state frame.
function exportStack(s, opt) {
	const st = [];
	if (opt.process) st.push(comm[s.pid]);
	if (opt.process && opt.perProcess) st.push(String(s.pid));
	if (opt.zone && !s.host) st.push(`[zone:${s.zone || '(none)'}]`);
	if (s.truncated) st.push('[unknown: truncated]');
	st.push(...s.frames);
	if (s.host && !s.frames.length) st.push('[host]');
	if (!s.host && (opt.vmstate || s.vm === 'G' || s.vm === 'J')) st.push(`[${vmNames[s.vm]}]`);
	return st;
}

// The SVG draws a named Lua function name first: "work main.lua:2".
const svgNames = new Map([
	[O, 'outer main.lua:10'], [W, 'work main.lua:2'], [ODD, 'a;b<c>&"q\' x&y.lua:20'],
	[U, 'gr\u00f6\u00dfe stdin:3'], [D, 'v 42 main.lua:50'],
]);
function svgLabel(label) {
	if (label === BAD) return 'bad\ufffdname main.lua:30';
	return svgNames.get(label) || textOf(label);
}

// Merged expected stacks: key (labels' bytes, hex, joined) -> count.
function expectedStacks(opt, keyOf) {
	const m = new Map();
	for (const s of samples) {
		const k = keyOf(exportStack(s, opt));
		m.set(k, (m.get(k) || 0) + s.count);
	}
	return m;
}

function bytesKey(labels) {
	return labels.map((l) => bytesOf(l).toString('hex')).join(',');
}

function textKey(labels) {
	return JSON.stringify(labels.map(textOf));
}

// Flat (leaf) and cumulative samples per function text, as pprof counts.
function flatCum(opt) {
	const flat = new Map(), cum = new Map();
	for (const s of samples) {
		const st = exportStack(s, opt).map(textOf);
		if (!st.length) continue;
		const leaf = st[st.length - 1];
		flat.set(leaf, (flat.get(leaf) || 0) + s.count);
		for (const f of new Set(st)) cum.set(f, (cum.get(f) || 0) + s.count);
	}
	return { flat, cum };
}

module.exports = { samples, comm, total, hz, period, vmNames, bytesOf, textOf, exportStack,
	expectedStacks, bytesKey, textKey, flatCum, svgLabel };
