import { describe, expect, it } from 'vitest';
import { docsPage, inlineScript, renderDocsPage } from '../../shared/http/docs-page.js';
import { acceptsGzip } from '../../shared/http/represent.js';

describe('the docs page', () => {
  it('inlined scripts cannot end their element or enter the parser\'s escaped states', () => {
    expect(inlineScript('a="</script>";b=/<!--/;c="</SCRIPT "')).toBe('a="\\x3C/script>";b=/\\x3C!--/;c="\\x3C/SCRIPT "');
    expect(inlineScript('x<y&&y<z')).toBe('x<y&&y<z');
    const { html } = docsPage();
    const text = html.toString('utf8');
    // Exactly the two closing tags of the page's own scripts, and no comment opener anywhere.
    expect(text.match(/<\/script/gi)).toHaveLength(2);
    expect(text).not.toContain('<!--');
  });

  it('refuses a style sheet that would end its element', () => {
    expect(() => renderDocsPage('', 'a{}</style><script>')).toThrow(/style/);
  });

  it('is built once per process', () => {
    expect(docsPage()).toBe(docsPage());
    expect(docsPage().gzip.length).toBeLessThan(docsPage().html.length / 3);
  });

  it('gzip is chosen when Accept-Encoding accepts it', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('GZip;q=0.5')).toBe(true);
    expect(acceptsGzip('br, *')).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('*;q=0')).toBe(false);
  });
});
