// Where webhooks may go. In production configuration a callback must be https and must not point at
// loopback, private, link-local, unique-local or cloud metadata addresses, nor at any other range that
// is not globally reachable or that tunnels to an address chosen by the sender (docs/api.md,
// "Callback addresses"), checked on the URL at creation and again on the resolved addresses at
// delivery time.

import { BlockList, isIP } from 'node:net'

const URL_MAX_LENGTH = 2048

const nonPublicIpv4 = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, holds the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes the limited broadcast 255.255.255.255
] as const) {
  nonPublicIpv4.addSubnet(network, prefix, 'ipv4')
}

const nonPublicIpv6 = new BlockList()
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form ::a.b.c.d
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT) ::ffff:0:a.b.c.d, never on the public internet
  ['64:ff9b:1::', 48], // NAT64 local-use prefix: translates to whatever IPv4 the local network means
  ['100::', 64], // discard-only
  // Tunnels whose far end is an IPv4 address written into the IPv6 one: a relay would carry the
  // request to that address, private or not. Refused whole: 6to4 is deprecated and public Teredo
  // relays are gone, so no real webhook receiver is lost.
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['ff00::', 8], // multicast
] as const) {
  nonPublicIpv6.addSubnet(network, prefix, 'ipv6')
}

/**
 * true for an IPv4/IPv6 literal that is loopback, private, link-local, site-local, ULA, CGNAT,
 * metadata, unspecified, multicast, discard-only, NAT64 local-use, IPv4-translated, 6to4 or Teredo
 */
export function isNonPublicAddress(ip: string): boolean {
  if (typeof ip !== 'string') return false
  const address = ip.replace(/%.*$/, '') // an IPv6 zone id does not change what the address is
  const version = isIP(address)
  if (version === 4) return nonPublicIpv4.check(address, 'ipv4')
  if (version !== 6) return false
  const embedded = embeddedIpv4(ipv6Groups(address))
  if (embedded !== null) return nonPublicIpv4.check(embedded, 'ipv4')
  return nonPublicIpv6.check(address, 'ipv6')
}

/**
 * null when the URL is acceptable, otherwise the reason ("must use https", "must not point at a
 * private address"...). Checks absolute http(s), length, and, unless insecure is allowed, https and
 * host literals (IPs, localhost, *.localhost, *.internal, metadata host names).
 */
export function callbackUrlProblem(url: string, options: { allowInsecure: boolean }): string | null {
  if (typeof url !== 'string') return 'must be an absolute http(s) URL'
  if (url.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`
  const parsed = URL.parse(url)
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return 'must be an absolute http(s) URL'
  }
  if (options.allowInsecure) return null
  if (parsed.protocol !== 'https:') return 'must use https'
  // The URL parser has already lower-cased the host and turned numeric IPv4 forms into dotted quads.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  if (isIP(host) !== 0) return isNonPublicAddress(host) ? 'must not point at a private address' : null
  if (isLocalHostName(host)) return 'must not point at a local or internal host name'
  return null
}

const metadataHostNames = new Set(['metadata', 'metadata.google.internal', 'instance-data'])

function isLocalHostName(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.internal') ||
    metadataHostNames.has(host)
  )
}

/** the eight 16-bit groups of a valid IPv6 literal, a trailing dotted IPv4 part included */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase()
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => parseInt(group, 16))
  const headGroups = parse(head)
  if (tail === undefined) return headGroups
  const tailGroups = parse(tail)
  return [
    ...headGroups,
    ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0),
    ...tailGroups,
  ]
}

const ipv4MappedPrefix = [0, 0, 0, 0, 0, 0xffff]
const nat64Prefix = [0x64, 0xff9b, 0, 0, 0, 0]

/** the IPv4 address inside an IPv4-mapped (::ffff:0:0/96) or NAT64 (64:ff9b::/96) IPv6 address */
function embeddedIpv4(groups: number[]): string | null {
  const hasPrefix = (prefix: number[]) => prefix.every((group, index) => groups[index] === group)
  if (!hasPrefix(ipv4MappedPrefix) && !hasPrefix(nat64Prefix)) return null
  const [high = 0, low = 0] = groups.slice(6)
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}
