// API request signing (docs/api.md, "Authentication") and webhook signing (section 9): HMAC-SHA256 from
// node:crypto, lower-case hex, compared in constant time.

export * from './request-signing.js'
export * from './webhook-signing.js'
