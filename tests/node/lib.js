// PASS:/FAIL: reporting, as tests/run.sh counts it.
'use strict';

let failed = 0;

function pass(name) {
	console.log(`PASS: ${name}`);
}

function fail(name, why) {
	console.log(`FAIL: ${name}: ${String(why).replace(/\n/g, ' | ')}`);
	failed++;
}

function check(name, cond, why) {
	if (cond) pass(name);
	else fail(name, why || 'condition false');
}

function sameMap(name, got, want) {
	const problems = [];
	for (const [k, v] of want)
		if (got.get(k) !== v) problems.push(`${k}: got ${got.get(k)} want ${v}`);
	for (const [k, v] of got)
		if (!want.has(k)) problems.push(`unexpected ${k} = ${v}`);
	check(name, !problems.length, problems.slice(0, 5).join('; '));
}

function done() {
	process.exitCode = failed ? 1 : 0;
}

module.exports = { pass, fail, check, sameMap, done };
