import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry, mergeAssetRegistry } from './assets.js'
import {
  type CreatePaymentRequest,
  type CreateRequestPolicy,
  validateCreatePaymentRequest,
  validateMetadata,
} from './create-request.js'

const production: CreateRequestPolicy = { allowInsecureCallbackUrls: false }
const development: CreateRequestPolicy = { allowInsecureCallbackUrls: true }
const base: CreatePaymentRequest = { amount: '10.5', currency: 'USDT', network: 'TRON' }

function validate(change: Record<string, unknown>, policy = production) {
  return validateCreatePaymentRequest({ ...base, ...change }, defaultAssetRegistry, policy)
}

/** the DomainError code and message `run` throws */
function failure(run: () => unknown): { code: string; message: string } {
  try {
    run()
  } catch (error) {
    const { code, message } = error as { code: string; message: string }
    return { code, message }
  }
  throw new Error('expected a DomainError, nothing was thrown')
}

const validationError = (message: string) => ({ code: 'VALIDATION_ERROR', message })

describe('validateCreatePaymentRequest', () => {
  it('resolves the asset and the amount in smallest units', () => {
    const { asset, amountUnits } = validate({})
    expect(asset).toMatchObject({ network: 'TRON', currency: 'USDT', tokenStandard: 'TRC20' })
    expect(amountUnits).toBe(10_500_000n)
  })

  it('accepts every optional field at its limits', () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${i}`.padEnd(64, 'x'), 'v'.repeat(500)]),
    )
    const result = validate({
      tokenStandard: 'TRC20',
      addressMode: 'PER_PAYMENT',
      description: 'd'.repeat(1000),
      metadata,
      callbackUrl: `https://shop.example.com/${'c'.repeat(2048 - 25)}`,
      successRedirectUrl: 'https://shop.example.com/ok',
      cancelRedirectUrl: 'http://shop.example.com/cancel',
      expiresInMinutes: 1440,
      idempotencyKey: 'k'.repeat(255),
    })
    expect(result.amountUnits).toBe(10_500_000n)
  })

  describe('amount', () => {
    it.each(['10,5', '-1', '1e3', '010', '.5', '5.', ''])('must be a decimal string: %j', (amount) => {
      expect(failure(() => validate({ amount }))).toEqual(
        validationError(
          'amount: must be a decimal string such as "10.5" (no sign, exponent or leading zeros)',
        ),
      )
    })

    it('must be a string', () => {
      expect(failure(() => validate({ amount: 10.5 })).code).toBe('VALIDATION_ERROR')
    })

    it('is checked before the asset', () => {
      expect(failure(() => validate({ amount: 'x', currency: 'DOGE' })).code).toBe('VALIDATION_ERROR')
    })

    it('must be greater than 0', () => {
      expect(failure(() => validate({ amount: '0' }))).toEqual(
        validationError('amount: must be greater than 0'),
      )
      expect(failure(() => validate({ amount: '0.000000' }))).toEqual(
        validationError('amount: must be greater than 0'),
      )
    })

    it('has at most the asset decimals', () => {
      expect(validate({ amount: '0.000001' }).amountUnits).toBe(1n)
      expect(failure(() => validate({ amount: '0.0000001' }))).toEqual(
        validationError('amount: at most 6 decimal places for USDT on TRON'),
      )
      expect(validate({ amount: '0.000890881', currency: 'SOL', network: 'SOLANA' }).amountUnits).toBe(
        890_881n,
      )
    })

    describe('SOL is at least the rent-exempt minimum of a system account', () => {
      const floor =
        'amount: at least 0.00089088 for SOL on %s (the rent-exempt minimum of a Solana account: a first transfer of less to a fresh address fails on chain)'

      it.each(['SOLANA', 'SOLANA_DEVNET'])('on %s', (network) => {
        expect(validate({ amount: '0.00089088', currency: 'SOL', network }).amountUnits).toBe(890_880n)
        expect(failure(() => validate({ amount: '0.000890879', currency: 'SOL', network }))).toEqual(
          validationError(floor.replace('%s', network)),
        )
        expect(failure(() => validate({ amount: '0.000000001', currency: 'SOL', network })).code).toBe(
          'VALIDATION_ERROR',
        )
      })

      it('takes the floor from the registry, as configured', () => {
        const registry = mergeAssetRegistry(defaultAssetRegistry, {
          assets: [
            {
              network: 'SOLANA',
              currency: 'SOL',
              tokenStandard: 'NATIVE',
              decimals: 9,
              contract: null,
              minAmount: '0.001',
            },
          ],
        })
        const body = { amount: '0.000999999', currency: 'SOL', network: 'SOLANA' }
        expect(failure(() => validateCreatePaymentRequest(body, registry, production)).message).toMatch(
          /^amount: at least 0\.001 for SOL on SOLANA \(the rent-exempt minimum/,
        )
        expect(
          validateCreatePaymentRequest({ ...body, amount: '0.001' }, registry, production).amountUnits,
        ).toBe(1_000_000n)
      })

      it('leaves the tokens of the network alone', () => {
        expect(validate({ amount: '0.000001', currency: 'USDC', network: 'SOLANA' }).amountUnits).toBe(1n)
      })
    })

    it('is at most the asset maximum', () => {
      expect(validate({ amount: '1000000000' }).amountUnits).toBe(1_000_000_000_000_000n)
      expect(failure(() => validate({ amount: '1000000000.000001' }))).toEqual(
        validationError('amount: at most 1000000000 for USDT on TRON'),
      )
    })
  })

  describe('currency, network and tokenStandard', () => {
    it('must name a registered asset', () => {
      const { code, message } = failure(() => validate({ currency: 'USDC' }))
      expect(code).toBe('UNSUPPORTED_ASSET')
      expect(message).toMatch(
        /^unsupported asset USDC on TRON; supported: TRON: TRX \(NATIVE\), USDT \(TRC20\);/,
      )
    })

    it('are canonical upper case', () => {
      expect(failure(() => validate({ network: 'tron' })).code).toBe('UNSUPPORTED_ASSET')
    })

    it('tokenStandard must match when sent', () => {
      expect(failure(() => validate({ tokenStandard: 'SPL' })).code).toBe('UNSUPPORTED_ASSET')
    })

    it('currency and network are required, and strings', () => {
      const { currency, ...noCurrency } = base
      const { network, ...noNetwork } = base
      expect(
        failure(() => validateCreatePaymentRequest(noCurrency, defaultAssetRegistry, production)),
      ).toEqual(validationError('currency: is required'))
      expect(
        failure(() => validateCreatePaymentRequest(noNetwork, defaultAssetRegistry, production)),
      ).toEqual(validationError('network: is required'))
      expect(failure(() => validate({ currency: 7 }))).toEqual(validationError('currency: must be a string'))
      expect(failure(() => validate({ network: null }))).toEqual(validationError('network: must be a string'))
    })
  })

  it('addressMode must be PER_PAYMENT or PER_USER', () => {
    expect(failure(() => validate({ addressMode: 'SHARED' }))).toEqual(
      validationError('addressMode: must be one of PER_PAYMENT, PER_USER'),
    )
  })

  it('PER_USER takes a merchantUserId of 1 to 128 characters, and only PER_USER takes one', () => {
    expect(validate({ addressMode: 'PER_USER', merchantUserId: 'customer-8841' }).request).toMatchObject({
      addressMode: 'PER_USER',
      merchantUserId: 'customer-8841',
    })
    expect(failure(() => validate({ addressMode: 'PER_USER' }))).toEqual(
      validationError('merchantUserId: is required with addressMode PER_USER'),
    )
    expect(failure(() => validate({ addressMode: 'PER_USER', merchantUserId: '' }))).toEqual(
      validationError('merchantUserId: must be 1 to 128 characters'),
    )
    expect(failure(() => validate({ addressMode: 'PER_USER', merchantUserId: 'x'.repeat(129) }))).toEqual(
      validationError('merchantUserId: must be 1 to 128 characters'),
    )
    expect(failure(() => validate({ addressMode: 'PER_USER', merchantUserId: 7 }))).toEqual(
      validationError('merchantUserId: must be a string'),
    )
    expect(failure(() => validate({ merchantUserId: 'customer-8841' }))).toEqual(
      validationError('merchantUserId: is sent only with addressMode PER_USER'),
    )
  })

  it.each([
    [0, 'must be at least 1'],
    [-5, 'must be at least 1'],
    [1441, 'must be at most 1440'],
    [1.5, 'must be an integer'],
    ['30', 'must be an integer'],
  ])('expiresInMinutes must be an integer from 1 to 1440: %j', (expiresInMinutes, rule) => {
    expect(failure(() => validate({ expiresInMinutes }))).toEqual(
      validationError(`expiresInMinutes: ${rule}`),
    )
  })

  it('description is at most 1000 characters, counting an emoji once', () => {
    expect(validate({ description: '😀'.repeat(1000) }).amountUnits).toBe(10_500_000n)
    expect(failure(() => validate({ description: 'd'.repeat(1001) }))).toEqual(
      validationError('description: must be at most 1000 characters'),
    )
  })

  it('description and metadata values: no NUL, control character or bidirectional override', () => {
    expect(validate({ description: 'Zeile 1\nطلب\u200F', metadata: { note: 'a\tb' } }).amountUnits).toBe(
      10_500_000n,
    )
    expect(failure(() => validate({ description: 'Pay \u202Etxt.exe' }))).toEqual(
      validationError(
        'description: must not contain a bidirectional override, embedding or isolate (U+202E at character 5)',
      ),
    )
    expect(failure(() => validate({ description: 'a\u0000' }))).toEqual(
      validationError('description: must not contain a control character (U+0000 at character 2)'),
    )
    expect(failure(() => validate({ metadata: { order: '1001\u2066' } }))).toEqual(
      validationError(
        'metadata.order: must not contain a bidirectional override, embedding or isolate (U+2066 at character 5)',
      ),
    )
  })

  describe('metadata', () => {
    it('accepts flat values, whatever characters the keys hold', () => {
      expect(validate({ metadata: { $where: 'x', 'a.b': 1.5, ok: false, none: null } }).amountUnits).toBe(
        10_500_000n,
      )
    })

    it('must be an object', () => {
      for (const metadata of [[], 'x', 1, null]) {
        expect(failure(() => validate({ metadata }))).toEqual(validationError('metadata: must be an object'))
      }
    })

    it('has at most 50 keys', () => {
      const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))
      expect(failure(() => validate({ metadata }))).toEqual(
        validationError('metadata: must have at most 50 keys'),
      )
    })

    it('keys are 1 to 64 characters', () => {
      expect(failure(() => validate({ metadata: { ['k'.repeat(65)]: 1 } }))).toEqual(
        validationError(
          `metadata: key '${'k'.repeat(65)}' is not allowed (keys must be at most 64 characters)`,
        ),
      )
      expect(failure(() => validate({ metadata: { '': 1 } }))).toEqual(
        validationError("metadata: key '' is not allowed (keys must be at least 1 characters)"),
      )
    })

    it('string values are at most 500 characters', () => {
      expect(failure(() => validate({ metadata: { note: 'n'.repeat(501) } }))).toEqual(
        validationError('metadata.note: must be at most 500 characters'),
      )
    })

    it.each([{ nested: { a: 1 } }, { list: [1, 2] }])('values are not nested: %j', (metadata) => {
      const [key] = Object.keys(metadata)
      expect(failure(() => validate({ metadata }))).toEqual(
        validationError(`metadata.${key}: must be a string, a number, a boolean or null`),
      )
    })

    it('validateMetadata checks a value on its own', () => {
      expect(() => validateMetadata({ a: 1 })).not.toThrow()
      expect(() => validateMetadata({ a: Number.NaN })).toThrow('metadata.a: must be a finite number')
    })
  })

  describe('callbackUrl', () => {
    it('must be https to a public host in production', () => {
      expect(failure(() => validate({ callbackUrl: 'http://shop.example.com/hook' }))).toEqual(
        validationError('callbackUrl: must use https'),
      )
      expect(failure(() => validate({ callbackUrl: 'https://127.0.0.1/hook' }))).toEqual(
        validationError('callbackUrl: must not point at a private address'),
      )
      expect(failure(() => validate({ callbackUrl: 'https://localhost/hook' }))).toEqual(
        validationError('callbackUrl: must not point at a local or internal host name'),
      )
    })

    it('may be http and loopback in development mode', () => {
      expect(validate({ callbackUrl: 'http://127.0.0.1:8080/hook' }, development).amountUnits).toBe(
        10_500_000n,
      )
    })

    it('must be absolute http(s) and at most 2048 characters in any mode', () => {
      expect(failure(() => validate({ callbackUrl: '/hook' }, development))).toEqual(
        validationError('callbackUrl: must be an absolute http(s) URL'),
      )
      expect(
        failure(() => validate({ callbackUrl: `https://shop.example.com/${'c'.repeat(2048)}` }, development)),
      ).toEqual(validationError('callbackUrl: must be at most 2048 characters'))
    })
  })

  describe.each(['successRedirectUrl', 'cancelRedirectUrl'])('%s', (field) => {
    it('may be http and point anywhere', () => {
      expect(validate({ [field]: 'http://localhost:3000/back' }).amountUnits).toBe(10_500_000n)
    })

    it('must be absolute http(s) and at most 2048 characters', () => {
      expect(failure(() => validate({ [field]: 'javascript:alert(1)' }))).toEqual(
        validationError(`${field}: must be an absolute http(s) URL`),
      )
      expect(failure(() => validate({ [field]: `https://shop.example.com/${'c'.repeat(2048)}` }))).toEqual(
        validationError(`${field}: must be at most 2048 characters`),
      )
    })
  })

  it.each([
    ['', 'must be at least 1 characters'],
    ['k'.repeat(256), 'must be at most 255 characters'],
  ])('idempotencyKey is 1 to 255 characters: %j', (idempotencyKey, rule) => {
    expect(failure(() => validate({ idempotencyKey }))).toEqual(validationError(`idempotencyKey: ${rule}`))
  })

  // an unpaired surrogate becomes U+FFFD on its way to the payment id: '\ud800' and '\ud801' would
  // name one payment
  it.each([
    ['a lone high surrogate', 'order-\ud800'],
    ['a lone low surrogate', '\udc00-order'],
    ['a pair in the wrong order', '\udc00\ud800'],
    ['half of an emoji at the end', 'order-\ud83d'],
  ])('idempotencyKey must be well-formed Unicode: %s', (_what, idempotencyKey) => {
    expect(failure(() => validate({ idempotencyKey }))).toEqual(
      validationError('idempotencyKey: must be well-formed Unicode (it holds an unpaired surrogate)'),
    )
  })

  it('idempotencyKey may hold any well-formed text', () => {
    expect(validate({ idempotencyKey: 'order 💸 ü \ufffd \u0000' }).request.idempotencyKey).toBe(
      'order 💸 ü \ufffd \u0000',
    )
  })

  it('rejects unknown fields', () => {
    expect(failure(() => validate({ customerEmail: 'a@b.c' }))).toEqual(
      validationError("body: unknown field 'customerEmail'"),
    )
  })
})
