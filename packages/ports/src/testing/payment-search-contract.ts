import type { Metadata } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PaymentListPosition, PaymentReadModel, PaymentSearch } from '../read-model.js'
import { samplePaymentDocument } from './read-model-contract.js'

/** What every PaymentSearch adapter must do over the read model it searches; fresh, empty per test. */
export function describePaymentSearchContract(
  adapterName: string,
  setup: () => Promise<{ readModel: PaymentReadModel; search: PaymentSearch; teardown(): Promise<void> }>,
): void {
  describe(`PaymentSearch contract: ${adapterName}`, () => {
    let readModel: PaymentReadModel
    let search: PaymentSearch
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      readModel = fixture.readModel
      search = fixture.search
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    const payment = (
      paymentId: string,
      merchantId: string,
      address: string,
      txHash: string | null,
      createdAt: string,
      metadata: Metadata = {},
    ) => {
      const document = samplePaymentDocument(paymentId, 3)
      const state = {
        ...document.state,
        created: { ...document.state.created, paymentId, merchantId, address, createdAt, metadata },
        transfers:
          txHash === null ? [] : document.state.transfers.map((transfer) => ({ ...transfer, txHash })),
        txHash,
      }
      return { ...document, merchantId, state }
    }

    it("finds a merchant's payments by receiving address or tx hash, newest first, and no other merchant's", async () => {
      const first = payment('pay_1', 'mer_1', 'TAddressOne', 'aa'.repeat(32), '2030-01-01T00:00:00.000Z')
      const second = payment('pay_2', 'mer_1', 'TAddressOne', null, '2030-01-02T00:00:00.000Z')
      const other = payment('pay_3', 'mer_2', 'TAddressOne', 'aa'.repeat(32), '2030-01-03T00:00:00.000Z')
      for (const document of [first, second, other]) await readModel.save(document)

      const ids = async (merchantId: string, reference: string, limit = 10) =>
        (await search.findByReference(merchantId, reference, limit)).map((found) => found.paymentId)
      expect(await ids('mer_1', 'TAddressOne')).toEqual(['pay_2', 'pay_1'])
      expect(await ids('mer_1', 'TAddressOne', 1)).toEqual(['pay_2'])
      expect(await ids('mer_1', 'aa'.repeat(32))).toEqual(['pay_1'])
      expect(await ids('mer_2', 'aa'.repeat(32))).toEqual(['pay_3'])
      expect(await ids('mer_1', 'bb'.repeat(32))).toEqual([])
      expect((await search.findByReference('mer_1', 'aa'.repeat(32), 10))[0]).toEqual(
        await readModel.get('pay_1'),
      )
    })

    const ids = async (merchantId: string, reference: string, limit = 10, after?: PaymentListPosition) =>
      (await search.findByReference(merchantId, reference, limit, after)).map((found) => found.paymentId)

    it("finds a merchant's payments by a metadata value under any key, a number by its JSON text, exactly", async () => {
      const documents = [
        payment('pay_1', 'mer_1', 'TAddress1', null, '2030-01-01T00:00:00.000Z', { orderId: '1042' }),
        payment('pay_2', 'mer_1', 'TAddress2', null, '2030-01-02T00:00:00.000Z', { order: 1042, paid: true }),
        payment('pay_3', 'mer_2', 'TAddress3', null, '2030-01-03T00:00:00.000Z', { orderId: '1042' }),
        payment('pay_4', 'mer_1', 'TAddress4', null, '2030-01-04T00:00:00.000Z', {
          orderId: 'A-7',
          note: null,
          'a.b': 'dotted',
          $where: 'x',
        }),
      ]
      for (const document of documents) await readModel.save(document)

      expect(await ids('mer_1', '1042')).toEqual(['pay_2', 'pay_1'])
      expect(await ids('mer_2', '1042')).toEqual(['pay_3'])
      expect(await ids('mer_1', 'true')).toEqual(['pay_2'])
      expect(await ids('mer_1', 'dotted')).toEqual(['pay_4'])
      expect(await ids('mer_1', 'x')).toEqual(['pay_4'])
      // exact and case-sensitive; a key is not a value; null is not kept
      expect(await ids('mer_1', 'a-7')).toEqual([])
      expect(await ids('mer_1', 'A-')).toEqual([])
      expect(await ids('mer_1', 'orderId')).toEqual([])
      expect(await ids('mer_1', 'null')).toEqual([])
      expect((await search.findByReference('mer_1', 'A-7', 10))[0]).toEqual(await readModel.get('pay_4'))
    })

    it('keeps the values once through later revisions and stale saves, and pages from a position', async () => {
      const first = payment('pay_1', 'mer_1', 'TAddress1', null, '2030-01-01T00:00:00.000Z', { orderId: '7' })
      const second = payment('pay_2', 'mer_1', 'TAddress2', null, '2030-01-02T00:00:00.000Z', {
        orderId: '7',
      })
      const third = payment('pay_3', 'mer_1', '7', null, '2030-01-03T00:00:00.000Z')
      for (const document of [first, second, third]) await readModel.save(document)
      // a later revision (metadata never changes after create) and a replayed older one
      expect(
        await readModel.save({ ...first, revision: 4, state: { ...first.state, status: 'expired' } }),
      ).toBe('applied')
      expect(await readModel.save(first)).toBe('stale')

      // the address and the metadata value of three payments: each once, newest first
      expect(await ids('mer_1', '7')).toEqual(['pay_3', 'pay_2', 'pay_1'])
      expect(await ids('mer_1', '7', 2)).toEqual(['pay_3', 'pay_2'])
      const position = { createdAt: second.state.created.createdAt, paymentId: 'pay_2' }
      expect(await ids('mer_1', '7', 2, position)).toEqual(['pay_1'])
      expect((await search.findByReference('mer_1', '7', 10, position))[0]?.state.status).toBe('expired')
    })
  })
}
