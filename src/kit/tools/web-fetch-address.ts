// Its declarations name Node's types: the reference lets a consumer whose tsconfig lacks `types: ["node"]` find them.
/// <reference types="node" preserve="true" />
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AllowedHost } from './web-fetch-hosts.js';
import { toolError } from './tool-env.js';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (default: the system resolver, `dns.lookup` with `all`). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * The kind of an address (`unicast` for a public one; `loopback`, `private`, `linkLocal`, `uniqueLocal`,
 * `carrierGradeNat`, `reserved`, ...), by the IANA special-purpose registries as ipaddr.js knows them. An
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
 */
export function addressRange(address: string): string {
  return ipaddr.process(address).range();
}

/** The address as a URL's host spells it (`127.0.0.1`, `[::1]`), to compare with allow-list entries. */
function urlHost(address: string): string {
  return new URL(`http://${address.includes(':') ? `[${address}]` : address}/`).hostname;
}

/**
 * The `lookup` of web_fetch's connections: resolves the name once, checks the answers, and hands the socket
 * exactly the address that passed, so DNS cannot answer one address to the check and another to the connect
 * (rebinding). An address passes when it is public (`unicast`), or when the allow-list names that address
 * itself (`127.0.0.1`, `[::1]`, any port); the first address that passes is used. A name whose addresses
 * all fail is a tool error that names them and says how to allow one.
 */
export function pinnedLookup(allowHosts: readonly AllowedHost[], resolve: Resolver): LookupFunction {
  const listed = new Set(allowHosts.filter((h) => !h.wildcard).map((h) => h.host));
  const passes = (a: ResolvedAddress) => addressRange(a.address) === 'unicast' || listed.has(urlHost(a.address));
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const wanted =
          options.family === 4 || options.family === 6 ? answers.filter((a) => a.family === options.family) : answers;
        const ok = wanted.find(passes);
        if (!ok) {
          const shown = wanted.map((a) => `${a.address} (${addressRange(a.address)})`).join(', ') || 'no address';
          const err = toolError(
            `host ${hostname} resolves to ${shown}, not a public address. web_fetch connects to a ` +
              `non-public address only when allowHosts lists that address itself (e.g. ` +
              `"${wanted[0]?.address.includes(':') ? `[${wanted[0].address}]` : (wanted[0]?.address ?? '127.0.0.1')}"), ` +
              `so a name cannot be pointed at this machine or its network.`,
          );
          return callback(err as NodeJS.ErrnoException, '', 4);
        }
        if (options.all) callback(null, [{ address: ok.address, family: ok.family }]);
        else callback(null, ok.address, ok.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}
