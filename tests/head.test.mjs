// What a browser tab and a link preview show before the page runs: the title, the
// description, Open Graph and Twitter card tags, the favicon and the preview image. The served
// HTML is read as a parser reads it (a page with JavaScript off): the release build minifies it,
// so its attributes may be unquoted.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser } from './lib/page.mjs';

describe('the head', () => {
  const env = useBrowser();

  it('names the page, describes it, and serves its icon and preview image', { timeout: 30_000 }, async () => {
    const context = await env.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${env.server.url}/`);
      const head = await page.evaluate(() => {
        const meta = (attr, name) => document.head.querySelector(`meta[${attr}="${name}"]`)?.getAttribute('content') ?? null;
        return {
          title: document.title,
          description: meta('name', 'description'),
          ogTitle: meta('property', 'og:title'),
          ogDescription: meta('property', 'og:description'),
          ogImage: meta('property', 'og:image'),
          twitterCard: meta('name', 'twitter:card'),
          icon: document.head.querySelector('link[rel=icon]')?.getAttribute('href') ?? null,
        };
      });
      assert.match(head.title, /Kafka/);
      assert.ok((head.description ?? '').length > 50, 'a description');
      assert.ok(head.ogTitle, 'og:title');
      assert.ok(head.ogDescription, 'og:description');
      assert.equal(head.twitterCard, 'summary_large_image');
      assert.ok(head.ogImage, 'og:image');
      const png = await fetch(`${env.server.url}/${head.ogImage}`);
      assert.equal(png.status, 200, `${head.ogImage} is served`);
      assert.equal(png.headers.get('content-type'), 'image/png');
      assert.ok(head.icon, 'a favicon link');
      const svg = await fetch(`${env.server.url}/${head.icon.replace(/^\.\//, '')}`);
      assert.equal(svg.status, 200, `${head.icon} is served`);
    } finally {
      await context.close();
    }
  });
});
