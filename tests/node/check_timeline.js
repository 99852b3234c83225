// SPDX-License-Identifier: MIT
// Checks the two timeline files of tests/t_timeline.sh against the spikes
// the workloads timed themselves (tests/workloads/spike.lua): every slice of
// spike() lies inside a spike, every spike has its slices, frame() never
// shows inside one; each thread has its own named track.  Then both files
// are opened in speedscope in headless chromium: imported without an error
// or a warning, with the workload's frame names.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const Ajv = require('ajv');
const schema = require('speedscope/dist/release/file-format-schema.json');
const { check, withChromium, done } = require('./lib');

const dir = path.resolve(process.argv[2]);
const hz = Number(process.argv[3]);
const workloads = process.argv.slice(4).map((arg) => {	// NAME=FILE
	const [name, file] = arg.split('=');
	const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
	const pid = Number(lines[0].split(' ')[1]);
	const spikes = lines.filter((l) => l.startsWith('spike '))
		.map((l) => l.split(' ').slice(1).map(Number));
	return { name, pid, spikes };
});
const PERIOD = 1e9 / hz;
// A sample stands for the period before it, its time known to the 1 ms
// slot; the jitter stretches a period by 10%.
const TOL = 1.1 * PERIOD + 2e6;

// Slices from nested open/close events: [{name, start, end}] in ns.
function slicer(what) {
	const stack = [], slices = [];
	let bad = null;
	return {
		open(name, t) { stack.push({ name, start: t }); },
		close(name, t) {
			const top = stack.pop();
			if (!top || top.name !== name || t < top.start)
				bad = bad || `${what}: close of ${name} at ${t} does not match ${top && top.name}`;
			else slices.push({ name, start: top.start, end: t });
		},
		result() { return { slices, bad: bad || (stack.length ? `${what}: left open` : null) }; },
	};
}

function chromeTracks(doc) {
	const origin = doc.otherData.origin_ns, tracks = new Map(), names = new Map();
	for (const e of doc.traceEvents) {
		const key = `${e.pid}/${e.tid}`;
		if (e.ph === 'M' && e.name === 'thread_name') names.set(key, e.args.name);
		if (e.ph !== 'B' && e.ph !== 'E') continue;
		if (!tracks.has(key)) tracks.set(key, slicer(`chrome ${key}`));
		tracks.get(key)[e.ph === 'B' ? 'open' : 'close'](e.name, origin + e.ts * 1000);
	}
	return [...tracks].map(([key, s]) => ({ key, name: names.get(key), ...s.result() }));
}

function eventedTracks(doc) {
	const origin = doc.luabpfprof.origin_ns, frames = doc.shared.frames;
	return doc.profiles.map((p) => {
		const m = /^(.*) \(pid (\d+), tid (\d+)\)$/.exec(p.name) || [];
		const s = slicer(`evented ${p.name}`);
		for (const e of p.events)
			s[e.type === 'O' ? 'open' : 'close'](frames[e.frame].name, origin + e.at * 1000);
		return { key: `${m[2]}/${m[3]}`, name: m[1], ...s.result() };
	});
}

function checkTracks(fmt, tracks) {
	for (const w of workloads) {
		const tr = tracks.find((t) => t.key === `${w.pid}/${w.pid}`);
		check(`${fmt}: ${w.name}'s thread has its own track, named by its thread name`,
			tr && tr.name === w.name, tr ? tr.name : tracks.map((t) => t.key).join(','));
		if (!tr) continue;
		check(`${fmt}: ${w.name}'s slices nest`, !tr.bad, tr.bad);
		const first = Math.min(...tr.slices.map((s) => s.start));
		const spikes = tr.slices.filter((s) => s.name.endsWith(':spike'));
		const frames = tr.slices.filter((s) => s.name.endsWith(':frame'));
		const outside = spikes.filter((s) => !w.spikes.some(([a, b]) =>
			s.start >= a - TOL && s.end <= b + TOL));
		check(`${fmt}: ${w.name}: all ${spikes.length} slices of spike() lie in a timed spike ` +
			`(±${(TOL / 1e6).toFixed(1)} ms)`, spikes.length && !outside.length,
			JSON.stringify(outside.slice(0, 3)));
		// Each spike after the thread was first seen: spike()'s slices
		// cover it for at least half the CPU time it burnt (its samples).
		const seen = w.spikes.filter(([a]) => a > first + PERIOD);
		const thin = seen.filter(([a, b]) => spikes.reduce((sum, s) =>
			sum + Math.max(0, Math.min(b, s.end) - Math.max(a, s.start)), 0) <
			0.5 * w.spikeMs * 1e6);
		check(`${fmt}: ${w.name}: each of the ${seen.length} timed spikes has its slices of spike()`,
			seen.length >= 3 && !thin.length, `${seen.length} seen, thin: ${JSON.stringify(thin)}`);
		const inside = frames.filter((s) => w.spikes.some(([a, b]) =>
			s.end > a + TOL && s.start < b - TOL));
		check(`${fmt}: ${w.name}: frame() never shows inside a spike (${frames.length} slices)`,
			frames.length && !inside.length, JSON.stringify(inside.slice(0, 3)));
	}
}

function load(name) {
	return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
}

// speedscope's release, and the files, over http (it loads a profileURL
// only from http).
function serve() {
	const rel = path.dirname(require.resolve('speedscope/dist/release/file-format-schema.json'));
	const srv = http.createServer((req, res) => {
		const u = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const f = u.startsWith('/f/') ? path.join(dir, path.basename(u))
			: path.join(rel, path.normalize(u).replace(/^(\.\.[/\\])+/, ''));
		fs.readFile(f, (e, d) => {
			res.writeHead(e ? 404 : 200);
			res.end(e ? '' : d);
		});
	});
	return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

async function inSpeedscope(browser, port, file, importer) {
	const page = await browser.newPage();
	const problems = [], logs = [];
	page.on('pageerror', (e) => problems.push(e.message));
	page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
	page.on('console', (m) => {
		// chromium's own GL notes are not speedscope's
		if ((m.type() === 'error' || m.type() === 'warning') && !/^\[\.WebGL-/.test(m.text()))
			problems.push(m.text());
		logs.push(m.text());
	});
	await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/f/${file}&view=sandwich`);
	let text = '';
	for (let i = 0; i < 100 && !/spike\.lua:spike/.test(text); i++) {
		await page.waitForTimeout(200);
		text = await page.evaluate(() => document.body.innerText);
	}
	check(`speedscope imports ${file} ${importer.source}`, logs.some((l) => importer.test(l)),
		logs.join(' | '));
	check(`speedscope: ${file} imported without an error or a warning`, !problems.length,
		problems.slice(0, 3).join(' | '));
	check(`speedscope: ${file}'s frames are spike.lua:spike and spike.lua:frame`,
		/spike\.lua:spike/.test(text) && /spike\.lua:frame/.test(text), text.slice(0, 300));
	check(`speedscope: ${file} shows ${workloads[0].name}'s thread`,
		text.includes(`${workloads[0].name} (`), text.slice(0, 300));
	await page.close();
}

async function main() {
	const chrome = load('t.trace.json');
	const evented = load('t.evented.speedscope.json');
	for (const w of workloads)
		w.spikeMs = Number(process.env[`SPIKE_MS_${w.name}`]);
	check('chrome: the time origin is recorded (CLOCK_MONOTONIC)',
		chrome.otherData.clock === 'CLOCK_MONOTONIC' && chrome.otherData.origin_ns > 0);
	checkTracks('chrome', chromeTracks(chrome));
	const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
	check('evented: valid against speedscope\'s file-format-schema.json', validate(evented),
		JSON.stringify(validate.errors));
	check('evented: the same time origin as chrome\'s run kind',
		evented.luabpfprof.clock === 'CLOCK_MONOTONIC' && evented.luabpfprof.origin_ns > 0);
	checkTracks('evented', eventedTracks(evented));

	const srv = await serve();
	try {
		await withChromium(async (browser) => {
			await inSpeedscope(browser, srv.address().port, 't.trace.json',
				/Importing as Trace Event Format/);
			await inSpeedscope(browser, srv.address().port, 't.evented.speedscope.json',
				/Importing as speedscope json/);
		});
	} finally {
		srv.close();
	}
	done();
}

main().catch((e) => { console.log(`FAIL: timeline: ${e.message}`); process.exit(1); });
