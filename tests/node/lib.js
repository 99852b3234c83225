// SPDX-License-Identifier: MIT
// PASS:/FAIL: reporting, as tests/run.sh counts it, and Debian's chromium
// for the SVG checks.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

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

// Runs fn(browser) in a headless chromium with a fresh profile directory
// (a persistent context is how playwright takes one), then closes it.
async function withChromium(fn) {
	const { chromium } = require('playwright-core');
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbp-chromium-'));
	let browser;
	try {
		browser = await chromium.launchPersistentContext(profileDir, {
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			headless: true,
			args: ['--headless', '--no-sandbox', '--disable-gpu',
				'--disable-background-networking', '--disable-component-update',
				'--disable-sync', '--no-first-run'],
		});
		return await fn(browser);
	} finally {
		if (browser) await browser.close();
		fs.rmSync(profileDir, { recursive: true, force: true });
	}
}

function done() {
	process.exitCode = failed ? 1 : 0;
}

module.exports = { pass, fail, check, sameMap, withChromium, done };
