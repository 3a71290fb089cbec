// The answers merchants have always had: every body of create-request.cases.json with the code and
// message it got when the gateway's JSON schema and the domain both validated it (recorded through
// the merchant API before validation moved into the domain alone; docs/api.md, "Validation"). The
// domain must give each exactly, so that no merchant's error handling changes.

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry } from './assets.js'
import { validateCreatePaymentRequest } from './create-request.js'

interface RecordedCase {
  body: unknown
  expect: 'valid' | { code: string; message: string }
}

const cases = JSON.parse(
  readFileSync(new URL('./create-request.cases.json', import.meta.url), 'utf8'),
) as RecordedCase[]

/** what the domain says of `body` under the production URL policy */
function answerTo(body: unknown): RecordedCase['expect'] {
  try {
    validateCreatePaymentRequest(body, defaultAssetRegistry, { allowInsecureCallbackUrls: false })
    return 'valid'
  } catch (error) {
    const { code, message } = error as { code: string; message: string }
    return { code, message }
  }
}

describe('validateCreatePaymentRequest, on the recorded bodies', () => {
  it.each(cases.map((recorded, index) => [index, recorded] as const))('case %i', (_index, recorded) => {
    expect(answerTo(recorded.body)).toEqual(recorded.expect)
  })

  it('covers every field, the body itself and valid requests', () => {
    const fields = new Set(
      cases.flatMap(({ body }) => (body && typeof body === 'object' ? Object.keys(body) : [])),
    )
    expect([...fields]).toEqual(
      expect.arrayContaining(['amount', 'metadata', 'callbackUrl', 'idempotencyKey']),
    )
    expect(cases.filter((recorded) => recorded.expect === 'valid').length).toBeGreaterThan(20)
  })
})
