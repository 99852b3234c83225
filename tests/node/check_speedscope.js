// SPDX-License-Identifier: MIT
// Validates the speedscope files against the schema speedscope ships, then
// rebuilds their stacks and compares them with the truth.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const T = require('./truth');
const { check, sameMap, done } = require('./lib');

const dir = process.argv[2];
const schema = require('speedscope/dist/release/file-format-schema.json');
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function load(name) {
	const text = fs.readFileSync(path.join(dir, name), 'utf8');
	let doc = null;
	try {
		doc = JSON.parse(text);
		check(`${name}: parses as JSON`, true);
	} catch (e) {
		check(`${name}: parses as JSON`, false, e.message);
		return null;
	}
	check(`${name}: valid against speedscope's file-format-schema.json`, validate(doc),
		JSON.stringify(validate.errors));
	return doc;
}

const doc = load('profile.speedscope.json');
for (const f of ['lines.speedscope.json', 'empty.speedscope.json'])
	load(f);

if (doc) {
	const frames = doc.shared.frames;
	const got = new Map();
	let weightsOk = true;
	check('one profile per process', doc.profiles.map((p) => p.name).join('|') ===
		'luajit (pid 4242)|app;v2 7 (pid 4343)', doc.profiles.map((p) => p.name));
	for (const p of doc.profiles) {
		const pid = Number(/pid (\d+)\)$/.exec(p.name)[1]);
		const sum = p.weights.reduce((a, w) => a + w, 0);
		if (p.samples.length !== p.weights.length || p.endValue - p.startValue !== sum)
			weightsOk = false;
		p.samples.forEach((st, i) => {
			const key = `${pid} ${JSON.stringify(st.map((ix) => frames[ix].name))}`;
			got.set(key, (got.get(key) || 0) + p.weights[i]);
		});
	}
	check('weights: one per sample, summing to endValue - startValue', weightsOk);
	const want = new Map();
	for (const s of T.samples) {
		const key = `${s.pid} ${T.textKey(T.exportStack(s, {}))}`;
		want.set(key, (want.get(key) || 0) + s.count);
	}
	sameMap('speedscope stacks and weights equal the truth', got, want);
	const work = frames.find((f) => f.name === 'main.lua:work');
	check('frame carries file and first line', work && work.file === '/srv/app/main.lua' &&
		work.line === 2, JSON.stringify(work));
	check('invalid UTF-8 became U+FFFD', frames.some((f) => f.name ===
		'main.lua:bad\ufffdname'));
	const names = frames.map((f) => `${f.name}\0${f.file}\0${f.line}`);
	check('frames are unique', new Set(names).size === names.length);
}
done();
