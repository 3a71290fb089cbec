/** largest request body (docs/api.md, "Conventions"); larger is 413 PAYLOAD_TOO_LARGE */
export const BODY_LIMIT_BYTES = 64 * 1024
