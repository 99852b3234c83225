// SPDX-License-Identifier: MIT
// Drives the SVG flame graphs in a real browser (Debian's chromium through
// playwright-core): names, zoom, reset, search and the share matched,
// colours per VM state, icicle layout, and a screenshot that shows a graph.
'use strict';
const fs = require('fs');
const path = require('path');
const T = require('./truth');
const { check, fail, withChromium, done } = require('./lib');

const dir = path.resolve(process.argv[2]);
const MATCH_FILL = 'rgb(230,0,230)';

// Every frame as the page sees it after the script ran.
function frames(page) {
	return page.$$eval('g.f', (gs) => gs.map((g, i) => {
		const r = g.querySelector('rect');
		const box = g.getBoundingClientRect();
		return { i, title: g.querySelector('title').textContent,
			name: g.querySelector('title').textContent.split('\n')[0],
			x: Number(r.getAttribute('x')), y: Number(r.getAttribute('y')),
			width: Number(r.getAttribute('width')), fill: r.getAttribute('fill'),
			text: g.querySelector('text').textContent, visible: box.width > 0 };
	}));
}

function rgb(fill) {
	return fill.match(/\d+/g).map(Number);
}

async function open(browser, file, errors, width) {
	const page = await browser.newPage();
	await page.setViewportSize({ width: width || 1200, height: 400 });
	page.on('pageerror', (e) => errors.push(`${file}: ${e.message}`));
	await page.goto(`file://${path.join(dir, file)}`);
	await page.waitForLoadState('load');
	return page;
}

async function checkProfile(browser, errors) {
	const page = await open(browser, 'profile.svg', errors);
	let fr = await frames(page);
	const names = new Set(fr.map((f) => f.name));
	const want = new Set(['all']);
	for (const s of T.samples)
		for (const l of T.exportStack(s, { process: true })) want.add(T.svgLabel(l));
	const missing = [...want].filter((n) => !names.has(n));
	check('svg: every frame name is shown', !missing.length, missing.join(', '));
	check('svg: tooltip has samples and share',
		fr.some((f) => f.title.startsWith('outer main.lua:10\n90 samples, 75.00%')),
		fr.map((f) => f.title.split('\n')[1]).join(';'));
	check('svg: labels put the function name first, so a cut label keeps it',
		fr.filter((f) => f.name.startsWith('work main.lua:2')).every((f) =>
			f.text === '' || f.text.startsWith('work')),
		fr.filter((f) => f.name.startsWith('work')).map((f) => f.text).join(';'));
	// GC and JIT compiler time are frames of their own, by default.
	const gc = fr.find((f) => f.name === '[Garbage Collector]');
	const jit = fr.find((f) => f.name === '[JIT Compiler]');
	check('svg: GC time is a red frame by default', gc && rgb(gc.fill)[0] > rgb(gc.fill)[1] + 60,
		gc && gc.fill);
	check('svg: JIT compiler time is a purple frame by default', jit &&
		rgb(jit.fill)[2] > rgb(jit.fill)[1] && rgb(jit.fill)[0] > rgb(jit.fill)[1], jit && jit.fill);
	// The odd function ran 5 of its 12 samples in the GC: drawn as Lua,
	// not red (its colour must not say "all GC").
	const odd = fr.find((f) => f.name === T.svgLabel('x&y.lua:a;b<c>&"q\''));
	const [or_, og, ob] = rgb(odd.fill);
	check('svg: a Lua frame with GC time below is coloured as Lua, not GC',
		or_ > og && og > ob && og > 110, odd.fill);
	check('svg: no Lua frame is red', fr.filter((f) => / main\.lua:|^main\.lua:/.test(f.name))
		.every((f) => rgb(f.fill)[1] > 110), '');

	// Zoom into luajit's outer (90 of 120 samples).
	const outer = fr.find((f) => f.title.startsWith('outer main.lua:10\n90 samples'));
	const rep = fr.find((f) => f.name === 'string.rep');
	const host = fr.find((f) => f.name === '[host]');
	const width = await page.evaluate(() => WIDTH);
	check('svg: fills the window (1200 px, less a scroll bar)', width > 1150 && width <= 1200,
		width);
	await page.locator('g.f').nth(outer.i).click();
	fr = await frames(page);
	const full = width - 2 * 10;
	check('zoom: the clicked frame fills the width',
		Math.abs(fr[outer.i].width - full) < 0.5 && Math.abs(fr[outer.i].x - 10) < 0.5,
		JSON.stringify(fr[outer.i]));
	check('zoom: a child is rescaled', Math.abs(fr[rep.i].width - full * 10 / 90) < 0.5 &&
		fr[rep.i].width > rep.width, `${rep.width} -> ${fr[rep.i].width}`);
	check('zoom: frames outside are hidden', !fr[host.i].visible);
	check('zoom: Reset Zoom appears', await page.isVisible('#unzoom'));
	await page.click('#unzoom');
	fr = await frames(page);
	check('reset zoom restores the layout', Math.abs(fr[rep.i].width - rep.width) < 0.01 &&
		fr[host.i].visible && !(await page.isVisible('#unzoom')));

	// Search: the prompt answers "work"; nested matches count once.
	page.once('dialog', (d) => d.accept('work'));
	await page.click('#search');
	fr = await frames(page);
	const matched = T.samples.filter((s) => T.exportStack(s, { process: true })
		.some((l) => /work/.test(T.svgLabel(l)))).reduce((a, s) => a + s.count, 0);
	const want_pct = `Matched: ${(100 * matched / T.total).toFixed(1)}%`;
	check('search: matched share shown', (await page.textContent('#matched')) === want_pct,
		`${await page.textContent('#matched')} != ${want_pct}`);
	check('search: matches highlighted, others not', fr.every((f) =>
		(f.fill === MATCH_FILL) === /work/.test(f.name)));
	await page.click('#search');
	fr = await frames(page);
	check('search reset restores colours', fr.every((f) => f.fill !== MATCH_FILL) &&
		(await page.textContent('#matched')) === '');

	// Recursion: the nested main.lua:outer must not count twice.
	page.once('dialog', (d) => d.accept('^outer '));
	await page.click('#search');
	const outers = T.samples.filter((s) => s.frames.includes('main.lua:outer'))
		.reduce((a, s) => a + s.count, 0);
	check('search: nested matches count once', (await page.textContent('#matched')) ===
		`Matched: ${(100 * outers / T.total).toFixed(1)}%`, await page.textContent('#matched'));
	await page.click('#search');

	// Hovering shows the frame's details.
	await page.locator('g.f').nth(outer.i).hover();
	check('hover: details line', (await page.textContent('#details'))
		.startsWith('outer main.lua:10 | 90 samples'));

	// Screenshot: count colours in the browser's own decoder.
	const png = await page.screenshot();
	const stats = await page.evaluate(async (b64) => {
		const img = new Image();
		img.src = `data:image/png;base64,${b64}`;
		await img.decode();
		const c = document.createElementNS('http://www.w3.org/1999/xhtml', 'canvas');
		c.width = img.width;
		c.height = img.height;
		const ctx = c.getContext('2d');
		ctx.drawImage(img, 0, 0);
		const d = ctx.getImageData(0, 0, c.width, c.height).data;
		const colours = new Set();
		let ink = 0;
		for (let i = 0; i < d.length; i += 4) {
			colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
			if (d[i] + d[i + 1] + d[i + 2] < 700) ink++;
		}
		return { colours: colours.size, ink: ink / (d.length / 4) };
	}, png.toString('base64'));
	fs.writeFileSync(path.join(dir, 'profile.png'), png);
	check('screenshot is not blank', stats.colours > 50 && stats.ink > 0.05,
		JSON.stringify(stats));
	await page.close();
}

async function checkStates(browser, errors) {
	const page = await open(browser, 'states.svg', errors);
	const fr = await frames(page);
	const colour = (name) => rgb(fr.find((f) => f.name === name).fill);
	const [cr, cg, cb] = colour('[Compiled]');
	const [ir, ig, ib] = colour('[Interpreted]');
	const [gr, gg, gb] = colour('[Garbage Collector]');
	const [fr_, fg, fb] = colour('@0x55b303d132c0');
	check('colours: compiled is green', cg > cr && cg > cb, [cr, cg, cb]);
	check('colours: interpreted is warm', ir > ig && ig > ib, [ir, ig, ib]);
	check('colours: GC is red', gr > gg + 60 && gr > gb + 60, [gr, gg, gb]);
	check('colours: C is blue', fb > fr_ && fb > fg, [fr_, fg, fb]);
	// Colour by kind: the state frames say compiled or interpreted, Lua
	// frames above them are all drawn as Lua.
	const lua = [colour('work main.lua:2'), colour(T.svgLabel('x&y.lua:a;b<c>&"q\''))];
	check('colours: Lua frames are orange whatever their VM state',
		lua.every(([r, g, b]) => r > g && g > b), JSON.stringify(lua));
	check('svg: zone frames shown', fr.some((f) => f.name === '[zone:parse]'));
	await page.close();
}

// The graph follows the window: wider, narrower, and after a resize.
async function checkWidth(browser, errors) {
	const page = await open(browser, 'profile.svg', errors, 1700);
	const rootWidth = async () => (await frames(page)).find((f) => f.name === 'all').width;
	let w = await page.evaluate(() => WIDTH);
	let r = await rootWidth();
	check('width: a 1700 px window gets a 1700 px graph', w > 1650 && w <= 1700 &&
		Math.abs(r - (w - 20)) < 0.5, `${w} ${r}`);
	await page.setViewportSize({ width: 800, height: 400 });
	await page.waitForFunction(() => WIDTH <= 800);
	w = await page.evaluate(() => WIDTH);
	r = await rootWidth();
	check('width: resized to 800 px, the graph follows', w > 750 && w <= 800 &&
		Math.abs(r - (w - 20)) < 0.5, `${w} ${r}`);
	const box = await page.evaluate(() => document.documentElement.getBoundingClientRect().width);
	check('width: no horizontal overflow', box <= 800, box);
	await page.close();
}

async function checkIcicle(browser, errors) {
	const page = await open(browser, 'icicle.svg', errors);
	const fr = await frames(page);
	const root = fr.find((f) => f.name === 'all');
	const comm = fr.find((f) => f.name === 'luajit');
	check('icicle: root on top', root.y < comm.y, `${root.y} ${comm.y}`);
	check('icicle: title escaped and shown',
		(await page.textContent('#title')) === 'Icicle <&> "t"');
	await page.close();

	const empty = await open(browser, 'empty.svg', errors);
	check('empty profile: says so', (await empty.textContent('svg')).includes('No samples'));
	await empty.close();
}

async function main() {
	const errors = [];
	try {
		await withChromium(async (browser) => {
			await checkProfile(browser, errors);
			await checkStates(browser, errors);
			await checkIcicle(browser, errors);
			await checkWidth(browser, errors);
		});
		check('no script errors in the page', !errors.length, errors.join('; '));
	} catch (e) {
		fail('browser test', e.stack || e.message);
	}
	done();
}

main();
