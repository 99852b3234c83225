// SPDX-License-Identifier: MIT
// Parses folded files back (undoing the %XX escapes) and compares their
// stacks and counts with the synthetic truth.
'use strict';
const fs = require('fs');
const path = require('path');
const T = require('./truth');
const { check, sameMap, done } = require('./lib');

function unescape(frame) {
	const out = [];
	for (let i = 0; i < frame.length;) {
		if (frame[i] === 0x25 && i + 2 < frame.length) {
			out.push(parseInt(frame.slice(i + 1, i + 3).toString(), 16));
			i += 3;
		} else {
			out.push(frame[i++]);
		}
	}
	return Buffer.from(out);
}

// FlameGraph's rule: a line is "stack count"; the stack must not end in
// whitespace + digits, or it reads as a differential second column.
function parse(file, name) {
	const got = new Map();
	const data = fs.readFileSync(file);
	let bad = 0;
	for (const line of data.toString('latin1').split('\n')) {
		if (!line) continue;
		const m = /^(.*) (\d+)$/.exec(line);
		if (!m || /\s\d+$/.test(m[1])) { bad++; continue; }
		const frames = Buffer.from(m[1], 'latin1');
		const parts = [];
		let start = 0;
		for (let i = 0; i <= frames.length; i++) {
			if (i === frames.length || frames[i] === 0x3b) {
				parts.push(unescape(frames.subarray(start, i)).toString('hex'));
				start = i + 1;
			}
		}
		const key = parts.join(',');
		got.set(key, (got.get(key) || 0) + Number(m[2]));
	}
	check(`${name}: every line parses`, bad === 0, `${bad} bad lines`);
	check(`${name}: output is valid UTF-8`,
		Buffer.from(data.toString('utf8'), 'utf8').equals(data), 'invalid UTF-8');
	return got;
}

const dir = process.argv[2];
sameMap('folded stacks and counts equal the truth',
	parse(path.join(dir, 'profile.folded'), 'profile.folded'),
	T.expectedStacks({ process: true }, T.bytesKey));
sameMap('folded with vmstate and zone frames equals the truth',
	parse(path.join(dir, 'states.folded'), 'states.folded'),
	T.expectedStacks({ process: true, vmstate: true, zone: true }, T.bytesKey));
sameMap('folded --per-process: a pid frame under comm',
	parse(path.join(dir, 'perproc.folded'), 'perproc.folded'),
	T.expectedStacks({ process: true, perProcess: true }, T.bytesKey));
check('empty profile gives an empty folded file',
	fs.readFileSync(path.join(dir, 'empty.folded')).length === 0);
done();
