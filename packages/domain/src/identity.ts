// Identifiers and fingerprints.

/** UUID text in any version, lower or upper case */
export declare function isPaymentId(text: string): boolean

/**
 * The payment id a merchant's idempotency key maps to: a UUID (version 8) from
 * sha256(merchantId, key). Concurrent duplicates therefore race for one stream, and the event
 * store's optimistic concurrency lets exactly one create it.
 */
export declare function paymentIdForIdempotencyKey(merchantId: string, idempotencyKey: string): string

/** sha256 hex of the canonical JSON (keys sorted at every depth) of the request */
export declare function requestFingerprint(request: unknown): string

/** JSON with object keys sorted at every depth */
export declare function canonicalJson(value: unknown): string
