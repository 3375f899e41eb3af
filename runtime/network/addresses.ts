/**
 * Simulated addressing. Host number n (index + 1) gets 10.x.y.z (IPv4) and fd00::n (IPv6);
 * loopback addresses mean "this host". Addresses outside the simulation belong to no host: a
 * connection to them is lost in the network, never sent for real.
 */
import { isIP } from 'node:net';

export type Family = 4 | 6;

export function ipv4Of(index: number): string {
  const n = index + 1;
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export function ipv6Of(index: number): string {
  return `fd00::${(index + 1).toString(16)}`;
}

export function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';
}

export function isWildcard(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '';
}

/**
 * Where Linux sends a connect or datagram addressed to the unspecified address: the kernel
 * takes 0.0.0.0 for 127.0.0.1 and :: for ::1, and both ends then see the loopback address.
 * Any other address is returned as it is.
 */
export function unspecifiedAsLoopback(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address.includes(':')) {
    if (/^[0:]+$/.test(address)) return '::1';
    if (/^::ffff:0\.0\.0\.0$/i.test(address)) return '::ffff:127.0.0.1';
  }
  return address;
}

/** Normalises IPv4-mapped IPv6 (::ffff:10.0.0.1) to plain IPv4. */
export function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

export function familyOf(address: string): Family | 0 {
  return isIP(address) as Family | 0;
}

export function familyName(family: Family): 'IPv4' | 'IPv6' {
  return family === 6 ? 'IPv6' : 'IPv4';
}
