import { jsonForScript, PAGE_DATA_PLACEHOLDER, withPageData } from './page-data';

describe('page data in HTML', () => {
  it('cannot end its script element, and reads back unchanged', () => {
    const hostile = { email: '</script><script>alert(1)</script><!-- & \u2028' };
    const text = jsonForScript(hostile);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(hostile);
  });

  it('replaces the placeholder, even with $ patterns in the data', () => {
    const html = `<head>${PAGE_DATA_PLACEHOLDER}</head>`;
    const out = withPageData(html, {
      account: { id: '1', email: "$&$'@x.test", role: 'builder' },
    });
    const json = /<script id="tg-page-data" type="application\/json">(.*)<\/script>/.exec(out)![1];
    expect(JSON.parse(json).account.email).toBe("$&$'@x.test");
    expect(() => withPageData('<head></head>', { account: null })).toThrow(/npm run build/);
  });
});
