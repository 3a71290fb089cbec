// API request signing (decisions.md section 2) and webhook signing (section 9): HMAC-SHA256 from
// node:crypto, lower-case hex, compared in constant time.

export * from './request-signing.js'
export * from './webhook-signing.js'
