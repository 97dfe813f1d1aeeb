import fc from 'fast-check';
import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  fromBrowser,
  listeningNames,
  LocalServerGuard,
  type LocalRequest,
} from '../../src/server/local-server-guard.js';

const guard = (host = '127.0.0.1', allowedHosts?: string[]) =>
  new LocalServerGuard({ host, port: () => 8787, ...(allowedHosts ? { allowedHosts } : {}) });
/** The host name the URL parser makes of `name` ('' when it is not one). */
const hostnameOf = (name: string): string => {
  try {
    return new URL(`http://${name}`).hostname;
  } catch {
    return '';
  }
};
const req = (headers: Record<string, string>, method = 'POST'): LocalRequest => ({
  method,
  header: (n) => headers[n.toLowerCase()],
  urlHost: () => 'localhost',
});

describe('LocalServerGuard: Host', () => {
  it('on loopback accepts 127.0.0.1, localhost and [::1] with the port, and nothing else', () => {
    const g = guard();
    for (const host of ['127.0.0.1:8787', 'localhost:8787', 'LOCALHOST:8787', '[::1]:8787', '[0:0:0:0:0:0:0:1]:8787'])
      expect(g.check(req({ host })), host).toBeUndefined();
    for (const host of [
      'attacker.example',
      'attacker.example:8787',
      'localhost',
      '127.0.0.1:8788',
      'localhost.:8787',
      'localhost.attacker.example:8787',
      '127.0.0.1.nip.io:8787',
      'user@127.0.0.1:8787',
      '127.0.0.1:8787/x',
      '',
      ' localhost:8787',
    ]) {
      expect(g.check(req({ host })), host).toMatchObject({ code: 'forbidden_host' });
    }
  });

  it('adds --allowed-host names: without a port any port, with one that port only; refuses a malformed one', () => {
    const g = guard('127.0.0.1', ['qitos.internal', 'proxy.example:443', '[::1]:9000']);
    expect(g.check(req({ host: 'qitos.internal' }))).toBeUndefined();
    expect(g.check(req({ host: 'QITOS.internal:1234' }))).toBeUndefined();
    expect(g.check(req({ host: 'proxy.example:443' }))).toBeUndefined();
    expect(g.check(req({ host: 'proxy.example:8443' }))).toMatchObject({ code: 'forbidden_host' });
    expect(g.check(req({ host: '[::1]:9000' }))).toBeUndefined();
    expect(() => guard('127.0.0.1', ['http://x.example/path'])).toThrow(
      /--allowed-host "http:\/\/x.example\/path" is not a host name/,
    );
  });

  it(
    "bound to a wildcard accepts the loopback names and the addresses of this machine's " +
      'interfaces; bound to one address, that address',
    () => {
      const addresses = Object.values(networkInterfaces())
        .flatMap((l) => l ?? [])
        .map((i) => (i.family === 'IPv6' ? `[${i.address.replace(/%.*$/, '')}]` : i.address));
      expect(listeningNames('0.0.0.0')).toEqual(expect.arrayContaining(['127.0.0.1', 'localhost', '[::1]']));
      for (const a of addresses) expect(guard('0.0.0.0').check(req({ host: `${a}:8787` })), a).toBeUndefined();
      expect(guard('0.0.0.0').check(req({ host: 'attacker.example:8787' }))).toMatchObject({ code: 'forbidden_host' });
      expect(listeningNames('192.168.1.20')).toEqual(['192.168.1.20']);
      expect(guard('192.168.1.20').check(req({ host: 'localhost:8787' }))).toMatchObject({ code: 'forbidden_host' });
    },
  );

  it('no DNS name outside the accepted ones gets through, however it is spelled (property)', () => {
    const g = guard();
    const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        (labels, port) => {
          const name = labels.join('.');
          fc.pre(name !== 'localhost' && !/^[0-9.]+$/.test(hostnameOf(name))); // an IPv4 spelling (0x7f.1) is no DNS name
          expect(g.check(req({ host: port === null ? name : `${name}:${port}` }))).toMatchObject({
            code: 'forbidden_host',
          });
        },
      ),
    );
  });
});

describe('LocalServerGuard: web pages', () => {
  const host = '127.0.0.1:8787';
  it('refuses a foreign Origin, Origin: null and an Origin of another port; accepts its own origin and no Origin', () => {
    const g = guard();
    expect(g.check(req({ host }))).toBeUndefined();
    for (const origin of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787'])
      expect(g.check(req({ host, origin })), origin).toBeUndefined();
    for (const origin of [
      'https://attacker.example',
      'null',
      'http://localhost:3000',
      'http://127.0.0.1:8787.attacker.example',
      'file://',
      'http://127.0.0.1:8787/x',
      'javascript:1',
    ]) {
      expect(g.check(req({ host, origin })), origin).toMatchObject({ code: 'forbidden_origin' });
    }
  });

  it('refuses cross-site and same-site Sec-Fetch-Site, except a top-level GET navigation (a link to a viewer page)', () => {
    const g = guard();
    for (const site of ['cross-site', 'same-site']) {
      expect(g.check(req({ host, 'sec-fetch-site': site, 'sec-fetch-mode': 'no-cors' }))).toMatchObject({
        code: 'forbidden_origin',
      });
      expect(g.check(req({ host, 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }))).toMatchObject({
        code: 'forbidden_origin',
      }); // a form POST
      expect(g.check(req({ host, 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' }, 'GET'))).toBeUndefined();
      expect(g.check(req({ host, 'sec-fetch-site': site, 'sec-fetch-mode': 'cors' }, 'GET'))).toMatchObject({
        code: 'forbidden_origin',
      });
    }
    expect(g.check(req({ host, 'sec-fetch-site': 'same-origin', origin: 'http://127.0.0.1:8787' }))).toBeUndefined();
    expect(g.check(req({ host, 'sec-fetch-site': 'none' }, 'GET'))).toBeUndefined();
  });

  it("tells a browser's request from an SDK's: Origin or Sec-Fetch-Site (Node's fetch sends only Sec-Fetch-Mode)", () => {
    const h = (headers: Record<string, string>) => (n: string) => headers[n];
    expect(fromBrowser(h({ origin: 'null' }))).toBe(true);
    expect(fromBrowser(h({ 'sec-fetch-site': 'same-origin' }))).toBe(true);
    expect(fromBrowser(h({ 'sec-fetch-mode': 'cors', 'user-agent': 'node' }))).toBe(false);
  });
});
