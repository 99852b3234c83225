// SPDX-License-Identifier: MIT
// The heap census's SVG (luabpfprof --heap -f svg, tests/t_heap.sh) in
// Debian's chromium: the frame of a known reference path is drawn, a click
// zooms it to the full width, and the page's script raises no error.
//   node check_heap_svg.js FILE.svg PATH_PREFIX
'use strict';
const path = require('path');
const { check, fail, withChromium, done } = require('./lib');

const file = path.resolve(process.argv[2]);
const prefix = process.argv[3];

function frames(page) {
	return page.$$eval('g.f', (gs) => gs.map((g, i) => ({
		i, name: g.querySelector('title').textContent.split('\n')[0],
		width: Number(g.querySelector('rect').getAttribute('width')),
	})));
}

async function main() {
	try {
		await withChromium(async (browser) => {
			const page = await browser.newPage();
			const errors = [];
			page.on('pageerror', (e) => errors.push(e.message));
			await page.setViewportSize({ width: 1200, height: 400 });
			await page.goto(`file://${file}`);
			let fr = await frames(page);
			const target = fr.find((f) => f.name.startsWith(prefix));
			check(`heap svg: ${prefix} is drawn`, !!target,
				fr.slice(0, 12).map((f) => f.name).join(','));
			if (target) {
				await page.locator('g.f').nth(target.i).click();
				fr = await frames(page);
				check('heap svg: clicking the frame zooms it to the full width',
					fr[target.i].width > 1000, `${target.width} -> ${fr[target.i].width}`);
			}
			check('heap svg: no script errors', !errors.length, errors.join('; '));
		});
	} catch (e) {
		fail('heap svg: browser', e.stack || e.message);
	}
	done();
}

main();
