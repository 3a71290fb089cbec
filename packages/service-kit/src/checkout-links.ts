// The customer's page address of a payment: {PUBLIC_URL}/pay/{checkoutToken} (docs/api.md, "The
// customer's page"). The token is the payment id and a MAC of it under a key derived from the
// encryption key: payment ids follow from idempotency keys and are no secret, the MAC is what
// nobody can guess. Nothing is stored, so the gateway and the notifier, which both hold the
// encryption keys, write the same address; a page link made under a retired key stops opening.

import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto'
import { derivedKeys, type EnvReader, type SecretKeys } from '@chainpay/platform'

export interface CheckoutLinks {
  /** {PUBLIC_URL}/pay/{token} */
  urlOf(paymentId: string): string
  /** the payment id the token was made for, or null when no configured key made it */
  paymentIdOf(token: string): string | null
}

/** 128 bits of an HMAC-SHA256: as hard to guess as 128 random bits */
const MAC_BYTES = 16
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** base64url of the 16 bytes of the id, then of the MAC: 22 characters each */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{44}$/

export function createCheckoutLinks(options: {
  publicUrl: string
  keys: string | SecretKeys
  /**
   * 'invoice': the invoice's page, {PUBLIC_URL}/pay/invoice/{token}, under a key of its own, so that
   * no payment's token opens an invoice's page or the other way round (docs/api.md, "Invoices")
   */
  kind?: 'payment' | 'invoice'
}): CheckoutLinks {
  const { kind, ...rest } = options
  return kind === 'invoice'
    ? createSignedIdLinks({ ...rest, label: 'invoice token v1', path: 'pay/invoice', what: 'invoice' })
    : createSignedIdLinks({ ...rest, label: 'checkout token v1', path: 'pay', what: 'payment' })
}

/**
 * {PUBLIC_URL}/{path}/{token}, the token an id (a UUID) and a MAC of it under a key derived from the
 * encryption keys for `label`: the checkout page's, and the refund claim page's (claim-links.ts).
 */
export function createSignedIdLinks(options: {
  publicUrl: string
  keys: string | SecretKeys
  label: string
  path: string
  what: string
}): CheckoutLinks {
  // KeyObjects made once: createHmac takes one several times faster than a Buffer, whose check as a
  // KeyObject throws inside it (docs/benchmarks.md, 2026-11-28 "a GET's thread")
  const keys = derivedKeys(options.keys, options.label).map((key) => createSecretKey(key))
  const base = options.publicUrl.replace(/\/+$/, '')
  const macOf = (key: KeyObject, id: Buffer) =>
    createHmac('sha256', key).update(id).digest().subarray(0, MAC_BYTES)
  return {
    urlOf(paymentId) {
      const id = paymentId.toLowerCase()
      if (!UUID_PATTERN.test(id))
        throw new RangeError(`${options.path} link: ${options.what} id expected, got '${paymentId}'`)
      const idBytes = Buffer.from(id.replaceAll('-', ''), 'hex')
      const token = idBytes.toString('base64url') + macOf(keys[0] as KeyObject, idBytes).toString('base64url')
      return `${base}/${options.path}/${token}`
    },
    paymentIdOf(token) {
      if (!TOKEN_PATTERN.test(token)) return null
      const idBytes = Buffer.from(token.slice(0, 22), 'base64url')
      const mac = Buffer.from(token.slice(22), 'base64url')
      // base64url has several spellings of the last character: only the canonical one is the token
      if (
        idBytes.toString('base64url') !== token.slice(0, 22) ||
        mac.toString('base64url') !== token.slice(22)
      ) {
        return null
      }
      // every key is tried, so that the time taken does not tell which one matched
      const matches = keys.map((key) => timingSafeEqual(macOf(key, idBytes), mac))
      if (!matches.includes(true)) return null
      const hex = idBytes.toString('hex')
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    },
  }
}

/**
 * PUBLIC_URL: where customers reach the gateway's /pay/ pages, e.g. https://pay.example.com; the
 * gateway's own address on this machine by default (docs/operations.md, "The customer's page").
 * An origin only: the page refers to its script, style sheet, logo and cancel form by absolute
 * paths under /pay/, so a path prefix would send them past the proxy that strips it.
 */
export function readPublicUrl(read: EnvReader, defaultUrl: string): string {
  const text = read.string('PUBLIC_URL', { default: defaultUrl })
  const url = URL.parse(text)
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    read.problem(
      `PUBLIC_URL: expected an absolute http(s) URL, such as https://pay.example.com, got '${text}'`,
    )
    return defaultUrl
  }
  if (
    url.pathname !== '/' ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    text.includes('?') ||
    text.includes('#')
  ) {
    read.problem(
      // the value itself is not repeated: it may hold credentials
      `PUBLIC_URL: expected an origin without path, query, fragment or credentials, such as ` +
        `https://pay.example.com: the customer's page lives under /pay/ of the host, so route /pay/ of ` +
        `'${url.origin}' to the gateway and set PUBLIC_URL=${url.origin}`,
    )
    return defaultUrl
  }
  return url.origin
}
