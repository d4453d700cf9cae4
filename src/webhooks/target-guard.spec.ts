import { checkTarget, isPublicAddress, parseTargetUrl, TargetRefused } from './target-guard';

describe('webhook target guard (README "Webhooks")', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '0.0.0.0',
    '::',
    '100.64.0.1',
    '224.0.0.1',
    '64:ff9b::7f00:1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::ffff:7f00:1',
    '2002:7f00:1::',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('refuses a name resolving to 127.0.0.1 (localhost, through the system resolver)', async () => {
    await expect(checkTarget('localhost', false)).rejects.toThrow(TargetRefused);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    const resolve = () =>
      Promise.resolve([
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ]);
    await expect(checkTarget('mixed.example', false, resolve)).rejects.toThrow(/10\.0\.0\.5/);
  });

  it('connects to the checked address and refuses bracketed IPv6 literals that are loopback', async () => {
    const resolve = () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]);
    await expect(checkTarget('public.example', false, resolve)).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(checkTarget('[::1]', false)).rejects.toThrow(TargetRefused);
    await expect(checkTarget('[::ffff:127.0.0.1]', false)).rejects.toThrow(TargetRefused);
  });

  it('allows private targets only with the test switch', async () => {
    await expect(checkTarget('127.0.0.1', true)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });

  it('refuses URLs that are not http(s) or carry credentials', () => {
    expect(() => parseTargetUrl('ftp://example.com/')).toThrow(TargetRefused);
    expect(() => parseTargetUrl('https://user:pw@example.com/')).toThrow(/user name/);
    expect(() => parseTargetUrl('nonsense')).toThrow(TargetRefused);
    expect(parseTargetUrl('https://example.com/hook?x=1').hostname).toBe('example.com');
  });
});
