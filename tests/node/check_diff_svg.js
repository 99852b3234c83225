// SPDX-License-Identifier: MIT
// The differential flame graph (luabpfprof diff -o x.svg, tests/t_diff.sh)
// in Debian's chromium: the frame that grew is drawn red, the unchanged
// one neutral grey (as the browser computes the fill), its tooltip holds
// both shares and the interval, a click zooms, and no script error.
//   node check_diff_svg.js FILE.svg GREW_NAME UNCHANGED_NAME
'use strict';
const path = require('path');
const { check, fail, withChromium, done } = require('./lib');

const file = path.resolve(process.argv[2]);
const grew = process.argv[3];
const same = process.argv[4];

function frames(page) {
	return page.$$eval('g.f', (gs) => gs.map((g, i) => {
		const r = g.querySelector('rect');
		return {
			i, title: g.querySelector('title').textContent,
			name: g.querySelector('title').textContent.split('\n')[0],
			width: Number(r.getAttribute('width')),
			fill: getComputedStyle(r).fill,
		};
	}));
}

const rgb = (fill) => (fill.match(/\d+/g) || []).map(Number);

async function main() {
	try {
		await withChromium(async (browser) => {
			const page = await browser.newPage();
			const errors = [];
			page.on('pageerror', (e) => errors.push(e.message));
			await page.setViewportSize({ width: 1200, height: 600 });
			await page.goto(`file://${file}`);
			let fr = await frames(page);
			const g = fr.find((f) => f.name === grew);
			const s = fr.find((f) => f.name === same);
			check(`diff svg: ${grew} and ${same} are drawn`, g && s,
				fr.slice(0, 12).map((f) => f.name).join(','));
			if (g) {
				const [r, gg, b] = rgb(g.fill);
				check(`diff svg: ${grew} is red (${g.fill})`, r === 255 && gg < 200 && b < 200,
					g.fill);
				check('diff svg: its tooltip has both shares and the interval',
					/BASE [\d.]+%, NEW [\d.]+%: \+[\d.]+ points, 99% interval \[\+[\d.]+, \+[\d.]+\]/
						.test(g.title), g.title);
			}
			if (s) {
				const [r, gg, b] = rgb(s.fill);
				check(`diff svg: ${same} is neutral (${s.fill})`, r === gg && gg === b && r > 150,
					s.fill);
				check('diff svg: its tooltip says noise', /inside the noise/.test(s.title), s.title);
			}
			if (g) {
				await page.locator('g.f').nth(g.i).click();
				fr = await frames(page);
				check('diff svg: a click zooms the frame to the full width',
					fr[g.i].width > 1000, `${g.width} -> ${fr[g.i].width}`);
			}
			check('diff svg: no script errors', !errors.length, errors.join('; '));
		});
	} catch (e) {
		fail('diff svg: browser', e.stack || e.message);
	}
	done();
}

main();
