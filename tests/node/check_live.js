// SPDX-License-Identifier: MIT
// Checks files exported from a real profile (tests/t_formats_live.sh): the
// SVG in Debian's chromium (zoom on a frame, search and its matched share,
// a screenshot that is not blank) and the speedscope file against the
// schema the speedscope package ships.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const schema = require('speedscope/dist/release/file-format-schema.json');
const { check, withChromium, done } = require('./lib');

const dir = path.resolve(process.argv[2]);
const hot = process.argv[3];		// a frame that must be in the graph: FILE:NAME
// The SVG labels a named Lua function name first: "NAME FILE:FIRSTLINE".
const hotSvg = (() => {
	const m = /^(.*):([^:]+)$/.exec(hot);
	const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return m ? new RegExp(`^${esc(m[2])} ${esc(m[1])}:[0-9]+$`) : new RegExp(`^${esc(hot)}$`);
})();
const MATCH_FILL = 'rgb(230,0,230)';

function frames(page) {
	return page.$$eval('g.f', (gs) => gs.map((g, i) => {
		const r = g.querySelector('rect');
		return { i, name: g.querySelector('title').textContent.split('\n')[0],
			width: Number(r.getAttribute('width')), fill: r.getAttribute('fill') };
	}));
}

async function main() {
	const doc = JSON.parse(fs.readFileSync(path.join(dir, 'p.speedscope.json'), 'utf8'));
	const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
	check('live speedscope: valid against the shipped schema', validate(doc),
		JSON.stringify(validate.errors));
	check('live speedscope: the hot frame is a frame',
		doc.shared.frames.some((f) => f.name === hot));

	await withChromium(async (browser) => {
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(e.message));
		await page.setViewportSize({ width: 1200, height: 400 });
		await page.goto(`file://${path.join(dir, 'p.svg')}`);
		let fr = await frames(page);
		const target = fr.find((f) => hotSvg.test(f.name));
		check('live svg: the hot Lua frame is drawn', !!target, fr.map((f) => f.name).join(','));
		if (target) {
			await page.locator('g.f').nth(target.i).click();
			fr = await frames(page);
			check('live svg: clicking the frame zooms it to the full width',
				fr[target.i].width > target.width * 1.2 && fr[target.i].width > 1000,
				`${target.width} -> ${fr[target.i].width}`);
			await page.click('#unzoom');
			page.once('dialog', (d) => d.accept(target.name));
			await page.click('#search');
			fr = await frames(page);
			const matched = await page.textContent('#matched');
			check('live svg: search highlights the frame and shows the matched share',
				fr.some((f) => f.name === target.name && f.fill === MATCH_FILL) &&
				/^Matched: [0-9.]+%$/.test(matched), matched);
		}
		const png = await page.screenshot();
		fs.writeFileSync(path.join(dir, 'p.png'), png);
		check('live svg: screenshot is not blank', png.length > 5000, `${png.length} bytes`);
		check('live svg: no script errors', !errors.length, errors.join('; '));
	});
	done();
}

main().catch((e) => { console.log(`FAIL: live formats: ${e.message}`); process.exit(1); });
