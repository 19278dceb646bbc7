// What a browser tab and a link preview show before the page runs: the title, the
// description, Open Graph and Twitter card tags, the favicon and the preview image.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serve } from './lib/server.mjs';

describe('the head', () => {
  it('names the page, describes it, and serves its icon and preview image', { timeout: 30_000 }, async () => {
    const server = await serve();
    try {
      const html = await (await fetch(`${server.url}/`)).text();
      const meta = (attr, name) => html.match(new RegExp(`<meta\\s+${attr}="${name}"\\s+content="([^"]*)"`))?.[1];
      assert.match(html.match(/<title>([^<]*)<\/title>/)?.[1] ?? '', /Kafka/);
      assert.ok((meta('name', 'description') ?? '').length > 50, 'a description');
      assert.ok(meta('property', 'og:title'), 'og:title');
      assert.ok(meta('property', 'og:description'), 'og:description');
      assert.equal(meta('name', 'twitter:card'), 'summary_large_image');
      const image = meta('property', 'og:image');
      assert.ok(image, 'og:image');
      const png = await fetch(`${server.url}/${image}`);
      assert.equal(png.status, 200, `${image} is served`);
      assert.equal(png.headers.get('content-type'), 'image/png');
      const icon = html.match(/<link[^>]+rel="icon"[^>]+href="([^"]+)"/)?.[1]
        ?? html.match(/<link[^>]+href="([^"]+)"[^>]+rel="icon"/)?.[1];
      assert.ok(icon, `a favicon link in ${html.slice(0, 400)}`);
      const svg = await fetch(`${server.url}/${icon.replace(/^\.\//, '')}`);
      assert.equal(svg.status, 200, `${icon} is served`);
    } finally {
      await server.close();
    }
  });
});
