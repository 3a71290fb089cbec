import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type RateSource, RateSourceFailure, type RateSourceFailureKind } from '../rate-source.js'

export interface RateSourceFixture {
  source: RateSource
  /** the price the source will answer for the pair */
  setPrice(base: string, quote: string, value: string): void
  /** the source answers with this fault from now on */
  fault(kind: 'timeout' | 'http_status' | 'malformed'): void
  /** a time no earlier than the answer's `at` may be */
  startedAt: Date
  teardown(): Promise<void>
}

/** The behaviour every RateSource adapter promises (docs/operations.md, "Exchange rates"). */
export function describeRateSourceContract(
  adapterName: string,
  setup: () => Promise<RateSourceFixture>,
): void {
  describe(`RateSource contract: ${adapterName}`, () => {
    let fixture: RateSourceFixture
    beforeEach(async () => {
      fixture = await setup()
    })
    afterEach(async () => {
      await fixture.teardown()
    })

    async function failureOf(promise: Promise<unknown>): Promise<RateSourceFailureKind> {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(RateSourceFailure)
      expect((error as RateSourceFailure).source).toBe(fixture.source.name)
      return (error as RateSourceFailure).kind
    }

    it('answers the price of the pair exactly as the source wrote it, with its time', async () => {
      fixture.setPrice('SOL', 'USD', '142.123456789012345678')
      const quote = await fixture.source.quote({ base: 'SOL', quote: 'USD' })
      expect(quote).toEqual({
        source: fixture.source.name,
        value: '142.123456789012345678',
        at: expect.any(String),
      })
      expect(Date.parse(quote.at)).toBeGreaterThanOrEqual(
        Math.floor(fixture.startedAt.getTime() / 1000) * 1000,
      )
    })

    it('writes the price canonical: no trailing zeros', async () => {
      fixture.setPrice('TRX', 'EUR', '0.23100000')
      expect((await fixture.source.quote({ base: 'TRX', quote: 'EUR' })).value).toBe('0.231')
    })

    it('refuses a pair it does not price as unsupported_pair', async () => {
      fixture.setPrice('SOL', 'USD', '142')
      expect(await failureOf(fixture.source.quote({ base: 'SOL', quote: 'JPY' }))).toBe('unsupported_pair')
    })

    it('turns no answer in time into timeout', async () => {
      fixture.setPrice('SOL', 'USD', '142')
      fixture.fault('timeout')
      expect(await failureOf(fixture.source.quote({ base: 'SOL', quote: 'USD' }))).toBe('timeout')
    })

    it('turns an error status into http_status', async () => {
      fixture.setPrice('SOL', 'USD', '142')
      fixture.fault('http_status')
      expect(await failureOf(fixture.source.quote({ base: 'SOL', quote: 'USD' }))).toBe('http_status')
    })

    it('turns an answer that is not the documented shape into malformed', async () => {
      fixture.setPrice('SOL', 'USD', '142')
      fixture.fault('malformed')
      expect(await failureOf(fixture.source.quote({ base: 'SOL', quote: 'USD' }))).toBe('malformed')
    })
  })
}
