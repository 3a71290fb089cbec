// Where webhooks may go. In production configuration a callback must be https and must not point at
// loopback, private, link-local, unique-local or cloud metadata addresses (checked on the URL at
// creation and again on the resolved addresses at delivery time).

/** true for an IPv4/IPv6 literal that is loopback, private, link-local, ULA, CGNAT, metadata, unspecified or multicast */
export declare function isNonPublicAddress(ip: string): boolean

/**
 * null when the URL is acceptable, otherwise the reason ("must use https", "must not point at a
 * private address"...). Checks absolute http(s), length, and, unless insecure is allowed, https and
 * host literals (IPs, localhost, *.localhost, *.internal, metadata host names).
 */
export declare function callbackUrlProblem(url: string, options: { allowInsecure: boolean }): string | null
