/** largest request body (decisions.md section 1); larger is 413 PAYLOAD_TOO_LARGE */
export const BODY_LIMIT_BYTES = 64 * 1024
